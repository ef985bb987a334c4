// Spec-lines files: the lines of a spec that its IR's locations point at, so that a later
// stage can show a diagnostic's source line without reading the spec itself. A build that
// passes the stages this file instead of the spec (pipelines/t2s.bzl) does not re-run them when
// an edit leaves the IR and those lines alone (a comment on its own line, say).
#pragma once

#include <string>

#include "libs/ir/program.h"
#include "libs/ir/source_manager.h"

namespace t2s {

// The spec-lines file of `program` (JSON): for each file a location of the IR names (the main
// spec and the files it includes), its display name and the text of every line a location
// ("loc", "decl_loc", ...) points at, taken from `sources`. Deterministic: files by name, lines
// by number.
std::string write_spec_lines(const Program& program, const SourceManager& sources);

// Registers the files of a spec-lines file (`text`, read from `path`) in `sources` (add_lines)
// and stops `sources` reading any file from disk. Throws IoError on a malformed file.
void read_spec_lines(const std::string& text, const std::string& path, SourceManager* sources);

}  // namespace t2s
