#pragma once
// Python source read as text, for the passes that scan files without the parsed module (the
// repository passes of custom_ops and device): where a string literal ends, and which bracket
// closes an open one, a definition's parameter list, and the top-level parts of a comma-separated
// list.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace plugin_support {

/// Where the string literal opening at `i` ends: its last closing quote; for an unterminated
/// one-line string, its line's end when `stop_at_line_end`, else the end of `s`.
inline std::size_t stringEnd(std::string_view s, std::size_t i, bool stop_at_line_end) {
  const char quote = s[i];
  const bool triple = i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote;
  for (i += triple ? 3 : 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (stop_at_line_end && !triple && s[i] == '\n') break;
    if (s[i] == quote && (!triple || (i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote))) {
      if (triple) i += 2;
      break;
    }
  }
  return i;
}

/// Offset of the bracket that closes the one at `open` in Python source (string literals and
/// comments skipped: a `# we're …` inside a call opens no string; any bracket kind nesting);
/// `s.size()` when it is never closed.
inline std::size_t closingBracket(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = stringEnd(s, i, false);
      continue;
    }
    if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return s.size();
}

/// The parameter list of the first `def` in `s` (a definition's source, decorators first), without
/// its brackets; empty when `s` holds no `def name(`.
inline std::string_view parameterList(std::string_view s) {
  const std::size_t def = s.find("def ");
  const std::size_t open = def == std::string_view::npos ? def : s.find('(', def);
  if (open == std::string_view::npos) return {};
  return s.substr(open + 1, closingBracket(s, open) - open - 1);
}

/// The top-level comma-separated parts of `s` (an argument or parameter list without its
/// brackets), each trimmed of whitespace; brackets and string literals nest.
inline std::vector<std::string> topLevelParts(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size()) {
      const char c = s[i];
      if (c == '(' || c == '[' || c == '{') {
        i = closingBracket(s, i);
        continue;
      }
      if (c == '"' || c == '\'') {
        i = stringEnd(s, i, false);
        continue;
      }
      if (c != ',') continue;
    }
    std::string_view part = s.substr(start, std::min(i, s.size()) - start);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front()))) part.remove_prefix(1);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.remove_suffix(1);
    out.emplace_back(part);
    start = i + 1;
  }
  return out;
}

}  // namespace plugin_support
