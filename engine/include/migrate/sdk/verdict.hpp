#pragma once
/// The verdict model of a migration goal: which bottlenecks decide "infeasible", "hard", "needs
/// adaptation" or "feasible", and the sentences (blockers) that say why. The phase_matrix plugin
/// judges each goal with it; `fleet report` judges the same members again with one rule or one
/// dependency solved (what-if), so both read the same model.
///
/// infeasible: an error without NPU alternative that needs hand work; hard: a large manual
/// high-difficulty bottleneck, or too many weeks; needs adaptation: any manual work; feasible:
/// everything has an automatic fix.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace migrate::sdk {

/// True when id `a` comes before id `b`: the shorter first ("#999" before "#1000"), then by text.
inline bool idBefore(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

/// An effort in person-days as a sort key: efforts equal to six decimals sort as equal (0.1 + 0.2
/// and 0.3 tie), so the next key decides.
inline long long effortKey(double days) {
  return std::llround(days * 1e6);
}

/// Indices into `bottlenecks` in id order (equal ids keep their list order).
inline std::vector<std::size_t> idOrder(const std::vector<Bottleneck>& bottlenecks) {
  std::vector<std::size_t> order(bottlenecks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return idBefore(bottlenecks[a].id, bottlenecks[b].id);
  });
  return order;
}

/// A bottleneck a goal result needs, and how many of its places (findings) the goal needs.
struct GoalMember {
  const Bottleneck* bottleneck = nullptr;
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
inline std::string formatNumber(double value) {
  if (!std::isfinite(value)) return "0";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", std::round(value * 100.0) / 100.0);
  std::string text(buffer);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

namespace verdict_detail {

/// Tolerance for effort sums compared with thresholds (0.1 + 0.2 is not 0.3 in binary).
inline constexpr double kEpsilon = 1e-9;
/// Blockers listed by name when error-level manual work decides "needs adaptation".
inline constexpr std::size_t kMaxBlockers = 5;

inline bool manual(const Bottleneck& b) {
  return !b.autofix;
}

inline std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

/// "#001 Title": how a blocker names its bottleneck.
inline std::string label(const Bottleneck& b) {
  return b.id + " " + b.title;
}

/// The bottleneck's APIs, or its rule id when it has none.
inline std::string apisOf(const Bottleneck& b) {
  return b.apis.empty() ? b.rule_id : joined(b.apis, ", ");
}

inline Verdict infeasible(const std::vector<GoalMember>& members) {
  Verdict v{"infeasible", {}};
  for (const GoalMember& m : members) {
    const Bottleneck& b = *m.bottleneck;
    if (b.severity == Severity::Error && manual(b) && b.npu_alternative.empty())
      v.blockers.push_back(label(b) + ": " + apisOf(b) + " has no NPU alternative");
  }
  return v;
}

inline Verdict hard(const std::vector<GoalMember>& members, double effort_weeks,
                    const EffortSettings& effort) {
  Verdict v{"hard", {}};
  for (const GoalMember& m : members) {
    const Bottleneck& b = *m.bottleneck;
    if (manual(b) && b.difficulty == Level::High && m.effort() + kEpsilon >= effort.hard_bottleneck_days)
      v.blockers.push_back(label(b) + ": high difficulty, " + formatNumber(m.effort()) +
                           " person-days (manual)");
  }
  if (effort_weeks > effort.hard_weeks + kEpsilon)
    v.blockers.push_back("total effort " + formatNumber(effort_weeks) + " weeks exceeds " +
                         formatNumber(effort.hard_weeks) + " weeks");
  return v;
}

inline std::string adaptation(const Bottleneck& b) {
  return label(b) + ": " + apisOf(b) + (b.npu_alternative.empty() ? "" : " → " + b.npu_alternative) +
         " (manual)";
}

inline Verdict needsAdaptation(const std::vector<GoalMember>& members) {
  Verdict v{"needs adaptation", {}};
  std::vector<const GoalMember*> manual_members;
  for (const GoalMember& m : members)
    if (manual(*m.bottleneck)) manual_members.push_back(&m);
  std::size_t errors = 0;
  for (const GoalMember* m : manual_members)
    if (m->bottleneck->severity == Severity::Error && ++errors <= kMaxBlockers)
      v.blockers.push_back(adaptation(*m->bottleneck));
  if (errors > kMaxBlockers)
    v.blockers.push_back("… and " + std::to_string(errors - kMaxBlockers) +
                         " more manual bottlenecks of severity error");
  if (!v.blockers.empty()) return v;
  std::stable_sort(manual_members.begin(), manual_members.end(),
                   [](const GoalMember* a, const GoalMember* b) {
                     if (effortKey(a->effort()) != effortKey(b->effort()))
                       return effortKey(a->effort()) > effortKey(b->effort());
                     return idBefore(a->bottleneck->id, b->bottleneck->id);
                   });
  for (std::size_t i = 0; i < manual_members.size() && i < 3; ++i)
    v.blockers.push_back(adaptation(*manual_members[i]->bottleneck));
  return v;
}

}  // namespace verdict_detail

/// Judges the members (in id order) of a result whose total is `effort_weeks`.
inline Verdict judge(const std::vector<GoalMember>& members, double effort_weeks,
                     const EffortSettings& effort) {
  using namespace verdict_detail;
  if (Verdict v = infeasible(members); !v.blockers.empty()) return v;
  if (Verdict v = hard(members, effort_weeks, effort); !v.blockers.empty()) return v;
  if (std::any_of(members.begin(), members.end(), [](const GoalMember& m) { return manual(*m.bottleneck); }))
    return needsAdaptation(members);
  return {"feasible", {}};
}

}  // namespace migrate::sdk
