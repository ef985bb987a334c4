// The performance model (report.h); docs/report.md has the formulas and the sources of the
// device constants.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "libs/backends/report/report.h"
#include "libs/backends/text/text.h"
#include "libs/ir/buffer_banks.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/loop_walk.h"
#include "libs/ir/saturating.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/poly/poly.h"

namespace t2s {

const std::vector<DeviceFamily>& device_families() {
  // Capacities of the largest part of each family, from Intel's product tables: Arria 10 GX
  // 1150 (10AX115): 1,518 variable-precision DSP blocks, 2,713 M20K blocks; Stratix 10 GX 2800
  // (1SG280): 5,760 DSP blocks, 11,721 M20K blocks. Board DDR, the peak of its banks (banks x
  // 8 bytes x transfers a second): Intel PAC with Arria 10 GX, 2 banks of DDR4-2400, 38.4 GB/s;
  // Intel FPGA PAC D5005 (Stratix 10 SX 2800), 4 banks of DDR4-2400, 76.8 GB/s.
  static const std::vector<DeviceFamily> kFamilies = {
      {"arria10", "Arria 10", "Arria 10 GX 1150", 1518, 2713,
       "Intel PAC with Arria 10 GX: 2 x DDR4-2400", 38.4},
      {"stratix10", "Stratix 10", "Stratix 10 GX 2800", 5760, 11721,
       "Intel FPGA PAC D5005: 4 x DDR4-2400", 76.8},
  };
  return kFamilies;
}

const DeviceFamily* find_device_family(const std::string& flag) {
  for (const DeviceFamily& d : device_families())
    if (flag == d.flag) return &d;
  return nullptr;
}

namespace {

// Both families' DSP blocks (Intel Arria 10 Native Floating Point DSP IP Core User Guide and
// Intel Stratix 10 Variable Precision DSP Blocks User Guide): one IEEE single-precision
// multiply-add, multiply or add per block in floating-point mode; in fixed-point mode one
// 27 x 27 multiply or two 18 x 19 multiplies per block, a wider product two blocks; no hard
// double precision (soft logic, not estimated here).
constexpr double kDspPerFloat32Op = 1;
constexpr int kNarrowProductBits = 18;  // two such products per block
constexpr int kBlockProductBits = 27;   // one per block

// M20K (Intel Arria 10 Embedded Memory User Guide, Intel Stratix 10 Embedded Memory User
// Guide): 20,480 bits, as 512 x 40, 1K x 20 or 2K x 10 (depth x width); storage of at most an
// MLAB's 640 bits (32 x 20) is left to logic (registers and MLABs).
struct M20kShape {
  int64_t depth, width;
};
constexpr M20kShape kM20kShapes[] = {{512, 40}, {1024, 20}, {2048, 10}};
constexpr int64_t kMlabBits = 640;

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

// M20K blocks for `count` memories of `depth` words of `width` bits each. A memory of one word
// is flip-flops, however wide (a 32-lane register of depth 1 is 1024 registers, which no RAM
// block can hold more cheaply: it is read and written every cycle as one value).
int64_t m20k_blocks(int64_t count, int64_t depth, int64_t width) {
  if (depth <= 1) return 0;
  if (saturating_mul(depth, width) <= kMlabBits) return 0;
  int64_t best = -1;
  for (const M20kShape& s : kM20kShapes) {
    const int64_t n = saturating_mul(ceil_div(width, s.width), ceil_div(depth, s.depth));
    if (best < 0 || n < best) best = n;
  }
  return saturating_mul(count, best);
}

int64_t type_bits(const Type& t) { return int64_t{t.bits} * t.lanes; }

double dsp_per_product(const Type& t) {
  if (t.is_float()) return kDspPerFloat32Op;
  if (t.bits <= kNarrowProductBits) return 0.5;
  if (t.bits <= kBlockProductBits) return 1;
  return 2 * ceil_div(t.bits, 36);
}

Diagnostic model_error(const std::string& message, const SourceLoc& loc = {}) {
  return Diagnostic(loc, message, "emit-report");
}

// One loop around a statement.
struct Loop {
  const For* loop = nullptr;
  int64_t lo = 0, hi = -1;       // its variable's range over its domain (inclusive)
  Expr bound_min, bound_extent;  // its bounds, index lets replaced by their values
};

// Walks one kernel: the operations, the steps and the useful PE-steps.
class KernelWalk {
 public:
  KernelWalk(const Program& p, const Kernel& k, KernelModel* out)
      : p_(p), out_(out), kernel_loc_(k.loc), place_(k.place) {
    collect_pe_vars(k.body);
    walk(k.body);
  }

  // `counter` counts the steps and the useful PE-steps (its budget is the whole design's).
  void finish(poly::PointCounter& counter) {
    // PEs: the product of the ranges of the unrolled loops.
    out_->pes = 1;
    for (const std::string& v : pe_vars_) {
      // An unrolled loop whose domain is empty (it never runs) makes no PEs of its own.
      auto found = pe_range_.find(v);
      if (found == pe_range_.end()) continue;
      const auto& r = found->second;
      out_->pes = saturating_mul(out_->pes, r.second - r.first + 1);
      out_->pe_loops +=
          (out_->pe_loops.empty() ? "" : " x ") + v + " " + std::to_string(r.second - r.first + 1);
    }
    // Steps: every iteration of an innermost time loop (or the body once).
    std::vector<poly::Image> step_pieces;
    int64_t steps = 0;
    bool counted = true;
    for (const auto& [loop, images] : step_domains_) {
      for (const poly::Image& image : images) {
        const std::optional<int64_t> n = counter.count_union_of_images({image});
        if (!n) counted = false;
        steps = saturating_add(steps, n.value_or(0));
      }
    }
    if (!has_serial_) steps = 1;
    if (!counted)
      throw model_error("kernel " + out_->name + ": its time steps cannot be counted", kernel_loc_);
    out_->steps = steps;
    // Useful PE-steps: per group of steps, the union of the points where a PE works.
    if (out_->why.empty()) {
      int64_t useful = 0;
      for (const auto& [loop, pieces] : work_) {
        const std::optional<int64_t> n = counter.count_union_of_images(pieces);
        if (!n) {
          out_->why = "the useful PE-steps are too far from boxes to count";
          break;
        }
        useful = saturating_add(useful, *n);
      }
      if (out_->why.empty()) out_->useful_pe_steps = useful;
    }
    // Global memory: each access's points times its bytes.
    if (place_ == Place::kDevice) {
      int64_t bytes = 0;
      for (const auto& [image, size] : global_accesses_) {
        const std::optional<int64_t> n = counter.count_union_of_images({image});
        if (!n) {
          bytes = -1;
          break;
        }
        bytes = saturating_add(bytes, saturating_mul(*n, size));
      }
      if (bytes >= 0) out_->global_bytes = bytes;
    }
  }

 private:
  void collect_pe_vars(const StmtList& list) {
    for_each_loop(list, [&](const For& f, const Stmt&) {
      if (f.loop_kind == LoopKind::kUnrolled) {
        if (std::find(pe_vars_.begin(), pe_vars_.end(), f.var) == pe_vars_.end()) {
          pe_vars_.push_back(f.var);
          pe_low_[f.var] = f.min->kind == ExprKind::kIntImm ? f.min->int_value : 0;
        } else if (f.min->kind == ExprKind::kIntImm) {
          pe_low_[f.var] = std::min(pe_low_[f.var], f.min->int_value);
        }
      }
      if (f.loop_kind == LoopKind::kSerial) has_serial_ = true;
    });
  }

  // The points of the current statement: its loops' ranges and its conditions.
  poly::Set domain() const {
    poly::Set set;
    for (const Loop& l : loops_) set.add_dim(l.loop->var);
    for (const Loop& l : loops_) {
      const std::optional<poly::Aff> lo = poly::Aff::from_expr(l.bound_min, dims_);
      const std::optional<poly::Aff> n = poly::Aff::from_expr(l.bound_extent, dims_);
      if (!lo || !n) continue;  // unbounded: the count says so
      set.where(poly::Cond::range(*lo, poly::Aff::dim(l.loop->var), *lo + *n));
    }
    for (const poly::Cond& c : conds_) set.where(c);
    return set;
  }

  int64_t multiplicity() const {
    int64_t m = 1;
    for (const Loop& l : loops_)
      if (l.loop->loop_kind != LoopKind::kSerial) m = saturating_mul(m, l.hi - l.lo + 1);
    return m;
  }

  // The innermost serial loop around the current statement, or null.
  const For* step_loop() const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (it->loop->loop_kind == LoopKind::kSerial) return it->loop;
    return nullptr;
  }

  // A step: the values of the loops up to and including the innermost serial loop (lanes
  // excepted); then the PE: every unrolled loop of the kernel (where the statement is outside
  // one, the loop's lowest constant min, as the emulation's --profile numbers PEs).
  std::vector<poly::Aff> step_and_pe() const {
    std::vector<poly::Aff> out;
    const For* step = step_loop();
    for (const Loop& l : loops_) {
      if (!step) break;
      if (l.loop->loop_kind != LoopKind::kVectorized) out.push_back(poly::Aff::dim(l.loop->var));
      if (l.loop == step) break;
    }
    for (const std::string& v : pe_vars_) {
      bool in_scope = false;
      for (const Loop& l : loops_) in_scope = in_scope || l.loop->var == v;
      out.push_back(in_scope ? poly::Aff::dim(v) : poly::Aff(pe_low_.at(v)));
    }
    return out;
  }

  // An access of global memory (an input, or a Func no register or realize of the kernel
  // holds: the output, a buffer the host writes) by the current statement: `type`'s bytes at
  // each point of its domain, every loop around it included (PEs and lanes too).
  void global_access(const Type& type) {
    if (place_ != Place::kDevice) return;
    std::vector<poly::Aff> all;
    for (const Loop& l : loops_) all.push_back(poly::Aff::dim(l.loop->var));
    const int64_t bytes = saturating_mul(int64_t{(type.bits + 7) / 8}, type.lanes);
    global_accesses_.push_back({{domain(), all}, bytes});
  }

  void work() {
    const For* step = step_loop();
    if (has_serial_ && !step) {
      out_->why = "work outside the time loops";
      return;
    }
    if (step && contains_serial_loop(step->body)) {
      out_->why = "work between time loops";
      return;
    }
    work_[step].push_back({domain(), step_and_pe()});
  }

  void walk(const StmtList& list) {
    for (const StmtPtr& sp : list) {
      const Stmt& s = *sp;
      match_stmt(
          s,
          [&](const For& f) {
            Loop l;
            l.loop = &f;
            l.bound_min = substitute(f.min);
            l.bound_extent = substitute(f.extent);
            poly::Set set = domain();
            set.add_dim(f.var);
            const std::optional<poly::Aff> lo = poly::Aff::from_expr(substitute(f.min), dims_);
            const std::optional<poly::Aff> n = poly::Aff::from_expr(substitute(f.extent), dims_);
            if (!lo || !n)
              throw model_error("a loop whose bounds are not affine in the loops around it", s.loc);
            set.where(poly::Cond::range(*lo, poly::Aff::dim(f.var), *lo + *n));
            const auto ranges = poly::value_ranges(set, {poly::Aff::dim(f.var)});
            if (!ranges) return;  // never runs: the next statement
            if (!(*ranges)[0]) throw model_error("an unbounded loop", s.loc);
            l.lo = (*ranges)[0]->min;
            l.hi = (*ranges)[0]->max;
            if (f.loop_kind == LoopKind::kUnrolled) {
              auto [it, fresh] = pe_range_.emplace(f.var, std::make_pair(l.lo, l.hi));
              if (!fresh) {
                it->second.first = std::min(it->second.first, l.lo);
                it->second.second = std::max(it->second.second, l.hi);
              }
            }
            if (f.loop_kind == LoopKind::kVectorized)
              vector_lanes_ = std::max(vector_lanes_,
                                       saturating_mul(multiplicity_of_vectors(), l.hi - l.lo + 1));
            loops_.push_back(l);
            dims_[f.var] = f.var;
            if (f.loop_kind == LoopKind::kSerial && !contains_serial_loop(f.body)) {
              // An innermost time loop: each of its iterations is a step.
              std::vector<poly::Aff> keys;
              for (const Loop& o : loops_)
                if (o.loop->loop_kind != LoopKind::kVectorized)
                  keys.push_back(poly::Aff::dim(o.loop->var));
              step_domains_[&f].push_back({domain(), keys});
              describe_steps();
            }
            walk(f.body);
            loops_.pop_back();
            dims_.erase(f.var);
          },
          [&](const LetStmt& let) {
            count_value(let.value);
            // An index (CheckTime's recovered loop variables): conditions see its value.
            const Expr index = substitute(let.value);
            const bool affine =
                !is_data(let.value) && poly::Aff::from_expr(index, dims_).has_value();
            if (affine) index_lets_[let.var] = index;
            if (has_channel_read(let.value)) work();
            const bool data = is_data(let.value);
            if (data) data_lets_.insert(let.var);
            if (data && is_product(let.value)) product_lets_.insert(let.var);
            walk(let.body);
            if (affine) index_lets_.erase(let.var);
            data_lets_.erase(let.var);
            product_lets_.erase(let.var);
          },
          [&](const IfThenElse& branch) {
            if (has_channel_read(branch.condition)) work();
            const std::optional<poly::Cond> c =
                poly::Cond::from_expr(substitute(branch.condition), dims_);
            if (!c) out_->useful_is_upper_bound = true;
            const size_t n = conds_.size();
            if (c) conds_.push_back(*c);
            walk(branch.then_body);
            conds_.erase(conds_.begin() + n, conds_.end());
            if (c) conds_.push_back(!*c);
            walk(branch.else_body);
            conds_.erase(conds_.begin() + n, conds_.end());
          },
          [&](const Provide& pr) {
            count_value(pr.value);
            if (!p_.find_register(pr.func)) {
              out_->ops.stores = saturating_add(out_->ops.stores, multiplicity());
              if (!realized_.count(pr.func)) global_access(pr.value->type);
            }
            work();
          },
          [&](const Alloc&) {},
          [&](const WriteChannel& w) {
            count_value(w.value);
            out_->ops.channel_writes = saturating_add(out_->ops.channel_writes, multiplicity());
            work();
          },
          [&](const Realize& r) {
            int64_t elements = 1;
            for (const Expr& e : r.extents) {
              if (e->kind != ExprKind::kIntImm)
                throw model_error("a realize whose extents are not constants", s.loc);
              elements = saturating_mul(elements, std::max<int64_t>(e->int_value, 0));
            }
            // A double buffer the OpenCL lays out in banks holds their padding too.
            if (r.double_buffer)
              if (const BufferBanks banks = buffer_banks(r); banks.banked)
                elements = banks.elements();
            out_->local_bits = saturating_add(
                out_->local_bits,
                saturating_mul(saturating_mul(multiplicity(), elements), type_bits(r.type)));
            out_->m20k_blocks = saturating_add(
                out_->m20k_blocks, m20k_blocks(multiplicity(), elements, type_bits(r.type)));
            if (r.double_buffer) out_->double_buffers.push_back(*r.double_buffer);
            const bool fresh = realized_.insert(r.func).second;
            walk(r.body);
            if (fresh) realized_.erase(r.func);
          },
          [&](const Shift&) {},
          [&](const Push& push) {
            count_value(push.value);
            work();
          });
      // Shifts and allocs move or hold values: no work of their own.
    }
  }

  int64_t multiplicity_of_vectors() const {
    int64_t m = 1;
    for (const Loop& l : loops_)
      if (l.loop->loop_kind == LoopKind::kVectorized) m = saturating_mul(m, l.hi - l.lo + 1);
    return m;
  }

  void describe_steps() {
    std::string text;
    for (const Loop& l : loops_) {
      if (l.loop->loop_kind == LoopKind::kVectorized) continue;
      text += (text.empty() ? "" : " x ") + l.loop->var + " " +
              (l.loop->min->kind == ExprKind::kIntImm && l.loop->extent->kind == ExprKind::kIntImm
                   ? std::to_string(l.loop->extent->int_value)
                   : print_range(l.loop->min, l.loop->extent));
    }
    if (out_->step_loops.find(text) == std::string::npos)
      out_->step_loops += (out_->step_loops.empty() ? "" : "; ") + text;
  }

  // `e` with the index lets in scope replaced by their values.
  Expr substitute(const Expr& e) const {
    if (e->kind == ExprKind::kVar) {
      auto it = index_lets_.find(e->name);
      return it == index_lets_.end() ? e : it->second;
    }
    if (e->operands.empty()) return e;
    auto copy = std::make_shared<ExprNode>(*e);
    for (Expr& o : copy->operands) o = substitute(o);
    return copy;
  }

  static bool has_channel_read(const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      found = found || (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel);
    });
    return found;
  }

  // Whether `e` computes on data (values read from memory, registers or channels, or floats)
  // rather than on loop variables (index arithmetic, which is not counted).
  bool is_data(const Expr& e) const {
    bool data = false;
    for_each_expr(e, [&](const Expr& x) {
      if (x->type.is_float()) data = true;
      if (x->kind == ExprKind::kVar && data_lets_.count(x->name)) data = true;
      if (x->kind == ExprKind::kCall && x->call_kind != CallKind::kIntrinsic) data = true;
    });
    return data;
  }

  // Whether `e` is a product of data, seen through lets, slices and casts.
  bool is_product(const Expr& e) const {
    switch (e->kind) {
      case ExprKind::kBinary:
        return e->binary_op == BinaryOp::kMul && is_data(e);
      case ExprKind::kVar:
        return product_lets_.count(e->name) > 0;
      case ExprKind::kCast:
        return is_product(e->operands[0]);
      case ExprKind::kCall:
        return e->call_kind == CallKind::kIntrinsic && e->name == "slice" &&
               is_product(e->operands[0]);
      default:
        return false;
    }
  }

  void count_value(const Expr& e) { count(e, multiplicity()); }

  void count(const Expr& e, int64_t mult) {
    OpCounts& ops = out_->ops;
    const int64_t lanes = e->type.lanes;
    switch (e->kind) {
      case ExprKind::kCall:
        if (e->call_kind == CallKind::kImage || e->call_kind == CallKind::kFunc) {
          ops.loads = saturating_add(ops.loads, mult);
          if (e->call_kind == CallKind::kImage || !realized_.count(e->name)) global_access(e->type);
        }
        if (e->call_kind == CallKind::kChannel)
          ops.channel_reads = saturating_add(ops.channel_reads, mult);
        if (e->call_kind == CallKind::kIntrinsic)
          for (const Expr& o : e->operands) count(o, mult);
        return;  // arguments of other calls are indices
      case ExprKind::kSelect: {
        // The operations of both operands are circuit; a memory access happens only where its
        // operand is chosen (an affine condition narrows the access's points).
        const std::optional<poly::Cond> c =
            poly::Cond::from_expr(substitute(e->operands[0]), dims_);
        for (size_t i = 1; i < e->operands.size(); ++i) {
          const size_t n = conds_.size();
          if (c) conds_.push_back(i == 1 ? *c : !*c);
          count(e->operands[i], mult);
          conds_.erase(conds_.begin() + n, conds_.end());
        }
        return;
      }
      case ExprKind::kBinary: {
        const bool add = e->binary_op == BinaryOp::kAdd || e->binary_op == BinaryOp::kSub;
        const bool mul = e->binary_op == BinaryOp::kMul;
        if ((add || mul) && is_data(e)) {
          note_type(e->type);
          if (mul) {
            ops.muls = saturating_add(ops.muls, saturating_mul(mult, lanes));
            out_->dsp_blocks += static_cast<double>(mult) * lanes * dsp_per_product(e->type);
          } else if (is_product(e->operands[0]) || is_product(e->operands[1])) {
            // The product's block adds.
            ops.multiply_adds = saturating_add(ops.multiply_adds, saturating_mul(mult, lanes));
          } else {
            ops.adds = saturating_add(ops.adds, saturating_mul(mult, lanes));
            if (e->type.is_float())
              out_->dsp_blocks += static_cast<double>(mult) * lanes * kDspPerFloat32Op;
          }
        }
        break;
      }
      default:
        break;
    }
    for (const Expr& o : e->operands) count(o, mult);
  }

  void note_type(const Type& t) {
    if (!t.is_float()) all_float_ = false;
    if (t.is_float() && t.bits > 32)
      out_->dsp_note = "float64 arithmetic is soft logic: not counted";
    any_arith_ = true;
  }

 public:
  bool float_arithmetic() const { return any_arith_ && all_float_; }
  int64_t vector_lanes() const { return vector_lanes_; }

 private:
  const Program& p_;
  KernelModel* out_;
  std::vector<std::string> pe_vars_;
  std::map<std::string, std::pair<int64_t, int64_t>> pe_range_;
  SourceLoc kernel_loc_;
  Place place_;
  std::set<std::string> realized_;  // the Funcs realized around the current statement
  std::vector<std::pair<poly::Image, int64_t>> global_accesses_;  // with each point's bytes
  std::map<std::string, int64_t> pe_low_;
  bool has_serial_ = false;
  std::vector<Loop> loops_;
  poly::VarDims dims_;
  std::vector<poly::Cond> conds_;
  std::set<std::string> data_lets_, product_lets_;
  std::map<std::string, Expr> index_lets_;
  std::map<const For*, std::vector<poly::Image>> step_domains_;
  std::map<const For*, std::vector<poly::Image>> work_;
  int64_t vector_lanes_ = 1;
  bool all_float_ = true, any_arith_ = false;
};

KernelModel model_kernel(const Program& p, const Kernel& k, poly::PointCounter& counter) {
  KernelModel m;
  m.name = k.name;
  m.place = k.place;
  KernelWalk walk(p, k, &m);
  walk.finish(counter);
  // Products not fused into a multiply-add.
  m.ops.muls = std::max<int64_t>(0, m.ops.muls - m.ops.multiply_adds);
  m.float_arithmetic = walk.float_arithmetic();
  m.lanes = walk.vector_lanes();
  for (int l : kernel_lanes(k)) m.lanes = std::max<int64_t>(m.lanes, l);
  for (const Register& r : p.registers) {
    if (r.kernel != k.name) continue;
    int64_t pes = 1;
    for (int64_t e : r.shape) pes = saturating_mul(pes, e);
    m.register_bits = saturating_add(
        m.register_bits, saturating_mul(saturating_mul(pes, r.depth), type_bits(r.type)));
    m.m20k_blocks = saturating_add(m.m20k_blocks, m20k_blocks(pes, r.depth, type_bits(r.type)));
  }
  for (const Channel& c : p.channels) {
    if (c.producer != k.name) continue;
    int64_t count = 1;
    for (int64_t d : c.dims) count = saturating_mul(count, d);
    const int64_t depth = std::max<int64_t>(c.depth, 1);
    m.channel_bits = saturating_add(
        m.channel_bits, saturating_mul(saturating_mul(count, depth), type_bits(c.type)));
    m.m20k_blocks = saturating_add(m.m20k_blocks, m20k_blocks(count, depth, type_bits(c.type)));
  }
  // Counts saturate at INT64_MAX (saturating.h) rather than wrap: sizes that large (hand-edited
  // IR: a channel's depth, a register's, a loop's extent) are refused, not reported.
  for (int64_t count :
       {m.pes, m.lanes, m.steps, m.useful_pe_steps.value_or(0), m.register_bits, m.channel_bits,
        m.local_bits, m.m20k_blocks, m.ops.arithmetic(), m.ops.loads, m.ops.stores,
        m.ops.channel_reads, m.ops.channel_writes, m.global_bytes.value_or(0)})
    if (count == INT64_MAX)
      throw model_error("kernel " + k.name +
                            ": its sizes exceed what the model counts (2^63 - 1 PEs, steps, "
                            "operations or bits)",
                        k.loc);
  return m;
}

}  // namespace

DesignModel model_design(const Program& program, const ReportOptions& options) {
  require_kernel_stage(program, "the report target");
  require_device_kernel(program, "the report target (a model of the device)");
  const DeviceFamily* device = find_device_family(options.device);
  if (!device) throw model_error("unknown device family '" + options.device + "'");
  DesignModel d;
  d.stage = stage_name(program.stage);
  d.device = *device;
  d.fmax_mhz = options.fmax_mhz;
  // Splits of sets far from boxes, for all the kernels' counts together: every testdata design
  // needs under 2,000; at 20,000 a count of a 2^31-step loop (hand-edited IR) gives up in about
  // a second (fuzzing builds; much less in -c opt), and the design's counts in all stay bounded.
  poly::PointCounter counter(20000);
  for (const Kernel& k : program.kernels) d.kernels.push_back(model_kernel(program, k, counter));
  for (size_t i = 0; i < d.kernels.size(); ++i)
    if (d.kernels[i].place == Place::kDevice) d.design.push_back(i);
  if (d.design.empty())
    for (size_t i = 0; i < d.kernels.size(); ++i) d.design.push_back(i);
  bool exact = true;
  for (size_t i : d.design) {
    const KernelModel& k = d.kernels[i];
    d.multiply_adds_per_cycle = saturating_add(d.multiply_adds_per_cycle, k.ops.multiply_adds);
    d.dsp_blocks += k.dsp_blocks;
    d.m20k_blocks = saturating_add(d.m20k_blocks, k.m20k_blocks);
    if (!d.bottleneck || k.steps > d.kernels[*d.bottleneck].steps) d.bottleneck = i;
    if (k.ops.arithmetic() > 0 &&
        (!d.compute || k.ops.arithmetic() > d.kernels[*d.compute].ops.arithmetic()))
      d.compute = i;
    exact = exact && k.useful_pe_steps.has_value();
  }
  if (d.multiply_adds_per_cycle == INT64_MAX || d.m20k_blocks == INT64_MAX)
    throw model_error(
        "the design's sizes exceed what the model counts (2^63 - 1 operations or "
        "blocks)");
  if (d.bottleneck) d.cycles = d.kernels[*d.bottleneck].steps;
  d.kernel_cycles = d.cycles;
  // Global memory: the design's bytes at the board's bytes a cycle (fmax); more cycles than
  // the kernels' makes the memory the bottleneck.
  d.memory_bytes_per_cycle = device->memory_gb_per_s * 1e9 / (options.fmax_mhz * 1e6);
  int64_t bytes = 0;
  bool bytes_counted = true;
  for (size_t i : d.design) {
    const KernelModel& k = d.kernels[i];
    if (k.place != Place::kDevice) continue;
    if (!k.global_bytes) bytes_counted = false;
    bytes = saturating_add(bytes, k.global_bytes.value_or(0));
  }
  if (bytes_counted && bytes < INT64_MAX) {
    d.global_bytes = bytes;
    d.memory_cycles =
        static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / d.memory_bytes_per_cycle));
    if (d.memory_cycles > d.cycles) {
      d.memory_bound = true;
      d.cycles = d.memory_cycles;
    }
  }
  if (d.compute && d.cycles > 0) {
    const KernelModel& c = d.kernels[*d.compute];
    if (c.useful_pe_steps)
      d.utilisation =
          static_cast<double>(*c.useful_pe_steps) / (static_cast<double>(c.pes) * d.cycles);
  }
  if (exact && d.cycles > 0) {
    // Each useful PE-step runs one PE's share of the kernel's arithmetic per step.
    double ops = 0;
    for (size_t i : d.design) {
      const KernelModel& k = d.kernels[i];
      ops += static_cast<double>(*k.useful_pe_steps) * k.ops.arithmetic() / k.pes;
    }
    d.operations = ops;
    d.ops_per_second = ops / d.cycles * options.fmax_mhz * 1e6;
  }
  return d;
}

}  // namespace t2s
