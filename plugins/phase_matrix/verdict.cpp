// Step 6: infeasible (an error without NPU alternative that needs hand work), hard (a large
// manual high-difficulty bottleneck, or too many weeks), needs adaptation (any manual work),
// feasible (everything has an automatic fix).

#include "verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bottleneck_order.hpp"

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

/// Tolerance for effort sums compared with thresholds (0.1 + 0.2 is not 0.3 in binary).
constexpr double kEpsilon = 1e-9;
/// Blockers listed by name when error-level manual work decides "needs adaptation".
constexpr std::size_t kMaxBlockers = 5;

bool manual(const Bottleneck& b) {
  return !b.autofix;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

/// "#001 Title": how a blocker names its bottleneck.
std::string label(const Bottleneck& b) {
  return b.id + " " + b.title;
}

/// The bottleneck's APIs, or its rule id when it has none.
std::string apisOf(const Bottleneck& b) {
  return b.apis.empty() ? b.rule_id : joined(b.apis, ", ");
}

Verdict infeasible(const std::vector<GoalMember>& members) {
  Verdict v{"infeasible", {}};
  for (const GoalMember& m : members) {
    const Bottleneck& b = *m.bottleneck;
    if (b.severity == Severity::Error && manual(b) && b.npu_alternative.empty())
      v.blockers.push_back(label(b) + ": " + apisOf(b) + " has no NPU alternative");
  }
  return v;
}

Verdict hard(const std::vector<GoalMember>& members, double effort_weeks, const EffortSettings& effort) {
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

std::string adaptation(const Bottleneck& b) {
  return label(b) + ": " + apisOf(b) + (b.npu_alternative.empty() ? "" : " → " + b.npu_alternative) +
         " (manual)";
}

Verdict needsAdaptation(const std::vector<GoalMember>& members) {
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

}  // namespace

std::string formatNumber(double value) {
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

Verdict judge(const std::vector<GoalMember>& members, double effort_weeks, const EffortSettings& effort) {
  if (Verdict v = infeasible(members); !v.blockers.empty()) return v;
  if (Verdict v = hard(members, effort_weeks, effort); !v.blockers.empty()) return v;
  if (std::any_of(members.begin(), members.end(), [](const GoalMember& m) { return manual(*m.bottleneck); }))
    return needsAdaptation(members);
  return {"feasible", {}};
}

}  // namespace phase_matrix
