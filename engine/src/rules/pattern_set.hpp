#pragma once
/// Several rule patterns tried on a string in one pass: which of them may match it. A prefilter in
/// front of Pattern::search, which still decides: a string that no pattern can match (most string
/// literals of a file) costs one pass of RE2's set matcher instead of a check per rule.

#include <memory>
#include <string_view>
#include <vector>

#include "rules/pattern.hpp"

namespace migrate::rules {

class PatternSet {
 public:
  PatternSet();
  /// The patterns are read here and not kept; a null one always may match.
  explicit PatternSet(const std::vector<const Pattern*>& patterns);
  ~PatternSet();
  PatternSet(PatternSet&&) noexcept;
  PatternSet& operator=(PatternSet&&) noexcept;

  /// One flag per pattern, in order: 0 where the pattern may match `s`, 1 where it cannot. A
  /// pattern without an RE2 form always may, and every pattern may when the set could not be
  /// built or run (the matcher out of memory): the flags are a shortcut, never a verdict.
  std::vector<unsigned char> mayMatch(std::string_view s) const;

 private:
  struct Compiled;
  std::size_t size_ = 0;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace migrate::rules
