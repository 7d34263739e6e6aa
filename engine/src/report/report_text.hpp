#pragma once
/// Markdown text for the report: table cells, code spans and fences that survive any input
/// (pipes, backticks, newlines, control characters), and numbers formatted one way.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace migrate::report {

/// One line of text: newlines and tabs become spaces, other control characters are dropped.
inline std::string oneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f)
      out += c;
  }
  return out;
}

/// Text for a table cell: one line, pipes escaped, never empty (an em dash).
inline std::string cell(std::string_view text) {
  std::string out;
  for (char c : oneLine(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out.empty() ? "—" : out;
}

/// The longest run of `c` in `text`.
inline std::size_t longestRun(std::string_view text, char c) {
  std::size_t best = 0, run = 0;
  for (char x : text) {
    run = x == c ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

/// An inline code span on one line, with as many backticks as it needs (table-safe).
inline std::string code(std::string_view text) {
  const std::string line = oneLine(text);
  if (line.empty()) return "—";
  const std::string ticks(longestRun(line, '`') + 1, '`');
  const bool pad = line.front() == '`' || line.back() == '`';
  std::string out = ticks + (pad ? " " : "") + line + (pad ? " " : "") + ticks;
  std::string escaped;
  for (char c : out) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

/// A code fence longer than any backtick run in `text` (at least three backticks).
inline std::string fenceFor(std::string_view text) {
  return std::string(std::max<std::size_t>(3, longestRun(text, '`') + 1), '`');
}

/// A number of days or weeks: at most two decimals, trailing zeros dropped ("0.5", "2", "1.25").
inline std::string number(double value) {
  std::string s = fmt::format("{:.2f}", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

/// The anchor a Markdown renderer (GitHub's) gives a heading: lower case, spaces to hyphens,
/// punctuation other than hyphens and underscores dropped (bytes of UTF-8 characters kept).
inline std::string anchorOf(std::string_view heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || u >= 0x80)
      out += c;
    else if (c == ' ')
      out += '-';
  }
  return out;
}

/// `items` separated by ", ", at most `max` of them, then " and N more" + `more`.
inline std::string joined(const std::vector<std::string>& items, std::size_t max = SIZE_MAX,
                          std::string_view more = "") {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += " and " + std::to_string(items.size() - max) + " more" + std::string(more);
  return out;
}

/// "1 place" / "3 places".
inline std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace migrate::report
