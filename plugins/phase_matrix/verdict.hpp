#pragma once
// Step 6 of the phase matrix: the verdict of a goal result and the blockers that decide it.

#include <cstddef>
#include <string>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// A bottleneck a goal result needs, and how many of its places (findings) the goal needs.
struct GoalMember {
  const migrate::sdk::Bottleneck* bottleneck = nullptr;
  std::size_t places = 0;

  /// Person-days for those places.
  double effort() const { return bottleneck->effortFor(places); }
};

/// The verdict and the sentences that decide it.
struct Verdict {
  std::string verdict;  ///< "feasible" | "needs adaptation" | "hard" | "infeasible"
  std::vector<std::string> blockers;
};

/// A number as reports write it: at most two decimals, no trailing zeros ("0.5", "1.25", "3").
std::string formatNumber(double value);

/// Judges the members (in id order) of a result whose total is `effort_weeks`.
Verdict judge(const std::vector<GoalMember>& members, double effort_weeks,
              const migrate::sdk::EffortSettings& effort);

}  // namespace phase_matrix
