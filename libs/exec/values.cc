// Values: Halide's arithmetic and conversions on the interpreter's scalar values (LANGUAGE.md
// section 4), and their encoding in NdArray bytes.
#include <cmath>
#include <cstring>

#include "libs/exec/interpreter_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the interpreter copies NdArray elements as little-endian host integers"
#endif

namespace t2s {
namespace interp {

int64_t float_to_int(double x, int bits, bool is_signed) {
  if (std::isnan(x)) return 0;
  if (is_signed) {
    const double limit = std::ldexp(1.0, bits - 1);
    if (x >= limit) return static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
    // -2^(bits-1), without negating INT64_MIN (undefined; UBSan found it).
    if (x <= -limit) return static_cast<int64_t>(~uint64_t{0} << (bits - 1));
    return static_cast<int64_t>(x);
  }
  if (x >= std::ldexp(1.0, bits)) return static_cast<int64_t>(~uint64_t{0} >> (64 - bits));
  if (x <= -1.0) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(x));
}

Elem elem_of(Type t) {
  if (t.is_bool()) return Elem::kBool;
  if (t.is_float()) return t.bits == 32 ? Elem::kF32 : Elem::kF64;
  const bool s = t.is_int();
  switch (t.bits) {
    case 8:
      return s ? Elem::kI8 : Elem::kU8;
    case 16:
      return s ? Elem::kI16 : Elem::kU16;
    case 32:
      return s ? Elem::kI32 : Elem::kU32;
    default:
      return s ? Elem::kI64 : Elem::kU64;
  }
}

template <typename T>
T load_as(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

Value load_element(Elem e, const uint8_t* p) {
  Value v;
  switch (e) {
    case Elem::kI8:
      v.i = load_as<int8_t>(p);
      break;
    case Elem::kI16:
      v.i = load_as<int16_t>(p);
      break;
    case Elem::kI32:
      v.i = load_as<int32_t>(p);
      break;
    case Elem::kI64:
      v.i = load_as<int64_t>(p);
      break;
    case Elem::kU8:
      v.u = load_as<uint8_t>(p);
      break;
    case Elem::kU16:
      v.u = load_as<uint16_t>(p);
      break;
    case Elem::kU32:
      v.u = load_as<uint32_t>(p);
      break;
    case Elem::kU64:
      v.u = load_as<uint64_t>(p);
      break;
    case Elem::kBool:
      v.u = *p != 0;
      break;
    case Elem::kF32:
      v.d = 0;
      v.f = load_as<float>(p);
      break;
    case Elem::kF64:
      v.d = load_as<double>(p);
      break;
  }
  return v;
}

void store_element(Type t, Value v, uint8_t* p) {
  if (t.is_bool()) {
    *p = v.u != 0;
  } else if (t.is_float() && t.bits == 32) {
    std::memcpy(p, &v.f, sizeof v.f);
  } else if (t.is_float()) {
    std::memcpy(p, &v.d, sizeof v.d);
  } else {
    std::memcpy(p, &v.u, static_cast<size_t>(t.bits) / 8);  // little-endian: the low bytes
  }
}

Value Exec::eval(const Node* n) {
  Value r;
  switch (n->op) {
    case Op::kConst:
      return n->imm;
    case Op::kVar:
      return vars_[n->slot];
    case Op::kLoadFunc: {
      Storage& s = *storage_[n->slot];
      int64_t i = element(s, n->args, false, n->loc);
      if (!s.written[i]) uncomputed(s, i, n->loc);
      return s.data[i];
    }
    case Op::kLoadImage:
      return load_image(n);
    case Op::kReadChannel:
      return read_channel(n);
    case Op::kLoadRegister:
      return load_register(n);
    case Op::kPop:
      return pop(n);
    case Op::kSelect:  // lazy: an untaken branch may read out of bounds
      return eval(n->a).u ? eval(n->b) : eval(n->c);
    case Op::kAnd:  // short-circuit, as C backends evaluate &&
      r.u = eval(n->a).u && eval(n->b).u;
      return r;
    case Op::kOr:
      r.u = eval(n->a).u || eval(n->b).u;
      return r;
    case Op::kNot:
      r.u = !eval(n->a).u;
      return r;
    case Op::kNegS:
      r.i = wrap_s(0 - eval(n->a).u, n->shift);
      return r;
    case Op::kNegU:
      r.u = (0 - eval(n->a).u) & n->mask;
      return r;
    case Op::kNegF32:
      r.f = -eval(n->a).f;
      return r;
    case Op::kNegF64:
      r.d = -eval(n->a).d;
      return r;
    case Op::kCastToS:
      r.i = wrap_s(eval(n->a).u, n->shift);
      return r;
    case Op::kCastToU:
      r.u = eval(n->a).u & n->mask;
      return r;
    case Op::kIntToBool:
      r.u = eval(n->a).u != 0;
      return r;
    case Op::kSToF32:
      r.f = static_cast<float>(eval(n->a).i);
      return r;
    case Op::kUToF32:
      r.f = static_cast<float>(eval(n->a).u);
      return r;
    case Op::kSToF64:
      r.d = static_cast<double>(eval(n->a).i);
      return r;
    case Op::kUToF64:
      r.d = static_cast<double>(eval(n->a).u);
      return r;
    case Op::kF32ToF64:
      r.d = eval(n->a).f;
      return r;
    case Op::kF64ToF32:
      r.f = static_cast<float>(eval(n->a).d);
      return r;
    case Op::kF32ToBool:
      r.u = eval(n->a).f != 0;
      return r;
    case Op::kF64ToBool:
      r.u = eval(n->a).d != 0;
      return r;
    case Op::kF32ToInt:
      r.i = float_to_int(eval(n->a).f, n->bits, n->is_signed);
      return r;
    case Op::kF64ToInt:
      r.i = float_to_int(eval(n->a).d, n->bits, n->is_signed);
      return r;
    case Op::kAbsS: {  // Halide: the result is unsigned, so abs(INT_MIN) is representable
      Value x = eval(n->a);
      r.u = (x.i < 0 ? 0 - x.u : x.u) & n->mask;
      return r;
    }
    case Op::kAbsF32:
      r.f = fabsf(eval(n->a).f);
      return r;
    case Op::kAbsF64:
      r.d = fabs(eval(n->a).d);
      return r;
    case Op::kSqrtF32:
      r.f = sqrtf(eval(n->a).f);
      return r;
    case Op::kSqrtF64:
      r.d = sqrt(eval(n->a).d);
      return r;
    case Op::kExpF32:
      r.f = expf(eval(n->a).f);
      return r;
    case Op::kExpF64:
      r.d = exp(eval(n->a).d);
      return r;
    case Op::kLogF32:
      r.f = logf(eval(n->a).f);
      return r;
    case Op::kLogF64:
      r.d = log(eval(n->a).d);
      return r;
    case Op::kFloorF32:
      r.f = floorf(eval(n->a).f);
      return r;
    case Op::kFloorF64:
      r.d = floor(eval(n->a).d);
      return r;
    case Op::kCeilF32:
      r.f = ceilf(eval(n->a).f);
      return r;
    case Op::kCeilF64:
      r.d = ceil(eval(n->a).d);
      return r;
    case Op::kRoundF32:  // Halide rounds half to even: the default rounding mode
      r.f = nearbyintf(eval(n->a).f);
      return r;
    case Op::kRoundF64:
      r.d = nearbyint(eval(n->a).d);
      return r;
    case Op::kExtract:  // out of line: keeps the lane array off eval's (recursive) frame
      return extract(n);
    default:
      break;
  }
  const Value x = eval(n->a);
  const Value y = eval(n->b);
  switch (n->op) {
    case Op::kAddS:
      r.i = wrap_s(x.u + y.u, n->shift);
      break;
    case Op::kAddU:
      r.u = (x.u + y.u) & n->mask;
      break;
    case Op::kSubS:
      r.i = wrap_s(x.u - y.u, n->shift);
      break;
    case Op::kSubU:
      r.u = (x.u - y.u) & n->mask;
      break;
    case Op::kMulS:
      r.i = wrap_s(x.u * y.u, n->shift);
      break;
    case Op::kMulU:
      r.u = (x.u * y.u) & n->mask;
      break;
    case Op::kDivS:
      r.i = wrap_s(static_cast<uint64_t>(halide_div(x.i, y.i)), n->shift);
      break;
    case Op::kDivU:
      r.u = y.u == 0 ? 0 : x.u / y.u;
      break;
    case Op::kModS:
      r.i = halide_mod(x.i, y.i);
      break;
    case Op::kModU:
      r.u = y.u == 0 ? 0 : x.u % y.u;
      break;
    case Op::kAddF32:
      r.f = x.f + y.f;
      break;
    case Op::kSubF32:
      r.f = x.f - y.f;
      break;
    case Op::kMulF32:
      r.f = x.f * y.f;
      break;
    case Op::kDivF32:
      r.f = x.f / y.f;
      break;
    case Op::kModF32:  // Halide's float modulo, in the operand type
      r.f = x.f - y.f * floorf(x.f / y.f);
      break;
    case Op::kAddF64:
      r.d = x.d + y.d;
      break;
    case Op::kSubF64:
      r.d = x.d - y.d;
      break;
    case Op::kMulF64:
      r.d = x.d * y.d;
      break;
    case Op::kDivF64:
      r.d = x.d / y.d;
      break;
    case Op::kModF64:
      r.d = x.d - y.d * floor(x.d / y.d);
      break;
    case Op::kEqI:
      r.u = x.u == y.u;
      break;
    case Op::kNeI:
      r.u = x.u != y.u;
      break;
    case Op::kLtS:
      r.u = x.i < y.i;
      break;
    case Op::kLeS:
      r.u = x.i <= y.i;
      break;
    case Op::kGtS:
      r.u = x.i > y.i;
      break;
    case Op::kGeS:
      r.u = x.i >= y.i;
      break;
    case Op::kLtU:
      r.u = x.u < y.u;
      break;
    case Op::kLeU:
      r.u = x.u <= y.u;
      break;
    case Op::kGtU:
      r.u = x.u > y.u;
      break;
    case Op::kGeU:
      r.u = x.u >= y.u;
      break;
    case Op::kEqF32:
      r.u = x.f == y.f;
      break;
    case Op::kNeF32:
      r.u = x.f != y.f;
      break;
    case Op::kLtF32:
      r.u = x.f < y.f;
      break;
    case Op::kLeF32:
      r.u = x.f <= y.f;
      break;
    case Op::kGtF32:
      r.u = x.f > y.f;
      break;
    case Op::kGeF32:
      r.u = x.f >= y.f;
      break;
    case Op::kEqF64:
      r.u = x.d == y.d;
      break;
    case Op::kNeF64:
      r.u = x.d != y.d;
      break;
    case Op::kLtF64:
      r.u = x.d < y.d;
      break;
    case Op::kLeF64:
      r.u = x.d <= y.d;
      break;
    case Op::kGtF64:
      r.u = x.d > y.d;
      break;
    case Op::kGeF64:
      r.u = x.d >= y.d;
      break;
    // min(a, b) is a < b ? a : b and max(a, b) is a > b ? a : b, as Halide lowers them; for
    // floats this fixes which operand a NaN comparison yields (the second).
    case Op::kMinS:
      r = x.i < y.i ? x : y;
      break;
    case Op::kMinU:
      r = x.u < y.u ? x : y;
      break;
    case Op::kMinF32:
      r = x.f < y.f ? x : y;
      break;
    case Op::kMinF64:
      r = x.d < y.d ? x : y;
      break;
    case Op::kMaxS:
      r = x.i > y.i ? x : y;
      break;
    case Op::kMaxU:
      r = x.u > y.u ? x : y;
      break;
    case Op::kMaxF32:
      r = x.f > y.f ? x : y;
      break;
    case Op::kMaxF64:
      r = x.d > y.d ? x : y;
      break;
    case Op::kPowF32:
      r.f = powf(x.f, y.f);
      break;
    case Op::kPowF64:
      r.d = pow(x.d, y.d);
      break;
    default:
      throw InternalError("interpreter: bad operation code");
  }
  return r;
}

}  // namespace interp
}  // namespace t2s
