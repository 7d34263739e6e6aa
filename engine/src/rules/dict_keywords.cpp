// The value after a dict key or a subscript key, read from the source text around the literal.

#include "rules/dict_keywords.hpp"

namespace migrate::rules {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\\' || c == '\r';
}

std::size_t skipBlanks(std::string_view s, std::size_t i, bool newlines) {
  while (i < s.size() && (blank(s[i]) || (newlines && s[i] == '\n'))) ++i;
  return i;
}

/// The expression starting at `begin`: up to a `,`, a closing bracket or a comment at depth 0, or
/// the end of the line (inside brackets, lines continue).
std::string_view expressionAt(std::string_view s, std::size_t begin) {
  int depth = 0;
  std::size_t i = begin;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      i = std::min(j, s.size() - 1);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && (c == ',' || c == '#' || c == '\n' || c == ';')) break;
  }
  std::size_t end = i;
  while (end > begin && (blank(s[end - 1]) || s[end - 1] == '\n')) --end;
  return s.substr(begin, end - begin);
}

}  // namespace

std::optional<std::string_view> dictKeywordValue(std::string_view src, const sdk::StringFact& key) {
  const std::size_t after = skipBlanks(src, key.range.end_byte, false);
  if (after >= src.size()) return std::nullopt;
  if (key.context == sdk::StringContext::Other && src[after] == ':') {
    // A display's key: `{` or `,` before it (a slice `x["a":]` or an annotation has neither).
    std::size_t b = key.range.start_byte;
    while (b > 0 && (blank(src[b - 1]) || src[b - 1] == '\n')) --b;
    if (b == 0 || (src[b - 1] != '{' && src[b - 1] != ',')) return std::nullopt;
    const std::size_t v = skipBlanks(src, after + 1, true);
    return v < src.size() ? std::optional(expressionAt(src, v)) : std::nullopt;
  }
  if (key.context == sdk::StringContext::Subscript && src[after] == ']') {
    const std::size_t eq = skipBlanks(src, after + 1, false);
    if (eq + 1 >= src.size() || src[eq] != '=' || src[eq + 1] == '=') return std::nullopt;
    const std::size_t v = skipBlanks(src, eq + 1, false);
    return v < src.size() ? std::optional(expressionAt(src, v)) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace migrate::rules
