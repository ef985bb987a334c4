#include "libs/cli/spec_lines.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <utility>

#include "libs/cli/tool.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/ir_json.h"

namespace t2s {

namespace {

using Json = nlohmann::json;

constexpr const char* kFormatKey = "t2s_spec_lines";
constexpr int kFormatVersion = 1;

bool is_location_key(const std::string& key) {
  return key == "loc" || (key.size() > 4 && key.compare(key.size() - 4, 4, "_loc") == 0);
}

// Every location the IR document spells, wherever it sits: walking the JSON rather than the
// Program keeps this right as the IR grows new located things.
void collect_locations(const Json& j, std::map<std::string, std::set<int>>* lines) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.value().is_string() && is_location_key(it.key())) {
        SourceLoc loc;
        try {
          loc = SourceLoc::parse(it.value().get<std::string>());
        } catch (const std::invalid_argument&) {
          continue;  // verify_program reports malformed locations; nothing to show here
        }
        if (loc.valid()) (*lines)[loc.file].insert(loc.line);
      } else {
        collect_locations(it.value(), lines);
      }
    }
  } else if (j.is_array()) {
    for (const Json& e : j) collect_locations(e, lines);
  }
}

}  // namespace

std::string write_spec_lines(const Program& program, const SourceManager& sources) {
  std::map<std::string, std::set<int>> located;
  collect_locations(Json::parse(write_program(program)), &located);
  Json files = Json::array();
  for (const auto& [name, numbers] : located) {
    Json lines = Json::array();
    for (int n : numbers) {
      std::optional<std::string> text = sources.line(name, n);
      if (text) lines.push_back(Json::array({n, *text}));
    }
    files.push_back(
        Json{{"name", name}, {"display_name", sources.display_name(name)}, {"lines", lines}});
  }
  Json doc = {{kFormatKey, kFormatVersion}, {"files", files}};
  return doc.dump(1) + "\n";
}

void read_spec_lines(const std::string& text, const std::string& path, SourceManager* sources) {
  auto malformed = [&](const std::string& why) {
    return IoError("'" + path + "' is not a spec-lines file (t2s-parse --spec-lines-out): " + why);
  };
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains(kFormatKey)) throw malformed("no \"t2s_spec_lines\" key");
  if (doc[kFormatKey] != kFormatVersion)
    throw malformed("version " + doc[kFormatKey].dump() + ", this tool reads version " +
                    std::to_string(kFormatVersion));
  if (!doc.contains("files") || !doc["files"].is_array()) throw malformed("no \"files\" array");
  for (const Json& file : doc["files"]) {
    if (!file.is_object() || !file.contains("name") || !file["name"].is_string() ||
        !file.contains("display_name") || !file["display_name"].is_string() ||
        !file.contains("lines") || !file["lines"].is_array())
      throw malformed("a file needs \"name\", \"display_name\" and \"lines\"");
    std::map<int, std::string> lines;
    for (const Json& line : file["lines"]) {
      if (!line.is_array() || line.size() != 2 || !line[0].is_number_integer() ||
          !line[1].is_string())
        throw malformed("a line is [NUMBER, \"TEXT\"]");
      lines[line[0].get<int>()] = line[1].get<std::string>();
    }
    sources->add_lines(file["name"].get<std::string>(), file["display_name"].get<std::string>(),
                       std::move(lines));
  }
  sources->disable_file_reads();
}

}  // namespace t2s
