// The C-family code generator that the OpenCL device code, the OpenCL host program and the C++
// emulation share: IR expressions and statements (merged stage on) printed as OpenCL C or C++17
// with Halide's arithmetic, bit for bit as the reference interpreter (libs/exec) computes it.
//
// What differs between backends (how inputs, Func storage, channels and registers are stored
// and accessed) is asked of a CStorage; everything else (types, literals, operators, Halide's
// division and modulo, saturating float-to-int casts, intrinsics, loops, lets, ifs) is here.
//
// Arithmetic, as the interpreter computes it (LANGUAGE.md section 4):
//   - integer division and modulo are Euclidean (halide_div / halide_mod), 0 for a zero
//     divisor: helper functions t2s_div_<t> / t2s_mod_<t>;
//   - integers wrap (two's complement). C++ (kCpp): signed 32- and 64-bit +, -, * and negation
//     go through the unsigned type (t2s_add_i32, ...) since signed overflow is undefined in C++;
//     8- and 16-bit results are cast back to their type. OpenCL (kOpenCl): int and long use
//     the plain operators (the FPGA datapath wraps), narrower types are cast back;
//   - float to integer casts truncate, map NaN to 0 and saturate (t2s_cvt_<to>_<from>);
//   - min / max are `a < b ? a : b` / `a > b ? a : b`; round is round-half-to-even; abs of a
//     signed integer gives the unsigned type;
//   - select is lazy (`c ? a : b`), && and || short-circuit, as in the interpreter.
// Floating-point code must be compiled without contraction (-ffp-contract=off) to agree with
// the interpreter bit for bit.
//
// Vector values (docs/ir.md, "Vector values"; "In the backends" there describes the code):
//   - types: C++ t2s_rt::Vec<T, N> (the runtime's array of lanes); OpenCL the native vector
//     types for 2, 3, 4, 8 and 16 lanes, else a struct of an array (up to 32 lanes); bool lanes
//     are char in OpenCL, 0 or 1;
//   - lane l of an elementwise operation is the scalar operation printed above, on lane l of
//     its operands: a helper function per operation and type (t2s_vdiv_i32x4, ...) builds the
//     result lane by lane. OpenCL uses its native operators instead where they have Halide's
//     semantics (+, -, * on numbers, float /, negation, conversions other than float to
//     integer, float math built-ins on native types);
//   - every operand of a vector operation is evaluated once: helpers take each as an argument.
//     In C++ their order is left to right (a braced list for several operands, an immediately
//     invoked lambda for the indices of a gather); OpenCL leaves it to the compiler, as it
//     does for scalar operands, except in a concat: its parts with effects (reads of one
//     channel) are assigned in order to variables declared before the statement
//     (`(t2s_part_0 = read_channel_intel(ch), t2s_part_1 = read_channel_intel(ch),
//     (float8)(t2s_part_0, t2s_part_1))`);
//   - a select with a scalar condition stays the lazy `c ? a : b`; with a vector condition it
//     is a blend (every operand evaluated);
//   - gathers read element by element through CStorage (OpenCL: vloadN for contiguous global
//     reads; each lane computes its own index, `base + l * stride` for a ramp, so an index that
//     reads a channel or pops a FIFO is refused there, emit-unsupported); scatters are a block
//     that evaluates the indices, then the value, then stores lane 0, lane 1, ... (a later lane
//     wins; OpenCL: vstoreN when contiguous);
//   - tensors (docs/ir-vectors.md) are their flat lanes in C++; in OpenCL a tensor whose rows
//     have a native width is a struct of native rows (float_tensor16x4), its native operations
//     one per row (tensor_elementwise), its gathers and scatters row by row (vloadN / vstoreN
//     where a row is contiguous) when tensor_rows finds every row's indices.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {

enum class CDialect { kOpenCl, kCpp };

// The scalar type's name: OpenCL `char short int long uchar ushort uint ulong float double bool`,
// C++ `int8_t ... uint64_t float double bool`. Throws Diagnostic (rule `emit-type`) at `loc` for
// a type neither has (float16, vectors).
std::string c_type_name(Type type, CDialect dialect, const SourceLoc& loc = {});

// The name of a value's type, scalar or vector: c_type_name for one lane; C++
// `t2s_rt::Vec<float, 4>`; OpenCL `float4` for 2, 3, 4, 8 and 16 lanes, else `float_vec5`, a
// struct that opencl_struct_typedef defines (bool lanes are char: `char4`, `char_vec5`).
// Throws Diagnostic (emit-type) at `loc` for an element type neither has, and in OpenCL for more
// than 32 lanes.
std::string c_value_type_name(Type type, CDialect dialect, const SourceLoc& loc = {});

// OpenCL: whether a vector type of `lanes` lanes has a native OpenCL type (2, 3, 4, 8, 16).
bool opencl_native_lanes(int lanes);
// OpenCL: whether `type` is a flat vector of a native width (a tensor is not, whatever its
// lanes), and whether it is a tensor whose rows (innermost dimension) have a native width: a
// struct of an array of native rows, `typedef struct { float4 data[4]; } float_tensor4x4;`.
bool opencl_native_vector(Type type);
bool opencl_row_tensor(Type type);

// OpenCL: `typedef struct { float data[5]; } float_vec5;` and a newline for a vector type that
// has no native OpenCL type, else "".
std::string opencl_struct_typedef(Type type, const SourceLoc& loc = {});

// `name` as a C identifier that cannot collide with a keyword of C++ or OpenCL C, a built-in of
// either (OpenCL's vector types, vloadN, vstoreN and convert_ included), the struct vector
// types (float_vec5) or the generator's own names (which start with `t2s_`): such names get a
// trailing underscore.
std::string c_identifier(const std::string& name);

// Whether `e` is an integer constant (an IntImm of an integer type, not bool); sets `value`.
bool constant_int(const Expr& e, int64_t* value);

// `{a, b, c}`: a braced list (C++ list-initialization, an OpenCL C initializer).
std::string brace_list(const std::vector<std::string>& items);
std::string brace_list(const std::vector<int64_t>& values);

// How a backend stores what a kernel touches. Index and value arguments are C expressions,
// already printed (each safe to use as a function argument or array subscript). Statement hooks
// return complete C statements, one per line, without indentation.
class CStorage {
 public:
  virtual ~CStorage() = default;
  // A read of ImageParam `input` at `index` (one per dimension, first argument first).
  virtual std::string read_input(const Input& input, const std::vector<std::string>& index) = 0;
  // A Func's storage: a program buffer, or the innermost enclosing realize of the kernel.
  virtual std::string read_func(const std::string& func, const std::vector<std::string>& index,
                                const SourceLoc& loc) = 0;
  virtual std::vector<std::string> write_func(const std::string& func,
                                              const std::vector<std::string>& index,
                                              const std::string& value, const SourceLoc& loc) = 0;
  // A realize statement: the declarations of the Func's local storage, printed before its body
  // (inside a block of its own).
  virtual std::vector<std::string> declare_realize(const Realize& realize, const SourceLoc& loc,
                                                   const std::vector<std::string>& mins,
                                                   const std::vector<std::string>& extents) = 0;
  // Channels: `read_channel(ch, index...)` and `write_channel`.
  virtual std::string read_channel(const Channel& channel, const std::vector<std::string>& index,
                                   const SourceLoc& loc) = 0;
  virtual std::vector<std::string> write_channel(const Channel& channel,
                                                 const std::vector<std::string>& index,
                                                 const std::string& value,
                                                 const SourceLoc& loc) = 0;
  // Registers (docs/ir.md, "The stt stage"): `pe` is the PE index in the order of the IR's
  // arguments (innermost space loop first).
  virtual std::string read_register(const Register& reg, const std::vector<std::string>& pe,
                                    const std::string& slot, const SourceLoc& loc) = 0;
  virtual std::vector<std::string> write_register(const Register& reg,
                                                  const std::vector<std::string>& pe,
                                                  const std::string& slot, const std::string& value,
                                                  const SourceLoc& loc) = 0;
  virtual std::vector<std::string> shift_register(const Register& reg,
                                                  const std::vector<std::string>& pe,
                                                  const SourceLoc& loc) = 0;
  virtual std::vector<std::string> push_fifo(const Register& reg,
                                             const std::vector<std::string>& pe,
                                             const std::string& value, const SourceLoc& loc) = 0;
  virtual std::string pop_fifo(const Register& reg, const std::vector<std::string>& pe,
                               const SourceLoc& loc) = 0;
  // Lines printed before the body of an unrolled loop (OpenCL: `#pragma unroll`).
  virtual std::vector<std::string> before_unrolled_loop() { return {}; }

  // The IR node of the access a hook above is printing: the Call expression of a read, the
  // statement of a write, shift or push; null for the element accesses of gathers and scatters.
  // CCodegen sets it around each such hook call, so that a storage can look up what it knows
  // of that access (the C++ emulation: accesses proved in bounds).
  const void* access = nullptr;

  // Contiguous vector accesses: the `type.lanes` elements whose first index is `first[0] + l`
  // (lane l) and whose other indices are `first[1]`, ... A storage with a better form than
  // element by element access (OpenCL's vloadN / vstoreN for global memory) returns it; an
  // empty result (the default) makes the generator access the elements one by one.
  virtual std::string read_input_contiguous(const Input& input,
                                            const std::vector<std::string>& first, Type type) {
    return "";
  }
  virtual std::string read_func_contiguous(const std::string& func,
                                           const std::vector<std::string>& first, Type type,
                                           const SourceLoc& loc) {
    return "";
  }
  virtual std::vector<std::string> write_func_contiguous(const std::string& func,
                                                         const std::vector<std::string>& first,
                                                         const std::string& value, Type type,
                                                         const SourceLoc& loc) {
    return {};
  }
};

// Prints the expressions and statements of one program. Records which helper functions the
// printed code uses; helper_definitions() gives their definitions, to be placed before the code.
class CCodegen {
 public:
  CCodegen(const Program& program, CDialect dialect, CStorage& storage);

  // A C expression (fully parenthesized where precedence requires).
  std::string expr(const Expr& e);
  // Appends the statements, indented by `indent` levels of 2 spaces, to `out`.
  void stmts(const StmtList& list, int indent, std::string* out);

  // The definitions of every helper function used so far, in a fixed order (`static inline`
  // functions; OpenCL C or C++ per dialect): the scalar helpers, then the vector helpers, which
  // call them.
  std::string helper_definitions() const;

  const Program& program() const { return program_; }
  CDialect dialect() const { return dialect_; }

 private:
  // One printed expression and the precedence of its outermost operator (c_internal.h).
  struct Printed {
    std::string text;
    int precedence;
  };
  Printed print(const Expr& e);
  std::string use(const std::string& helper);
  std::string binary(const Expr& e, int* precedence);
  std::string call(const Expr& e);
  std::string cast(Type to, const Expr& value);
  void stmt(const Stmt& s, int indent, std::string* out);  // tracks loc_, then stmt_at
  void stmt_at(const Stmt& s, int indent, std::string* out);
  void lines(const std::vector<std::string>& text, int indent, std::string* out);

  // Vector values (c_vector.cc).
  Printed vector(const Expr& e);
  std::string lane(const Printed& v, Type type, int l);
  Printed vector_literal(Type type, const std::vector<std::string>& lanes,
                         bool one_per_line = false);
  std::string vector_helper(const std::string& name, Type result, const std::vector<Type>& params,
                            const std::function<std::string(int l)>& lane_text);
  std::string call_helper(const std::string& name, const std::vector<std::string>& args);
  std::string param_lane(Type type, int k, int l);
  bool native_opencl(const Expr& e) const;
  Printed native_elementwise(const Expr& e);
  Printed tensor_elementwise(const Expr& e);
  bool tensor_rows(const std::vector<Expr>& index, Type type, std::vector<std::vector<Expr>>* rows);
  Printed tensor_literal(Type type, const std::vector<std::string>& rows, bool one_per_line);
  Printed elementwise(const Expr& e);
  Printed vector_op(const Expr& e);
  Printed gather(const Expr& e);
  bool contiguous(const std::vector<Expr>& index, std::vector<std::string>* first);
  void scatter(const Provide& provide, const SourceLoc& loc, int indent, std::string* out);

  const Program& program_;
  CDialect dialect_;
  CStorage& storage_;
  std::set<std::string> used_helpers_;
  std::map<std::string, std::string> vector_helpers_;  // name -> definition
  // What the placeholder variables `$0`, `$1`, ... print as while a lane of an elementwise
  // operation is printed (lane l of each operand).
  std::vector<std::string> lane_operands_;
  // The location of the innermost statement being printed that has one, for diagnostics.
  SourceLoc loc_;
  // OpenCL: declarations of the variables that a statement's expressions assign in order (the
  // parts with effects of a concat, c_vector.cc), printed before the statement.
  std::vector<std::string> pending_declarations_;
  int sequenced_ = 0;
  // Names declared in each open C block (innermost last): a let whose name is not declared in
  // the current block needs no block of its own.
  std::vector<std::set<std::string>> scopes_;
  // Closed ranges [lo, hi] of the enclosing loop variables and integer lets, where known: a loop
  // whose bounds are computed from them (a gather's count loop `t < i + 1`) keeps a 32-bit
  // counter when its end is known to fit.
  std::map<std::string, std::pair<int64_t, int64_t>> ranges_;
  bool range_of(const Expr& e, int64_t* lo, int64_t* hi) const;
};

}  // namespace t2s
