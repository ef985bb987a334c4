// t2s-gather (seed 003): every gather directive, in program order, is checked (analysis.cc,
// consumer.cc) and applied (rewrite.cc); the rest of the program passes through.
#include "libs/passes/gather/gather.h"

#include <set>
#include <sstream>

#include "libs/passes/common/pass_through.h"
#include "libs/passes/gather/gather_internal.h"

namespace t2s {

using gather_internal::Site;

Program gather_pass(const Program& vectorized, GatherReport* report) {
  // scatter and buffer (T2S's counterparts of gather on the way into an array, and double
  // buffering) rewrite channels too; they are not built yet.
  Program out = pass_through_stage(vectorized, Stage::kVectorized, Stage::kGathered, "t2s-gather",
                                   DirectiveStage::kGather);
  std::set<std::string> gathered;
  for (const Directive& d : vectorized.directives) {
    if (!d.is(DirectiveKind::kGather)) continue;
    if (!gathered.insert(d.func).second)
      throw Diagnostic(d.loc, "Func '" + d.func + "' gathers twice", "gather-twice");
    const Site site = gather_internal::analyse(out, d);
    gather_internal::check_consumer(out, site);
    GatherItemReport item;
    item.func = site.func;
    item.source = site.source;
    item.var = site.var;
    item.strategy = site.down ? "Down" : "Up";
    item.form = site.form == Site::kWhole
                    ? "already gathered (" + site.source_kernel + " vectorizes " + site.var + ")"
                : site.form == Site::kVectorized ? "vectorized"
                : site.serialised
                    ? "unrolled (vectorize(" + site.var + ") was serialised by t2s-vec)"
                    : "unrolled";
    item.channel = site.in_channel;
    item.pes = site.pes;
    item.exit_pe =
        site.var + " = " + std::to_string(site.down ? site.vmin : site.vmin + site.pes - 1);
    item.loc = d.loc;
    const Channel* out_channel = out.find_channel(site.out_channel);
    const std::vector<int64_t> old_dims = out_channel ? out_channel->dims : std::vector<int64_t>{};
    if (site.form == Site::kWhole) {
      item.exit_pe.clear();  // no PEs along v: lanes
      item.outputs.push_back(site.func + " reads the " + std::to_string(site.pes) + " lanes of " +
                             site.var + " in one vector, in ascending order of " + site.var +
                             ": passed on unchanged (no PEs, no FIFOs)");
      if (report) report->items.push_back(item);
      continue;
    }
    gather_internal::Names names(out);
    gather_internal::rewrite(out, site, names, &item);
    gather_internal::drop_consumer_dim(out, site);
    auto dims = [](const std::vector<int64_t>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    };
    if (site.out_channel.empty()) {
      item.outputs.push_back("the exit PE stores every value to " + site.func +
                             (site.form == Site::kUnrolled
                                  ? " (" + site.var + " replaced by the count loop)"
                                  : std::string(" (whole vectors)")));
    } else if (site.form == Site::kVectorized) {
      item.outputs.push_back("the exit PE writes whole vectors to channel " + site.out_channel +
                             " (unchanged)");
    } else if (site.out_dim) {
      item.outputs.push_back("the exit PE writes every value to channel " + site.out_channel +
                             ", dims " + dims(old_dims) + " -> " +
                             dims(out.find_channel(site.out_channel)->dims) + " (without " +
                             site.var + "); its reads in " +
                             out.find_channel(site.out_channel)->consumer + " lose that index");
    } else {
      item.outputs.push_back("the exit PE writes every value to channel " + site.out_channel +
                             ", not indexed by " + site.var +
                             ": the values keep their order, its consumer is unchanged");
    }
    if (report) report->items.push_back(item);
  }
  return out;
}

Program gather_pass(const Program& vectorized) { return gather_pass(vectorized, nullptr); }

std::string gather_report_text(const GatherReport& report) {
  std::ostringstream out;
  if (report.items.empty()) out << "no gather directives\n";
  for (const GatherItemReport& g : report.items) {
    out << "gather " << g.func << ": " << g.source << " along " << g.var << ", " << g.strategy
        << ", " << g.form << ": " << g.pes << (g.exit_pe.empty() ? " lanes" : " PEs")
        << ", channel " << g.channel;
    if (!g.exit_pe.empty()) out << ", exit PE " << g.exit_pe;
    out << "\n";
    for (const std::string& f : g.fifos) out << "  " << f << "\n";
    for (const std::string& o : g.outputs) out << "  " << o << "\n";
  }
  return out.str();
}

}  // namespace t2s
