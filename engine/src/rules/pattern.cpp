#include "rules/pattern.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace migrate::rules {
namespace {

/// One top-level alternative of an expression with a lookahead, `X(?!L)Y` or `X(?=L)Y`, matched
/// without backtracking: it matches where, at some position, X ends, L does (not) match and Y
/// starts. Each part runs on RE2, so the check is linear in the positions tried and never recurses.
struct Branch {
  std::unique_ptr<RE2> whole;       ///< an alternative without a lookahead: matched as it is
  std::unique_ptr<RE2> joined;      ///< X then Y: without a match of it there is none with L
  std::unique_ptr<RE2> before;      ///< X and one more character at the end of the text
  std::unique_ptr<RE2> before_end;  ///< X at the end of the text
  std::unique_ptr<RE2> ahead;       ///< L, from the position
  std::unique_ptr<RE2> after;       ///< Y, from the position
  bool negative = false;
  bool anywhere = false;    ///< X is empty: any position
  bool from_start = false;  ///< X starts with `^`, left out of before/before_end: their match must
                            ///< start at 0 (RE2 reads them backwards from the position, not forwards
                            ///< from the start of the text each time)
};

}  // namespace

struct Pattern::Compiled {
  std::unique_ptr<RE2> fast;     ///< the expression, or a superset of it (see branches)
  std::vector<Branch> branches;  ///< when set: the expression with its lookaheads decides
};

namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

/// The parts of a lookahead expression run as bytes, as std::regex reads a string.
RE2::Options byteOptions() {
  RE2::Options o = options();
  o.set_encoding(RE2::Options::EncodingLatin1);
  return o;
}

/// `text` without its lookahead groups `(?=…)` and `(?!…)`: every string the expression matches
/// is matched by the result. Escapes and character classes are respected.
std::string withoutLookaheads(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "(?=") != 0 && text.compare(i, 3, "(?!") != 0) {
      out += text[i];
      if (text[i] == '\\' && i + 1 < text.size()) out += text[++i];
      continue;
    }
    int depth = 0;
    bool in_class = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\\') {
        ++i;
      } else if (in_class) {
        in_class = c != ']';
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        break;
      }
    }
  }
  return out;
}

/// Whether `text` has a backreference (`\1` to `\9`), which RE2 does not run.
bool hasBackreference(std::string_view text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '\\') {
      if (text[i + 1] >= '1' && text[i + 1] <= '9') return true;
      ++i;
    }
  return false;
}

/// A part of an ECMAScript expression in RE2's syntax with the same meaning: `\s` and `\S` as the
/// POSIX class (RE2's `\s` leaves out \v), `.` as `[^\n\r]` (RE2's `.` takes \r).
std::string ecmaPart(std::string_view text) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char e = text[++i];
      if (e == 's' || e == 'S')
        out +=
            in_class ? (e == 's' ? "[:space:]" : "[:^space:]") : (e == 's' ? "[[:space:]]" : "[^[:space:]]");
      else
        out.append({c, e});
      continue;
    }
    if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '.') {
      out += "[^\\n\\r]";
      continue;
    }
    out += c;
  }
  return out;
}

/// Where the group opened at `open` closes (npos when it does not), and whether a lookahead
/// opens inside it.
std::size_t groupEnd(std::string_view text, std::size_t open, bool& inner_lookahead) {
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      if (i != open && (text.compare(i, 3, "(?=") == 0 || text.compare(i, 3, "(?!") == 0))
        inner_lookahead = true;
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

/// The top-level alternatives of `text`.
std::vector<std::string_view> alternatives(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool in_class = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

std::unique_ptr<RE2> part(const std::string& flags, const std::string& text) {
  auto re = std::make_unique<RE2>(flags + text, byteOptions());
  return re->ok() ? std::move(re) : nullptr;
}

/// The alternative `text` as a Branch; nothing when its shape is not one Branch handles: a
/// lookahead inside a group, repeated, holding another, or two in one alternative.
std::optional<Branch> branch(const std::string& flags, std::string_view text) {
  std::size_t look = std::string_view::npos, close = 0;
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' && (text.compare(i, 3, "(?=") == 0 || text.compare(i, 3, "(?!") == 0)) {
      if (depth != 0 || look != std::string_view::npos) return std::nullopt;
      bool inner = false;
      look = i;
      close = groupEnd(text, i, inner);
      if (close == std::string_view::npos || inner) return std::nullopt;
      if (close + 1 < text.size() && std::string_view("*+?{").find(text[close + 1]) != std::string_view::npos)
        return std::nullopt;
      i = close;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    }
  }
  Branch b;
  if (look == std::string_view::npos) {
    b.whole = part(flags, ecmaPart(text));
    return b.whole ? std::optional<Branch>(std::move(b)) : std::nullopt;
  }
  std::string_view head = text.substr(0, look);
  b.from_start = head.size() >= 1 && head[0] == '^' &&
                 (head.size() == 1 || std::string_view("*+?{").find(head[1]) == std::string_view::npos);
  const std::string x = "(?:" + ecmaPart(text.substr(0, look)) + ")";
  const std::string x_end = b.from_start ? "(?:" + ecmaPart(head.substr(1)) + ")" : x;
  const std::string l = "(?:" + ecmaPart(text.substr(look + 3, close - look - 3)) + ")";
  const std::string y = "(?:" + ecmaPart(text.substr(close + 1)) + ")";
  b.negative = text[look + 2] == '!';
  b.anywhere = look == 0;
  b.joined = part(flags, x + y);
  b.before = part(flags, x_end + "(?s:.)$");
  b.before_end = part(flags, x_end + "$");
  b.ahead = part(flags, l);
  b.after = part(flags, y);
  if (!b.joined || !b.before || !b.before_end || !b.ahead || !b.after) return std::nullopt;
  return b;
}

/// The expression `text` as branches (see Branch); nothing when one of them has another shape, when
/// it is case-insensitive and not ASCII (RE2 folds the case of Latin-1 letters, std::regex of ASCII
/// ones only), or when a class starts with ']'.
std::vector<Branch> branches(const std::string& text) {
  // `[]` and `[^]` are classes of their own in ECMAScript, while RE2 reads the ']' as a member.
  if (text.find("[]") != std::string::npos || text.find("[^]") != std::string::npos) return {};
  std::string_view body = text;
  std::string flags;
  if (body.rfind("(?i)", 0) == 0) {
    body.remove_prefix(4);
    flags = "(?i)";
    if (std::any_of(body.begin(), body.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      return {};
  }
  std::vector<Branch> out;
  for (std::string_view alternative : alternatives(body)) {
    auto b = branch(flags, alternative);
    if (!b) return {};
    out.push_back(std::move(*b));
  }
  return out;
}

/// Whether a match of X ends at `i`: up to it with the character at `i` after it, or up to the end.
/// RE2 reads an expression anchored at the end backwards from there.
bool endsAt(const Branch& b, std::string_view s, std::size_t i) {
  const bool last = i == s.size();
  const re2::StringPiece upto(s.data(), last ? i : i + 1);
  const RE2& re = last ? *b.before_end : *b.before;
  if (!b.from_start) return re.Match(upto, 0, upto.size(), RE2::UNANCHORED, nullptr, 0);
  re2::StringPiece match;  // the earliest start of a match ending there
  return re.Match(upto, 0, upto.size(), RE2::UNANCHORED, &match, 1) && match.data() == s.data();
}

bool matches(const Branch& b, std::string_view s) {
  const re2::StringPiece text(s.data(), s.size());
  if (b.whole) return RE2::PartialMatch(text, *b.whole);
  if (!RE2::PartialMatch(text, *b.joined)) return false;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (!b.anywhere && !endsAt(b, s, i)) continue;
    if (b.ahead->Match(text, i, s.size(), RE2::ANCHOR_START, nullptr, 0) == b.negative) continue;
    if (b.after->Match(text, i, s.size(), RE2::ANCHOR_START, nullptr, 0)) return true;
  }
  return false;
}

}  // namespace

Result<Pattern> Pattern::compile(const std::string& text) {
  auto compiled = std::make_shared<Compiled>();
  compiled->fast = std::make_unique<RE2>(text, options());
  if (!compiled->fast->ok()) {
    compiled->branches = branches(text);
    compiled->fast = std::make_unique<RE2>(withoutLookaheads(text), options());
    if (compiled->branches.empty()) {
      if (!compiled->fast->ok() && !hasBackreference(text))
        return makeError("is not a valid regular expression: " + compiled->fast->error());
      // Only a backtracking matcher could check it, and it would recurse once per character of a
      // string from the repository (libstdc++'s std::regex overflows the stack at some 30,000).
      return makeError(
          "needs a lookahead inside a group or repetition, two lookaheads in one alternative, a "
          "backreference, or (?i) on non-ASCII text, which cannot be checked in linear time: write at "
          "most one lookahead per alternative, outside groups (docs/writing-rules.md)");
    }
    if (!compiled->fast->ok()) compiled->fast.reset();
  }
  Pattern p;
  p.text_ = text;
  p.compiled_ = std::move(compiled);
  return p;
}

const re2::RE2* Pattern::superset() const {
  return compiled_->fast.get();
}

bool Pattern::search(std::string_view s) const {
  if (compiled_->fast && !RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *compiled_->fast))
    return false;
  return compiled_->branches.empty() || std::any_of(compiled_->branches.begin(), compiled_->branches.end(),
                                                    [&](const Branch& b) { return matches(b, s); });
}

}  // namespace migrate::rules
