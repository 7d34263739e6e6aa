#pragma once
/// The in-tree plugins' regular expressions on RE2: linear time and no recursion, so a hostile
/// source (a word of megabytes) cannot overflow the stack as std::regex did (libstdc++'s matcher
/// recursed once per character). Patterns read bytes (Latin-1), as std::regex reads a std::string,
/// and keep its leftmost-first alternation. Written for std::regex's ECMAScript meaning, a pattern
/// says `[[:space:]]` for `\s` (RE2's `\s` leaves out \v) and `[^\n\r]` for `.` (RE2's `.` takes
/// \r); `\w`, `\d`, `\b`, `^` and `$` (without multi-line) mean the same in both.
///
/// Not part of the SDK: out-of-tree plugins build against it without RE2.

#include <re2/re2.h>

#include <string>
#include <string_view>
#include <vector>

namespace plugin_support {

inline RE2::Options bytePattern() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

/// Calls `on(groups)` for each match of `re` in `text`, left to right, as std::sregex_iterator
/// does; groups[0] is the whole match, an unmatched group has a null data().
template <typename F>
void forEachMatch(const RE2& re, std::string_view text, F&& on) {
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(re.NumberOfCapturingGroups()) + 1);
  const re2::StringPiece input(text.data(), text.size());
  for (std::size_t pos = 0; pos <= text.size() && re.Match(input, pos, text.size(), RE2::UNANCHORED,
                                                           groups.data(), static_cast<int>(groups.size()));) {
    on(groups);
    const auto end = static_cast<std::size_t>(groups[0].data() - text.data()) + groups[0].size();
    pos = groups[0].empty() ? end + 1 : end;
  }
}

/// The text of a group (empty when it did not take part in the match).
inline std::string str(const re2::StringPiece& group) {
  return group.data() ? std::string(group.data(), group.size()) : std::string();
}

}  // namespace plugin_support
