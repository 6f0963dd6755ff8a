#include "support/Diagnostics.h"

namespace tilec {

int SourceManager::add(std::string path, std::string text, int first_line) {
  SourceFile f;
  f.path = std::move(path);
  f.text = std::move(text);
  f.first_line = first_line;
  f.line_starts.push_back(0);
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n')
      f.line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<int>(files_.size() - 1);
}

std::string_view SourceManager::line_text(int file, int line) const {
  if (file < 0 || static_cast<size_t>(file) >= files_.size())
    return {};
  const SourceFile &f = files_[static_cast<size_t>(file)];
  long rel = static_cast<long>(line) - f.first_line;
  if (rel < 0 || static_cast<size_t>(rel) >= f.line_starts.size())
    return {};
  size_t start = f.line_starts[static_cast<size_t>(rel)];
  size_t end = f.text.find('\n', start);
  if (end == std::string::npos)
    end = f.text.size();
  std::string_view sv(f.text);
  sv = sv.substr(start, end - start);
  if (!sv.empty() && sv.back() == '\r')
    sv.remove_suffix(1);
  return sv;
}

void throw_internal(const char *file, int line, const std::string &msg) {
  throw InternalError(std::string("tilec internal error at ") + file + ":" + std::to_string(line) +
                      ": " + msg);
}

std::string render_diagnostic(const SourceManager &sm, SourceLoc loc, std::string_view severity,
                              std::string_view message) {
  std::string out;
  if (loc.valid() && static_cast<size_t>(loc.file) < sm.num_files()) {
    out += sm.file(loc.file).path;
    out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": ";
  }
  out += severity;
  out += ": ";
  out += message;
  out += "\n";
  if (loc.valid()) {
    std::string_view text = sm.line_text(loc.file, loc.line);
    if (!text.empty()) {
      out += text;
      out += "\n";
      std::string caret;
      for (int i = 1; i < loc.col && static_cast<size_t>(i - 1) < text.size(); ++i)
        caret += text[static_cast<size_t>(i - 1)] == '\t' ? '\t' : ' ';
      out += caret + "^\n";
    }
  }
  return out;
}

} // namespace tilec
