// Internal to libs/frontend's preprocessor (preprocessor.cc): its state, apart from its logic.
// The compact tokens it works on, the arrays and slices that hold them (a macro call's arguments
// are slices of the tokens read once), the expansion contexts, the macro-chain tree, the
// conditionals and the files being read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libs/frontend/lexer.h"
#include "libs/frontend/preprocessor_internal.h"

namespace t2s::preprocessor_internal {

// The preprocessor's own token: interned text, a compact location and a node of the macro-chain
// tree (a token of a macro body shares its expansion's node instead of copying the chain). It
// becomes a public Token only for the output and for #if.
constexpr uint8_t kIdent = static_cast<uint8_t>(TokenKind::kIdentifier);
constexpr uint8_t kPunct = static_cast<uint8_t>(TokenKind::kPunct);
constexpr uint8_t kEnd = static_cast<uint8_t>(TokenKind::kEnd);
// A balanced parenthesized group kept whole (`text` indexes TokArray::groups); see collect_args.
constexpr uint8_t kGroup = 255;
constexpr size_t kNoMatch = SIZE_MAX;

struct Tok {
  uint32_t text = 0;   // index in the interned texts (kGroup: in TokArray::groups)
  uint32_t chain = 0;  // macro-chain node, 0 for a token written in a file
  uint32_t file = 0;   // index in the file names (0: the main spec, or no location)
  int32_t line = 0;
  int32_t col = 0;
  uint8_t kind = kEnd;
  bool painted = false;  // C's "blue paint": this identifier is never expanded again
};

struct TokArray;

// Tokens [begin, end) of an array: a macro argument, a group.
struct Slice {
  std::shared_ptr<const TokArray> arr;
  size_t begin = 0;
  size_t end = 0;
};

struct TokArray {
  std::vector<Tok> toks;
  // Per token: for a '(', the index of its ')' in this array, else (or if unmatched) kNoMatch.
  // Lets a macro call's arguments be found without reading them token by token again.
  std::vector<size_t> match;
  std::vector<Slice> groups;  // what the kGroup tokens stand for

  void push(const Tok& t) {
    toks.push_back(t);
    match.push_back(kNoMatch);
  }
};

struct Context {
  std::shared_ptr<const TokArray> arr;
  size_t pos = 0;
  size_t end = 0;
  std::shared_ptr<Macro> macro;  // re-enabled when the context is popped
  bool group = false;            // a kGroup's tokens, not a context of the macro expansion
};

// One node of the macro-chain tree: the chain of its parent plus one macro.
struct ChainNode {
  uint32_t parent = 0;
  uint32_t origin = 0;  // index in the MacroOrigin table
  uint32_t depth = 0;   // the chain's length
};

struct Cond {
  SourceLoc loc;          // the directive name of the opening #if / #ifdef / #ifndef
  std::string directive;  // "if", "ifdef" or "ifndef"
  bool parent_active = true;
  bool active = false;  // the current group is being compiled
  bool taken = false;   // some group of this conditional has been (or cannot be) chosen
  bool seen_else = false;
};

struct FileState {
  FileState(const std::string* text, const std::string& name, uint32_t id, size_t cond_base,
            int64_t* lexed)
      : name(name), id(id), lexer(text, name), cond_base(cond_base), lexed(lexed) {}

  LexedToken& peek() {
    if (!peeked) {
      peeked = lexer.next();
      if (peeked->tok.kind != TokenKind::kEnd) ++*lexed;
    }
    return *peeked;
  }
  LexedToken take() {
    LexedToken t = std::move(peek());
    peeked.reset();
    return t;
  }

  std::string name;  // SourceLoc.file of its tokens
  uint32_t id = 0;   // Tok::file of its tokens
  Lexer lexer;
  std::optional<LexedToken> peeked;
  size_t cond_base = 0;  // conditionals opened before this file
  int64_t* lexed;        // counts the tokens lexed from all files
};

}  // namespace t2s::preprocessor_internal
