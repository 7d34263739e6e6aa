#include "rules/pattern_set.hpp"

#include <re2/set.h>

namespace migrate::rules {

struct PatternSet::Compiled {
  explicit Compiled(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
  std::vector<std::size_t> index;   ///< the set's i-th expression is pattern index[i]
  std::vector<std::size_t> always;  ///< patterns the set does not hold: they always may match
};

PatternSet::PatternSet(const std::vector<const Pattern*>& patterns) : size_(patterns.size()) {
  if (patterns.empty()) return;
  RE2::Options options;  // Pattern's own: RE2's defaults, errors not logged
  options.set_log_errors(false);
  auto compiled = std::make_unique<Compiled>(options);
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const RE2* superset = patterns[i] ? patterns[i]->superset() : nullptr;
    if (!superset || compiled->set.Add(superset->pattern(), nullptr) < 0) {
      compiled->always.push_back(i);
      continue;
    }
    compiled->index.push_back(i);
  }
  if (compiled->set.Compile()) compiled_ = std::move(compiled);
}

PatternSet::PatternSet() = default;
PatternSet::~PatternSet() = default;
PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;

std::vector<unsigned char> PatternSet::mayMatch(std::string_view s) const {
  if (!compiled_ || compiled_->index.empty()) return std::vector<unsigned char>(size_, 0);
  std::vector<unsigned char> flags(size_, 1);
  for (const std::size_t i : compiled_->always) flags[i] = 0;
  std::vector<int> hits;
  RE2::Set::ErrorInfo error{};
  if (!compiled_->set.Match(re2::StringPiece(s.data(), s.size()), &hits, &error) &&
      error.kind != RE2::Set::kNoError)
    return std::vector<unsigned char>(size_, 0);  // the matcher gave up: let every pattern decide
  for (const int h : hits) flags[compiled_->index[static_cast<std::size_t>(h)]] = 0;
  return flags;
}

}  // namespace migrate::rules
