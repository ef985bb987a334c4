// A small JSON reader that remembers where every value starts (line and column), so that
// t2s-explore can point at the offending field of its input (`file:line:col: error: ...`),
// which a JSON library that forgets positions cannot. Standard JSON (RFC 8259): objects keep
// their keys in order and refuse duplicates; numbers are integers (int64) or reals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "libs/ir/diagnostic.h"

namespace t2s::explore::json {

struct Value {
  enum Kind { kNull, kBool, kInt, kReal, kString, kArray, kObject };
  Kind kind = kNull;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string string;
  std::vector<Value> items;                           // kArray
  std::vector<std::pair<std::string, Value>> fields;  // kObject, in document order
  std::vector<SourceLoc> key_locs;                    // kObject: where each key is
  SourceLoc loc;                                      // where the value starts

  bool is_object() const { return kind == kObject; }
  bool is_array() const { return kind == kArray; }
  bool is_string() const { return kind == kString; }
  bool is_int() const { return kind == kInt; }
  // The field `key` of an object, or null when there is none.
  const Value* find(const std::string& key) const;
  // "an object", "a string", ...: for messages.
  const char* kind_name() const;
};

// Parses `text`. Locations name `file` (as SourceLoc::file: "" for the main input). Throws
// Diagnostic (rule "json") at the first character that is not JSON; nesting deeper than 200
// levels is refused too.
Value parse(const std::string& text, const std::string& file);

}  // namespace t2s::explore::json
