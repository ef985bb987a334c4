// include/common.h: shared macros for macros_partial_args.t2s (#include "include/common.h").
// Guarded so that a second inclusion is harmless.
#ifndef T2S_SPECS_COMMON_H
#define T2S_SPECS_COMMON_H

// Element types, selected with -D USE_INT (see macros_partial_args.t2s).
#define FLOAT_T Float(32)
#define INT_T   Int(32)
#define ZERO_F  0.0f
#define ZERO_I  0

// Function-like helpers.
#define SQ(e)          ((e) * (e))
#define MINUS_1(v)     v - 1
#define CHAIN(v, cond, init, self) select(v == 0 || (cond), init, self)

#endif
