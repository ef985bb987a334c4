#include "libs/ir/source_manager.h"

#include <fstream>
#include <sstream>

namespace t2s {

void SourceManager::add(const std::string& name, const std::string& display_name,
                        std::string text) {
  files_[name] = File{display_name, std::move(text)};
}

void SourceManager::add_lines(const std::string& name, const std::string& display_name,
                              std::map<int, std::string> lines) {
  File file{display_name, "", true, std::move(lines)};
  files_[name] = std::move(file);
}

const std::string* SourceManager::text(const std::string& name) const {
  auto it = files_.find(name);
  return it == files_.end() || it->second.partial ? nullptr : &it->second.text;
}

std::string SourceManager::display_name(const std::string& name) const {
  auto it = files_.find(name);
  if (it != files_.end()) return it->second.display_name;
  if (name.empty()) return "<spec>";
  return base_dir_.empty() || name[0] == '/' ? name : base_dir_ + "/" + name;
}

std::optional<std::string> SourceManager::line(const std::string& name, int line) const {
  auto it = files_.find(name);
  if (it == files_.end()) {
    if (name.empty() || !read_files_) return std::nullopt;
    std::ifstream in(display_name(name), std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream buffer;
    buffer << in.rdbuf();
    it = files_.emplace(name, File{display_name(name), buffer.str()}).first;
  }
  if (it->second.partial) {
    auto known = it->second.lines.find(line);
    if (known == it->second.lines.end()) return std::nullopt;
    return known->second;
  }
  const std::string& text = it->second.text;
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return std::nullopt;
    ++pos;
  }
  if (pos > text.size() || line < 1) return std::nullopt;
  size_t end = text.find('\n', pos);
  std::string result = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!result.empty() && result.back() == '\r') result.pop_back();
  return result;
}

}  // namespace t2s
