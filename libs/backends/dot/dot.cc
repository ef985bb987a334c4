#include "libs/backends/dot/dot.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "libs/backends/text/text.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

// At most this many PE nodes per kernel, and at most kMaxColumns of them in one row once the
// array is cut.
constexpr int64_t kMaxPes = 256;
constexpr int64_t kMaxColumns = 16;
// Loops per line in a cluster label.
constexpr size_t kLoopsPerLine = 4;

const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

// The text of a DOT double-quoted string.
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      // dropped: labels are one line each
    } else {
      out += c;
    }
  }
  return out;
}

std::string quote(const std::string& s) { return "\"" + escape(s) + "\""; }

// A label of several centred lines.
std::string label(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\\n";
    out += escape(lines[i]);
  }
  return out + "\"";
}

std::string type_name(const Type& t) { return t.known() ? t.name() : std::string("unknown"); }

std::string expr_text(const Expr& e) { return e ? print_expr(e) : std::string("?"); }

std::string range_text(const Expr& min, const Expr& extent) {
  if (min && extent) return print_range(min, extent);
  return "[" + expr_text(min) + ", ?)";
}

// Saturating arithmetic on sizes read from a document.
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t p;
  if (__builtin_mul_overflow(a, b, &p)) return INT64_MAX;
  return p;
}

struct Loop {
  std::string var;
  Expr min, extent;
  LoopKind kind;
};

// Every loop of a statement tree, outermost first (pre-order).
class LoopCollector : public StmtVisitor {
 public:
  explicit LoopCollector(std::vector<Loop>* out) : out_(out) {}

 protected:
  void visit_for(const For& loop, const Stmt&) override {
    out_->push_back({loop.var, loop.min, loop.extent, loop.loop_kind});
    visit_stmts(loop.body);
  }

 private:
  std::vector<Loop>* out_;
};

void collect_loops(const StmtList& list, std::vector<Loop>* out) {
  LoopCollector(out).visit_stmts(list);
}

// Names written by a `provide` anywhere in a statement tree.
class ProvideCollector : public StmtVisitor {
 public:
  explicit ProvideCollector(std::set<std::string>* out) : out_(out) {}

 protected:
  void visit_provide(const Provide& provide, const Stmt&) override { out_->insert(provide.func); }

 private:
  std::set<std::string>* out_;
};

void collect_provides(const StmtList& list, std::set<std::string>* out) {
  ProvideCollector(out).visit_stmts(list);
}

// The PE array of a kernel as drawn.
struct Grid {
  bool present = false;              // the kernel has a PE array
  bool symbolic = false;             // extents not known: one node
  std::vector<std::string> extents;  // symbolic: the extents, innermost first
  std::vector<int64_t> shape;        // innermost first
  int64_t cols = 0, rows = 0, total = 0;
  bool total_saturated = false;
  int64_t cols_drawn = 0, rows_drawn = 0;

  int64_t drawn() const { return cols_drawn * rows_drawn; }
  bool cut() const { return drawn() < total || total_saturated; }
};

struct KernelView {
  const Kernel* kernel = nullptr;
  std::vector<Loop> loops;
  std::vector<std::string> space_vars;  // unrolled loops, innermost first
  std::vector<Expr> space_extents;      // innermost first
  std::vector<const Register*> registers;
  Grid grid;
  std::string cluster;
  std::string in_anchor, out_anchor;  // nodes that edges into / out of the cluster attach to
};

class DotPrinter {
 public:
  explicit DotPrinter(const Program& p) : p_(p) {}

  std::string run() {
    build_views();
    out_ << "// t2s design, stage " << stage_name(p_.stage) << ": render with dot -Tsvg\n";
    out_ << "digraph \"t2s\" {\n";
    std::vector<std::string> title = {std::string("t2s design (stage ") + stage_name(p_.stage) +
                                      ")"};
    if (!p_.output.func.empty()) title.push_back("output " + p_.output.func);
    out_ << "  graph [compound=true, labelloc=t, fontsize=14, nodesep=0.35, ranksep=0.5, label="
         << label(title) << "];\n";
    out_ << "  node [fontsize=10];\n";
    out_ << "  edge [fontsize=9];\n";
    inputs();
    for (const KernelView& kv : views_) kernel(kv);
    missing_kernels();
    buffers();
    register_edges();
    channel_edges();
    data_edges();
    out_ << "}\n";
    return out_.str();
  }

 private:
  // ---- analysis ----

  void build_views() {
    for (const Kernel& k : p_.kernels) {
      KernelView kv;
      kv.kernel = &k;
      kv.cluster = "cluster_" + k.name;
      collect_loops(k.body, &kv.loops);
      std::set<std::string> seen;
      for (auto it = kv.loops.rbegin(); it != kv.loops.rend(); ++it) {
        if (it->kind != LoopKind::kUnrolled || !seen.insert(it->var).second) continue;
        kv.space_vars.push_back(it->var);
        kv.space_extents.push_back(it->extent);
      }
      for (const Register& r : p_.registers)
        if (r.kernel == k.name) kv.registers.push_back(&r);
      kv.grid = make_grid(kv);
      if (!kv.grid.present) {
        kv.in_anchor = kv.out_anchor = "kernel." + k.name;
      } else if (kv.grid.symbolic) {
        kv.in_anchor = kv.out_anchor = k.name + "_pe_array";
      } else {
        kv.in_anchor = pe_name(k.name, coords(kv.grid, 0, 0));
        kv.out_anchor =
            kv.grid.cut()
                ? k.name + "_pe_more"
                : pe_name(k.name, coords(kv.grid, kv.grid.rows_drawn - 1, kv.grid.cols_drawn - 1));
      }
      views_.push_back(std::move(kv));
    }
  }

  static Grid make_grid(const KernelView& kv) {
    Grid g;
    for (const Register* r : kv.registers) {
      if (!r->shape.empty()) {
        g.shape = r->shape;
        break;
      }
    }
    if (g.shape.empty()) {
      if (kv.space_vars.empty()) return g;  // no PE array
      bool constant = true;
      for (const Expr& e : kv.space_extents) {
        if (e && e->kind == ExprKind::kIntImm && e->int_value > 0) {
          g.shape.push_back(e->int_value);
        } else {
          constant = false;
        }
      }
      if (!constant) {
        g.present = g.symbolic = true;
        g.shape.clear();
        for (const Expr& e : kv.space_extents) g.extents.push_back(expr_text(e));
        return g;
      }
    }
    g.present = true;
    for (int64_t s : g.shape) {
      if (s <= 0) {
        g.symbolic = true;
        for (int64_t v : g.shape) g.extents.push_back(std::to_string(v));
        g.shape.clear();
        return g;
      }
    }
    g.cols = g.shape[0];
    g.rows = 1;
    for (size_t q = 1; q < g.shape.size(); ++q) g.rows = sat_mul(g.rows, g.shape[q]);
    g.total = sat_mul(g.cols, g.rows);
    g.total_saturated = g.total == INT64_MAX;
    if (g.total <= kMaxPes && !g.total_saturated) {
      g.cols_drawn = g.cols;
      g.rows_drawn = g.rows;
    } else {
      g.cols_drawn = std::min(g.cols, kMaxColumns);
      g.rows_drawn = std::min(g.rows, kMaxPes / g.cols_drawn);
    }
    return g;
  }

  // The PE index (innermost first) of drawn position (row, col).
  static std::vector<int64_t> coords(const Grid& g, int64_t row, int64_t col) {
    std::vector<int64_t> c(g.shape.size());
    c[0] = col;
    for (size_t q = 1; q < g.shape.size(); ++q) {
      c[q] = row % g.shape[q];
      row /= g.shape[q];
    }
    return c;
  }

  // Whether PE `c` (in range) is among the drawn ones.
  static bool drawn(const Grid& g, const std::vector<int64_t>& c) {
    if (c[0] >= g.cols_drawn) return false;
    int64_t row = 0;
    for (size_t q = g.shape.size(); q-- > 1;) {
      row = sat_mul(row, g.shape[q]);
      if (__builtin_add_overflow(row, c[q], &row) || row >= g.rows_drawn) return false;
    }
    return row < g.rows_drawn;
  }

  static std::string pe_name(const std::string& kernel, const std::vector<int64_t>& c) {
    std::string s = kernel + "_pe";
    for (int64_t v : c) s += "_" + std::to_string(v);
    return s;
  }

  static std::string pe_label(const std::vector<int64_t>& c) {
    std::string s = "PE(";
    for (size_t q = 0; q < c.size(); ++q) {
      if (q) s += ", ";
      s += std::to_string(c[q]);
    }
    return s + ")";
  }

  // The space part of `r`'s distance, innermost space loop first, as t2s-stt recorded it; none
  // for a register that does not span the kernel's PE array (an empty shape).
  static std::optional<std::vector<int64_t>> space_offset(const KernelView& kv, const Register& r) {
    if (r.pe_offset.size() != kv.grid.shape.size()) return std::nullopt;
    return r.pe_offset;
  }

  // ---- output ----

  void inputs() {
    if (p_.inputs.empty()) return;
    out_ << "\n  // inputs\n";
    for (const Input& in : p_.inputs) {
      std::string shape =
          in.extents.empty() ? std::to_string(in.dims) + "-D" : join_ints(in.extents, " x ");
      out_ << "  " << quote("input." + in.name) << " [shape=parallelogram, style=filled, "
           << "fillcolor=\"#fff4d6\", label=" << label({in.name, type_name(in.type) + " " + shape})
           << "];\n";
    }
  }

  std::vector<std::string> loop_lines(const char* title, const KernelView& kv,
                                      const std::vector<LoopKind>& kinds) const {
    std::vector<std::string> parts;
    for (const Loop& l : kv.loops)
      if (std::find(kinds.begin(), kinds.end(), l.kind) != kinds.end())
        parts.push_back(l.var + " in " + range_text(l.min, l.extent));
    std::vector<std::string> lines;
    for (size_t i = 0; i < parts.size(); i += kLoopsPerLine) {
      std::vector<std::string> chunk(parts.begin() + i,
                                     parts.begin() + std::min(parts.size(), i + kLoopsPerLine));
      lines.push_back((i == 0 ? std::string(title) + ": " : std::string("  ")) + join(chunk, ", "));
    }
    return lines;
  }

  void kernel(const KernelView& kv) {
    const Kernel& k = *kv.kernel;
    bool device = k.place == Place::kDevice;
    std::vector<std::string> title = {k.name + (device ? " (device)" : " (host)")};
    auto add = [&](std::vector<std::string> lines) {
      title.insert(title.end(), lines.begin(), lines.end());
    };
    if (kv.grid.present) {
      add(loop_lines("time", kv, {LoopKind::kSerial}));
      add(loop_lines("space", kv, {LoopKind::kUnrolled}));
    } else {
      add(loop_lines("loops", kv, {LoopKind::kSerial, LoopKind::kUnrolled}));
    }
    add(loop_lines("vectorized", kv, {LoopKind::kVectorized}));
    const std::vector<int> lanes = kernel_lanes(k);
    if (!lanes.empty()) {
      std::vector<int64_t> counts(lanes.begin(), lanes.end());
      add({"vector lanes: " + join_ints(counts, ", ")});
    }

    out_ << "\n  // kernel " << k.name << "\n";
    out_ << "  subgraph " << quote(kv.cluster) << " {\n";
    out_ << "    label=" << label(title) << ";\n";
    out_ << "    style=\"rounded,filled\"; color=\"" << (device ? "#4a6fa5" : "#7a7a7a")
         << "\"; fillcolor=\"" << (device ? "#eaf1fb" : "#f2f2f2") << "\";\n";
    out_ << "    node [shape=box, style=\"rounded,filled\", fillcolor=white];\n";
    const Grid& g = kv.grid;
    if (!g.present) {
      out_ << "    " << quote(kv.in_anchor) << " [label=" << label({k.name}) << "];\n";
    } else if (g.symbolic) {
      out_ << "    " << quote(kv.in_anchor)
           << " [label=" << label({"PE array", join(g.extents, " x ") + " PEs"}) << "];\n";
    } else {
      pe_grid(kv);
    }
    out_ << "  }\n";
  }

  void pe_grid(const KernelView& kv) {
    const Grid& g = kv.grid;
    const std::string& name = kv.kernel->name;
    for (int64_t row = 0; row < g.rows_drawn; ++row) {
      out_ << "    { rank=same;";
      for (int64_t col = 0; col < g.cols_drawn; ++col) {
        std::vector<int64_t> c = coords(g, row, col);
        out_ << " " << quote(pe_name(name, c)) << " [label=" << label({pe_label(c)}) << "];";
      }
      out_ << " }\n";
    }
    // Keep the rows in order and the columns aligned.
    for (int64_t row = 0; row < g.rows_drawn; ++row) {
      for (int64_t col = 0; col < g.cols_drawn; ++col) {
        std::string here = quote(pe_name(name, coords(g, row, col)));
        if (col + 1 < g.cols_drawn)
          out_ << "    " << here << " -> " << quote(pe_name(name, coords(g, row, col + 1)))
               << " [style=invis];\n";
        if (row + 1 < g.rows_drawn)
          out_ << "    " << here << " -> " << quote(pe_name(name, coords(g, row + 1, col)))
               << " [style=invis, weight=100];\n";
      }
    }
    if (g.cut()) {
      std::vector<std::string> shape;
      for (int64_t s : g.shape) shape.push_back(std::to_string(s));
      std::string omitted = g.total_saturated
                                ? std::string("more than ") + std::to_string(INT64_MAX - g.drawn())
                                : std::to_string(g.total - g.drawn());
      std::string all = join(shape, " x ") + " = " +
                        (g.total_saturated ? std::string("more than ") + std::to_string(INT64_MAX)
                                           : std::to_string(g.total)) +
                        " PEs";
      out_ << "    " << quote(kv.out_anchor) << " [shape=note, style=filled, fillcolor=white, "
           << "label="
           << label({"... " + omitted + " more PEs not drawn",
                     "PE array " + all + "; drawn: " + std::to_string(g.rows_drawn) + " x " +
                         std::to_string(g.cols_drawn)})
           << "];\n";
      out_ << "    " << quote(pe_name(name, coords(g, g.rows_drawn - 1, 0))) << " -> "
           << quote(kv.out_anchor) << " [style=invis];\n";
    }
  }

  const KernelView* view(const std::string& kernel) const {
    for (const KernelView& kv : views_)
      if (kv.kernel->name == kernel) return &kv;
    return nullptr;
  }

  // Kernels named by channels or registers that the program does not have.
  void missing_kernels() {
    std::set<std::string> missing;
    for (const Channel& c : p_.channels) {
      if (!view(c.producer)) missing.insert(c.producer);
      if (!view(c.consumer)) missing.insert(c.consumer);
    }
    for (const Register& r : p_.registers)
      if (!view(r.kernel)) missing.insert(r.kernel);
    if (missing.empty()) return;
    out_ << "\n  // kernels named in channels or registers but not defined\n";
    for (const std::string& m : missing)
      out_ << "  " << quote("kernel." + m)
           << " [shape=box, style=dashed, label=" << label({m, "(no such kernel)"}) << "];\n";
  }

  void buffers() {
    if (p_.buffers.empty()) return;
    out_ << "\n  // buffers\n";
    for (const Buffer& b : p_.buffers) {
      std::vector<std::string> dims;
      for (size_t i = 0; i < b.mins.size() || i < b.extents.size(); ++i)
        dims.push_back(range_text(i < b.mins.size() ? b.mins[i] : nullptr,
                                  i < b.extents.size() ? b.extents[i] : nullptr));
      std::string head = b.name + (b.name == p_.output.func ? " (output)" : "");
      out_ << "  " << quote("buffer." + b.name) << " [shape=cylinder, style=filled, "
           << "fillcolor=\"#e3f4e1\", label="
           << label({head, type_name(b.type) + (dims.empty() ? "" : " " + join(dims, " x "))})
           << "];\n";
    }
  }

  // ", float32x16" for a value of vector type (each slot, channel element holds one).
  static std::string vector_type_suffix(Type t) {
    return t.known() && t.lanes > 1 ? ", " + t.name() : "";
  }

  static std::string register_label(const Register& r) {
    if (r.kind == Register::kFifo)
      return r.name + " fifo depth " + std::to_string(r.depth) + vector_type_suffix(r.type);
    return r.name + " shift x" + std::to_string(r.depth) + vector_type_suffix(r.type);
  }

  // Self-loops of one node: all the registers that stay on it, one edge with one line each
  // (several loops on one node would draw their labels on top of each other).
  struct SelfLoops {
    std::vector<std::string> order;
    std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> loops;

    void add(const std::string& node, const std::string& line, const std::string& color) {
      auto it = loops.find(node);
      if (it == loops.end()) {
        order.push_back(node);
        it = loops
                 .emplace(node,
                          std::make_pair(std::vector<std::string>(), std::vector<std::string>()))
                 .first;
      }
      it->second.first.push_back(line);
      it->second.second.push_back(color);
    }
  };

  void register_edges() {
    if (p_.registers.empty()) return;
    out_ << "\n  // registers: an edge from the PE that writes a value to the PE that reads it\n";
    SelfLoops self;
    for (size_t ri = 0; ri < p_.registers.size(); ++ri) {
      const Register& r = p_.registers[ri];
      std::string color = kPalette[ri % (sizeof(kPalette) / sizeof(kPalette[0]))];
      std::string attrs = "color=\"" + color + "\", fontcolor=\"" + color + "\"";
      const KernelView* kv = view(r.kernel);
      if (!kv || !kv->grid.present || kv->grid.symbolic) {
        // One node stands for the whole kernel or array.
        self.add(kv ? kv->in_anchor : "kernel." + r.kernel, register_label(r), color);
        continue;
      }
      const Grid& g = kv->grid;
      std::optional<std::vector<int64_t>> d = space_offset(*kv, r);
      if (!d) {
        self.add(kv->in_anchor, register_label(r) + " (PE offset unknown)", color);
        continue;
      }
      bool zero = true;
      for (int64_t v : *d) zero = zero && v == 0;
      // The invisible edges of the grid alone place the PEs. An edge within one row (a
      // `rank=same` subgraph) is a flat edge: it would reorder the row (constraint=false keeps
      // it out), and dot's router fails on labelled flat edges in both directions next to each
      // other ("lost edge"), so it carries an external label (xlabel), placed after the layout.
      // Other edges get weight 0 so that they do not pull the columns askew.
      bool flat = (*d)[0] != 0;
      for (size_t q = 1; q < d->size(); ++q) flat = flat && (*d)[q] == 0;
      for (int64_t row = 0; row < g.rows_drawn; ++row) {
        for (int64_t col = 0; col < g.cols_drawn; ++col) {
          std::vector<int64_t> from = coords(g, row, col);
          if (zero) {
            self.add(pe_name(kv->kernel->name, from), register_label(r), color);
            continue;
          }
          std::vector<int64_t> to = from;
          bool inside = true;
          for (size_t q = 0; q < to.size() && inside; ++q)
            inside = !__builtin_add_overflow(from[q], (*d)[q], &to[q]) && to[q] >= 0 &&
                     to[q] < g.shape[q];
          if (!inside || !drawn(g, to)) continue;
          out_ << "  " << quote(pe_name(kv->kernel->name, from)) << " -> "
               << quote(pe_name(kv->kernel->name, to)) << " [" << (flat ? "xlabel=" : "label=")
               << label({register_label(r)}) << ", " << attrs
               << (flat ? ", constraint=false" : ", weight=0") << "];\n";
        }
      }
    }
    for (const std::string& node : self.order) {
      const auto& [lines, colors] = self.loops.at(node);
      // A colour list draws one parallel line per register.
      std::string color = join(colors, ":");
      out_ << "  " << quote(node) << " -> " << quote(node) << " [label=" << label(lines)
           << ", color=\"" << color << "\", fontcolor=\""
           << (colors.size() == 1 ? colors[0] : std::string("black")) << "\"];\n";
    }
  }

  std::string anchor_out(const std::string& kernel) const {
    const KernelView* kv = view(kernel);
    return kv ? kv->out_anchor : "kernel." + kernel;
  }
  std::string anchor_in(const std::string& kernel) const {
    const KernelView* kv = view(kernel);
    return kv ? kv->in_anchor : "kernel." + kernel;
  }
  std::string cluster_attr(const char* attr, const std::string& kernel) const {
    const KernelView* kv = view(kernel);
    return kv ? std::string(", ") + attr + "=" + quote(kv->cluster) : std::string();
  }

  // ---- channels between the PEs of one kernel (t2s-gather's FIFOs) ----

  struct Access {
    std::vector<Expr> index;
    std::vector<std::pair<std::string, Expr>> lets;  // around the access, outermost first
  };

  // The first write and the first read of channel `ch` in a statement tree, each with the lets
  // around it.
  class AccessFinder : public StmtVisitor {
   public:
    explicit AccessFinder(const std::string& ch) : ch_(ch) {}
    std::optional<Access> write, read;

    // A read of the channel in the statement's own operands, then the statement's kind.
    void visit_stmt(const Stmt& s) override {
      for (const Expr* e : s.exprs())
        for_each_expr(*e, [&](const Expr& x) {
          if (!read && x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel &&
              !x->operands.empty() && x->operands[0]->name == ch_)
            read = Access{std::vector<Expr>(x->operands.begin() + 1, x->operands.end()), lets_};
        });
      StmtVisitor::visit_stmt(s);
    }

   protected:
    void visit_write_channel(const WriteChannel& w, const Stmt&) override {
      if (w.channel == ch_ && !write) write = Access{w.index, lets_};
    }
    void visit_let(const LetStmt& let, const Stmt&) override {
      lets_.push_back({let.var, let.value});
      visit_stmts(let.body);
      lets_.pop_back();
    }

   private:
    const std::string& ch_;
    std::vector<std::pair<std::string, Expr>> lets_;  // outermost first
  };

  // `e` with integer variables from `env`: + - * of literals and variables only.
  static std::optional<int64_t> eval(const Expr& e, const std::map<std::string, int64_t>& env) {
    if (!e) return std::nullopt;
    if (e->kind == ExprKind::kIntImm) return e->int_value;
    if (e->kind == ExprKind::kVar) {
      auto it = env.find(e->name);
      return it == env.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    if (e->kind != ExprKind::kBinary || e->operands.size() != 2) return std::nullopt;
    std::optional<int64_t> a = eval(e->operands[0], env), b = eval(e->operands[1], env);
    int64_t r;
    if (!a || !b) return std::nullopt;
    if (e->binary_op == BinaryOp::kAdd && !__builtin_add_overflow(*a, *b, &r)) return r;
    if (e->binary_op == BinaryOp::kSub && !__builtin_sub_overflow(*a, *b, &r)) return r;
    if (e->binary_op == BinaryOp::kMul && !__builtin_mul_overflow(*a, *b, &r)) return r;
    return std::nullopt;
  }

  // The channel index PE `pe` (innermost first) uses in `a`, when its space loops and the lets
  // around `a` decide it.
  std::optional<std::vector<int64_t>> index_at(const KernelView& kv, const Access& a,
                                               const std::vector<int64_t>& pe) const {
    std::map<std::string, int64_t> env;
    for (size_t q = 0; q < pe.size(); ++q) {
      int64_t min = 0;
      for (const Loop& l : kv.loops)
        if (l.var == kv.space_vars[q] && l.min && l.min->kind == ExprKind::kIntImm)
          min = l.min->int_value;
      env[kv.space_vars[q]] = min + pe[q];
    }
    for (const auto& [var, value] : a.lets) {
      env.erase(var);
      if (std::optional<int64_t> v = eval(value, env)) env[var] = *v;
    }
    std::vector<int64_t> index;
    for (const Expr& e : a.index) {
      std::optional<int64_t> v = eval(e, env);
      if (!v) return std::nullopt;
      index.push_back(*v);
    }
    return index;
  }

  // Draws channel `c` between the PEs of its kernel: an edge from the PE that writes each
  // element to the PE that reads it. False when the PEs cannot be told apart (no drawn grid,
  // indices that the PE does not decide).
  bool pe_channel_edges(const Channel& c) {
    const KernelView* kv = view(c.producer);
    if (c.producer != c.consumer || !kv || !kv->grid.present || kv->grid.symbolic ||
        kv->space_vars.size() != kv->grid.shape.size())
      return false;
    AccessFinder finder(c.name);
    finder.visit_stmts(kv->kernel->body);
    const std::optional<Access>& write = finder.write;
    const std::optional<Access>& read = finder.read;
    if (!write || !read) return false;
    const Grid& g = kv->grid;
    std::map<std::vector<int64_t>, std::vector<int64_t>> writer;
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> edges;
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t row = 0; row < g.rows_drawn; ++row) {
        for (int64_t col = 0; col < g.cols_drawn; ++col) {
          const std::vector<int64_t> pe = coords(g, row, col);
          std::optional<std::vector<int64_t>> index = index_at(*kv, pass ? *read : *write, pe);
          if (!index) return false;
          if (pass == 0) writer.emplace(*index, pe);
          auto it = pass ? writer.find(*index) : writer.end();
          if (it != writer.end() && it->second != pe) edges.push_back({it->second, pe});
        }
      }
    }
    const std::string text =
        c.name + " fifo depth " + std::to_string(c.depth) + vector_type_suffix(c.type);
    for (const auto& [from, to] : edges) {
      bool flat = from[0] != to[0];
      for (size_t q = 1; q < from.size(); ++q) flat = flat && from[q] == to[q];
      out_ << "  " << quote(pe_name(c.producer, from)) << " -> " << quote(pe_name(c.producer, to))
           << " [" << (flat ? "xlabel=" : "label=") << label({text})
           << ", style=bold, color=\"#444444\", fontcolor=\"#444444\""
           << (flat ? ", constraint=false" : ", weight=0") << "];\n";
    }
    return true;
  }

  void channel_edges() {
    if (p_.channels.empty()) return;
    out_ << "\n  // channels\n";
    for (const Channel& c : p_.channels) {
      if (c.producer == c.consumer) {
        out_ << "  // " << c.name << ": between the PEs of " << c.producer
             << ", from the PE that writes an element to the PE that reads it\n";
        if (pe_channel_edges(c)) continue;
      }
      std::vector<std::string> text = {c.name + " (depth " + std::to_string(c.depth) + ")" +
                                       vector_type_suffix(c.type)};
      if (!c.dims.empty()) {
        std::vector<std::string> dims;
        int64_t n = 1;
        for (int64_t d : c.dims) {
          dims.push_back(std::to_string(d));
          n = sat_mul(n, d);
        }
        text.push_back("array " + join(dims, " x ") + " = " + std::to_string(n) + " channels");
      }
      out_ << "  " << quote(anchor_out(c.producer)) << " -> " << quote(anchor_in(c.consumer))
           << " [label=" << label(text) << ", style=bold, color=\"#444444\"";
      if (c.producer != c.consumer)
        out_ << cluster_attr("ltail", c.producer) << cluster_attr("lhead", c.consumer);
      out_ << "];\n";
    }
  }

  // Inputs to the kernels that read them, kernels to the buffers they write, buffers to the
  // kernels that read them.
  void data_edges() {
    std::vector<std::string> lines;
    for (const KernelView& kv : views_) {
      const std::string& name = kv.kernel->name;
      std::set<std::string> images, funcs;
      for_each_stmt_expr(kv.kernel->body, [&](const Expr& e) {
        if (e->kind != ExprKind::kCall) return;
        if (e->call_kind == CallKind::kImage) images.insert(e->name);
        if (e->call_kind == CallKind::kFunc) funcs.insert(e->name);
      });
      std::set<std::string> written;
      collect_provides(kv.kernel->body, &written);
      for (const std::string& in : images) {
        if (!p_.find_input(in)) continue;
        lines.push_back("  " + quote("input." + in) + " -> " + quote(kv.in_anchor) +
                        " [color=\"#b08000\"" + cluster_attr("lhead", name) + "];\n");
      }
      for (const std::string& f : funcs) {
        if (!p_.find_buffer(f)) continue;
        lines.push_back("  " + quote("buffer." + f) + " -> " + quote(kv.in_anchor) +
                        " [color=\"#2e7d32\", style=dashed" + cluster_attr("lhead", name) + "];\n");
      }
      for (const std::string& f : written) {
        if (!p_.find_buffer(f)) continue;
        lines.push_back("  " + quote(kv.out_anchor) + " -> " + quote("buffer." + f) +
                        " [color=\"#2e7d32\"" + cluster_attr("ltail", name) + "];\n");
      }
    }
    if (lines.empty()) return;
    out_ << "\n  // data: inputs read, buffers written and read\n";
    for (const std::string& l : lines) out_ << l;
  }

  const Program& p_;
  std::vector<KernelView> views_;
  std::ostringstream out_;
};

}  // namespace

std::string emit_dot(const Program& program) {
  require_kernel_stage(program, "the dot target");
  return DotPrinter(program).run();
}

}  // namespace t2s
