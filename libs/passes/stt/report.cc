// t2s-stt --report: the PE array, time steps and register sizes of each transformed kernel.
#include <algorithm>
#include <sstream>

#include "libs/ir/stmt_visitor.h"
#include "libs/passes/common/scatter.h"
#include "libs/passes/stt/stt.h"

namespace t2s {

std::string stt_report(const Program& p) {
  std::ostringstream out;
  for (const Kernel& k : p.kernels) {
    std::vector<const Register*> regs;
    for (const Register& r : p.registers)
      if (r.kernel == k.name) regs.push_back(&r);
    // The loop nest: unrolled loops are the PE array, serial loops the time steps, vectorized
    // loops the lanes of each PE (t2s-vec makes them vectors).
    std::string pes, steps, lanes;
    int64_t npes = 1, nsteps = 1, nlanes = 1;
    const StmtList* body = &k.body;
    bool transformed = false;
    // Each step of the walk gives the next list of the nest, or null where it ends.
    while (body && body->size() == 1) {
      using Next = const StmtList*;
      body = match_stmt(
          *(*body)[0],
          [&](const For& loop) -> Next {
            if (loop.extent->kind != ExprKind::kIntImm) return nullptr;
            const int64_t e = loop.extent->int_value;
            const bool unrolled = loop.loop_kind == LoopKind::kUnrolled;
            const bool vectorized = loop.loop_kind == LoopKind::kVectorized;
            std::string& list = unrolled ? pes : vectorized ? lanes : steps;
            list += std::string(list.empty() ? "" : " x ") + loop.var + " " + std::to_string(e);
            (unrolled ? npes : vectorized ? nlanes : nsteps) *= e;
            transformed = transformed || unrolled;
            return &loop.body;
          },
          [](const LetStmt&) -> Next { return nullptr; },
          [](const IfThenElse&) -> Next { return nullptr; },
          [](const Provide&) -> Next { return nullptr; },
          [](const Alloc&) -> Next { return nullptr; },
          [](const WriteChannel&) -> Next { return nullptr; },
          [](const Realize& r) -> Next { return &r.body; },
          [](const Shift&) -> Next { return nullptr; },
          [](const Push&) -> Next { return nullptr; });
    }
    if (!transformed && regs.empty()) continue;
    out << "kernel " << k.name << ": PE array " << (pes.empty() ? "1" : pes) << " (" << npes
        << " PEs), " << nsteps << " time steps (" << (steps.empty() ? "none" : steps) << ")";
    if (!lanes.empty()) out << ", " << nlanes << " vector lanes per PE (" << lanes << ")";
    out << "\n";
    // The arrays of channels out of its PEs (docs/ir.md, "The stt stage", "Channels").
    for (const Channel& c : p.channels) {
      if (c.producer != k.name || c.dims.empty()) continue;
      std::string dims;
      int64_t n = 1;
      for (int64_t d : c.dims) {
        dims += (dims.empty() ? "" : " x ") + std::to_string(d);
        n *= d;
      }
      out << "  channel " << c.name << " to " << c.consumer << ": array " << dims << " (" << n
          << " channels, one per PE that writes it)\n";
    }
    if (regs.empty()) {
      out << "  no registers\n";
      continue;
    }
    // Columns as wide as their widest cell.
    std::vector<std::vector<std::string>> rows = {{"register", "func", "kind", "distance",
                                                   "time distance", "naive/PE", "allocated/PE",
                                                   "naive total", "allocated total"}};
    int64_t naive_total = 0, allocated_total = 0;
    for (const Register* r : regs) {
      int64_t pe_count = 1;
      for (int64_t e : r->shape) pe_count *= e;
      // Outermost loop first, named, as every tool prints a dependence distance (the IR keeps
      // it in argument order).
      const Func* f = p.find_func(r->func);
      std::string d;
      for (size_t i = r->distance.size(); i-- > 0;) {
        const std::string name = f && i < f->args.size() ? f->args[i] + " " : "";
        d += (d.empty() ? "" : ", ") + name + std::to_string(r->distance[i]);
      }
      rows.push_back({r->name, r->func, register_kind_name(r->kind), d,
                      std::to_string(r->time_distance), std::to_string(r->naive),
                      std::to_string(r->depth), std::to_string(r->naive * pe_count),
                      std::to_string(r->depth * pe_count)});
      naive_total += r->naive * pe_count;
      allocated_total += r->depth * pe_count;
    }
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
      std::string line = " ";
      for (size_t c = 0; c < row.size(); ++c) {
        const std::string pad(width[c] - row[c].size(), ' ');
        // Text columns left-aligned, numbers right-aligned.
        line += " " + (c < 4 ? row[c] + pad : pad + row[c]);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
    out << "  total: " << naive_total << " values naive, " << allocated_total << " allocated\n";
  }
  out << scatter_report(p);
  return out.str();
}

}  // namespace t2s
