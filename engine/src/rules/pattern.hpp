#pragma once
/// The regular expressions of rule files (docs/writing-rules.md): search semantics, `(?i)` at the
/// start for case-insensitive. They run on RE2 (linear time, no backtracking blow-up on hostile
/// input, several times faster than std::regex on the per-string path). A pattern RE2 cannot run
/// (lookahead) keeps ECMAScript meaning: RE2 runs it without its lookaheads, a superset, and a
/// string that passes is checked alternative by alternative, again on RE2: at each position, the
/// part before the lookahead ends there, the lookahead does (not) match there and the rest starts
/// there. Shapes that check cannot take (a lookahead inside a group or repeated, two in one
/// alternative, a backreference, `(?i)` on non-ASCII text) are refused: only a backtracking matcher
/// could run them, and it recurses once per character of the string.

#include <memory>
#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"

namespace re2 {
class RE2;
}

namespace migrate::rules {

class Pattern {
 public:
  /// Compiles `text`; the error says why it is not a valid regular expression, or why it cannot be
  /// checked in linear time (a phrase that follows the pattern's name: "is not a valid ...").
  static Result<Pattern> compile(const std::string& text);

  /// True when the expression matches somewhere in `s`.
  bool search(std::string_view s) const;
  /// The expression as written in the rule file.
  const std::string& text() const { return text_; }
  /// The expression on RE2, or a superset of it (its lookaheads left out): whatever it does not
  /// match, search() does not either. Null when there is none.
  const re2::RE2* superset() const;

 private:
  struct Compiled;
  std::string text_;
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace migrate::rules
