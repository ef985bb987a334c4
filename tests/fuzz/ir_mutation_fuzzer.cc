// Fuzz target: structure-aware mutation of IR documents (tests/fuzz/README.md). The custom
// mutator parses a seed (a golden stage), changes it the way a hand edit or a wrong tool would
// (a name or cross-reference, a number, a type, a stage, an array element, a statement, an
// operand of an expression) and writes it back, so that nearly every input reaches the verifier
// and the passes instead of failing in the JSON reader. Each input is read and verified; what
// verifies is run by the interpreter, lowered through every later stage (each run again) and
// emitted for every target. A finding is an exception other than a located diagnostic, a
// crash or sanitizer report, or two stages of one program whose runs both succeed with
// different outputs (t2s-run disagreeing with itself across a pass).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "libs/backends/targets/targets.h"
#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/exec/run_support.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/passes/lower/lower.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using Json = nlohmann::ordered_json;

// The output of running `p` (small budgets: a fuzz input must stay fast), or nullopt when the
// run refuses it with a located diagnostic (a deadlock, a step limit, a bad index, ...).
std::optional<t2s::NdArray> run(const t2s::Program& p) {
  try {
    t2s::check_run_memory(p, int64_t{1} << 24);
    t2s::RunOptions options;
    options.max_steps = 200000;
    return t2s::run_program(p, t2s::complete_inputs(p, {}, t2s::FillKind::kRandom, 7), options);
  } catch (const t2s::Diagnostic&) {
    return std::nullopt;
  }
}

void check_same(const t2s::NdArray& before, const t2s::NdArray& after, t2s::Stage from,
                t2s::Stage to) {
  std::optional<t2s::Mismatch> m;
  try {
    m = t2s::compare_arrays(before, after);
  } catch (const t2s::NpyError& e) {
    std::fprintf(stderr, "ir_mutation_fuzzer: finding: the %s and %s stages disagree: %s\n",
                 t2s::stage_name(from), t2s::stage_name(to), e.what());
    std::abort();
  }
  if (m) {
    std::fprintf(stderr,
                 "ir_mutation_fuzzer: finding: the %s and %s stages disagree at %s: %s, then %s "
                 "(%lld elements differ)\n",
                 t2s::stage_name(from), t2s::stage_name(to), t2s::format_index(m->index).c_str(),
                 m->expected.c_str(), m->actual.c_str(), static_cast<long long>(m->count));
    std::abort();
  }
}

// ---- the mutator -------------------------------------------------------------------------------

// Fields whose string value names an entity of the program (a Func, input, kernel, channel,
// register, buffer or variable).
const std::set<std::string> kNameFields = {
    "name",    "func",    "kernel", "producer", "consumer", "output", "write_channel",
    "provide", "realize", "push",   "shift",    "for",      "let",    "wraps"};
// Fields holding an expression in the canonical text form.
const std::set<std::string> kExprFields = {"definition", "extent", "min", "value", "if"};

const char* const kTypes[] = {"int32",    "float32",  "bool", "uint8",   "int64",     "float64",
                              "int16",    "uint32",   "int8", "int32x4", "float32x8", "float32x16",
                              "int32x64", "int32x65", "void", "x"};
const char* const kStages[] = {"parsed", "merged", "stt", "vectorized", "gathered", "bogus"};
const int64_t kNumbers[] = {0,
                            1,
                            -1,
                            2,
                            3,
                            7,
                            8,
                            64,
                            1 << 24,
                            (1 << 24) + 1,
                            2147483647,
                            2147483648LL,
                            -2147483648LL,
                            4294967296LL,
                            INT64_MAX,
                            INT64_MIN};

struct Node {
  Json* value;
  std::string key;  // the field holding it ("" for an array element or the root)
  Json* parent;     // the object or array holding it (nullptr for the root)
};

void collect(Json& j, const std::string& key, Json* parent, std::vector<Node>* nodes) {
  nodes->push_back({&j, key, parent});
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), it.key(), &j, nodes);
  } else if (j.is_array()) {
    for (Json& e : j) collect(e, "", &j, nodes);
  }
}

class Mutator {
 public:
  Mutator(Json& doc, unsigned seed) : doc_(doc), rng_(seed) {
    collect(doc_, "", nullptr, &nodes_);
    for (const Node& n : nodes_) {
      if (n.value->is_string() && kNameFields.count(n.key))
        names_.push_back(n.value->get<std::string>());
      if (n.key == "vars" && n.value->is_array())
        for (const Json& v : *n.value)
          if (v.is_string()) names_.push_back(v.get<std::string>());
    }
    names_.push_back("nowhere");
  }

  // One mutation; false when the kind picked found nothing to change.
  bool mutate() {
    switch (pick(9)) {
      case 0:
        return rename();
      case 1:
        return renumber();
      case 2:
        return retype();
      case 3:
        return restage();
      case 4:
        return edit_array();
      case 5:
        return swap_subtrees();
      case 6:
        return edit_expression();
      case 7:
        return drop_field();
      default:
        return number_in_expression();
    }
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  template <typename Pred>
  Node* some(Pred pred) {
    std::vector<Node*> fit;
    for (Node& n : nodes_)
      if (pred(n)) fit.push_back(&n);
    return fit.empty() ? nullptr : fit[pick(fit.size())];
  }
  const std::string& some_name() { return names_[pick(names_.size())]; }

  // A cross-reference (or a definition's name) replaced by another name of the program.
  bool rename() {
    Node* n = some([](const Node& n) { return n.value->is_string() && kNameFields.count(n.key); });
    if (!n) return false;
    *n->value = some_name();
    return true;
  }
  // An extent, depth, dimension, distance, count... replaced by a hostile or nearby value.
  bool renumber() {
    Node* n = some([](const Node& n) { return n.value->is_number_integer(); });
    if (!n) return false;
    // Wrapping arithmetic: the value may be INT64_MIN or INT64_MAX already.
    const uint64_t old = static_cast<uint64_t>(n->value->get<int64_t>());
    switch (pick(3)) {
      case 0:
        *n->value = kNumbers[pick(std::size(kNumbers))];
        break;
      case 1:
        *n->value = static_cast<int64_t>(pick(2) ? old + 1 : old - 1);
        break;
      default:
        *n->value = static_cast<int64_t>(0 - old);
        break;
    }
    return true;
  }
  bool retype() {
    Node* n = some([](const Node& n) { return n.key == "type" && n.value->is_string(); });
    if (!n) return false;
    *n->value = kTypes[pick(std::size(kTypes))];
    return true;
  }
  bool restage() {
    if (!doc_.is_object() || !doc_.contains("stage")) return false;
    doc_["stage"] = kStages[pick(std::size(kStages))];
    return true;
  }
  // An element of an array (a statement, a Func, a channel, an index, a dimension) deleted,
  // duplicated, or swapped with another.
  bool edit_array() {
    Node* n = some([](const Node& n) { return n.value->is_array() && !n.value->empty(); });
    if (!n) return false;
    Json& a = *n->value;
    const size_t i = pick(a.size()), j = pick(a.size());
    switch (pick(3)) {
      case 0:
        a.erase(a.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      case 1:
        a.insert(a.begin() + static_cast<std::ptrdiff_t>(i), Json(a[i]));
        break;
      default:
        std::swap(a[i], a[j]);
        break;
    }
    return true;
  }
  // A subtree replaced by a copy of another of the same JSON kind: a statement of another kind,
  // another Func's record, another expression string.
  bool swap_subtrees() {
    Node* a = some([](const Node& n) { return n.parent != nullptr; });
    if (!a) return false;
    const Json::value_t kind = a->value->type();
    Node* b = some([&](const Node& n) { return n.value != a->value && n.value->type() == kind; });
    if (!b) return false;
    // Copy (never move): b may lie inside a or a inside b.
    *a->value = Json(*b->value);
    return true;
  }
  // An identifier of an expression replaced by a name of the program (an unbound variable, a
  // call of a kernel, a channel read of a Func, ...).
  bool edit_expression() {
    Node* n = some([](const Node& n) { return n.value->is_string() && kExprFields.count(n.key); });
    if (!n) return false;
    std::string text = n->value->get<std::string>();
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    std::vector<std::pair<size_t, size_t>> spans;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), identifier);
         it != std::sregex_iterator(); ++it)
      spans.emplace_back(it->position(), it->length());
    if (spans.empty()) return false;
    const auto [at, length] = spans[pick(spans.size())];
    text.replace(at, length, some_name());
    *n->value = text;
    return true;
  }
  bool number_in_expression() {
    Node* n = some([](const Node& n) { return n.value->is_string() && kExprFields.count(n.key); });
    if (!n) return false;
    std::string text = n->value->get<std::string>();
    static const std::regex number("[0-9]+");
    std::vector<std::pair<size_t, size_t>> spans;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it)
      spans.emplace_back(it->position(), it->length());
    if (spans.empty()) {
      *n->value = std::to_string(kNumbers[pick(std::size(kNumbers))]);
      return true;
    }
    const auto [at, length] = spans[pick(spans.size())];
    text.replace(at, length, std::to_string(kNumbers[pick(8)] + (pick(2) ? 0 : 2147483640)));
    *n->value = text;
    return true;
  }
  bool drop_field() {
    Node* n = some([](const Node& n) { return n.parent && n.parent->is_object(); });
    if (!n) return false;
    n->parent->erase(n->key);
    return true;
  }

  Json& doc_;
  std::mt19937 rng_;
  std::vector<Node> nodes_;
  std::vector<std::string> names_;
};

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Json doc = Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded()) {
    std::mt19937 rng(seed);
    // One to three edits; the document is collected afresh after each (an edit may remove
    // what the next would have picked).
    const int edits = 1 + static_cast<int>(rng() % 3);
    bool changed = false;
    for (int e = 0; e < edits; ++e) changed = Mutator(doc, rng()).mutate() || changed;
    if (changed) {
      const std::string text = doc.dump();
      if (text.size() <= max_size) {
        std::memcpy(data, text.data(), text.size());
        return text.size();
      }
    }
  }
  // Not JSON (or nothing to change): libFuzzer's byte-level mutations, when linked.
  return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  t2s::fuzz::run_one_input("ir_mutation_fuzzer", [&] {
    t2s::Program p = t2s::read_program(t2s::fuzz::as_text(data, size), "fuzz.json");
    t2s::verify_program(p, "fuzz.json");
    std::optional<t2s::NdArray> first;
    t2s::Stage first_stage = p.stage;
    if (p.stage != t2s::Stage::kParsed) first = run(p);
    while (p.stage != t2s::Stage::kGathered) {
      const t2s::Stage next = static_cast<t2s::Stage>(static_cast<int>(p.stage) + 1);
      // What the next tool reads: the document written, read back and verified.
      p = t2s::lower_to(p, next);
      p = t2s::read_program(t2s::write_program(p), "fuzz.json");
      try {
        t2s::verify_program(p, "fuzz.json");
      } catch (const t2s::Diagnostic& d) {
        // A pass that accepted its input must produce well-formed IR.
        std::fprintf(stderr, "ir_mutation_fuzzer: finding: the %s stage made does not verify: %s\n",
                     t2s::stage_name(next), d.message().c_str());
        std::abort();
      }
      std::optional<t2s::NdArray> out = run(p);
      if (first && out) check_same(*first, *out, first_stage, next);
      if (!first && out) {
        first = out;
        first_stage = next;
      }
    }
    for (const t2s::EmitTarget& target : t2s::emit_targets()) {
      target.emit(p);
      if (target.emit_host) target.emit_host(p);
    }
  });
  return 0;
}
