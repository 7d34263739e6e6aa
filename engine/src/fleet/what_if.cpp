#include "fleet/what_if.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "migrate/sdk/verdict.hpp"

namespace migrate::fleet {
namespace {

using Json = nlohmann::json;

/// The verdict of `members` with their places as given (sdk::judge over the members with places).
std::string judgeMembers(const std::vector<PlanMember>& members, const std::vector<std::size_t>& places,
                         const sdk::EffortSettings& effort) {
  std::vector<sdk::GoalMember> goal;
  double days = 0.0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (places[i] == 0) continue;
    goal.push_back({&members[i].bottleneck, places[i]});
    days += goal.back().effort();
  }
  days = std::round(days * 100.0) / 100.0;  // as the plan stage rounds a goal's person-days
  return sdk::judge(goal, effort.weeksFor(days), effort).verdict;
}

std::vector<std::size_t> placesOf(const std::vector<PlanMember>& members) {
  std::vector<std::size_t> places;
  for (const PlanMember& m : members) places.push_back(m.places);
  return places;
}

}  // namespace

std::string normalizedPackage(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (separator) {
      if (!out.empty() && out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string packageOf(const sdk::Finding& f) {
  if (auto it = f.details.find("package"); it != f.details.end() && !it->second.empty())
    return normalizedPackage(it->second);
  return normalizedPackage(f.api.substr(0, f.api.find('.')));  // an import: its top-level module
}

std::optional<PlanInputs> planInputsOf(const MigrationModel& model, const PlanSpec& plan) {
  if (!model.plan.assessment) return std::nullopt;
  const sdk::Assessment& assessment = *model.plan.assessment;
  PlanInputs in;
  in.effort = plan.effort;
  // The chosen goal's spec, when the assessment judged that goal (else chosen() is the full migration).
  const sdk::GoalSpec* goal = nullptr;
  if (&assessment.chosen() != &assessment.full)
    for (const sdk::GoalSpec& g : plan.goals)
      if (g.name == assessment.chosen_goal) goal = &g;
  in.goal = goal ? goal->name : "full";
  in.verdict = assessment.chosen().verdict;
  const std::set<std::string> wanted =
      goal ? std::set<std::string>(goal->phases.begin(), goal->phases.end()) : std::set<std::string>{};
  const auto& bottlenecks = model.plan.bottlenecks;
  for (std::size_t index : sdk::idOrder(bottlenecks)) {
    const sdk::Bottleneck& b = bottlenecks[index];
    if (goal && std::find(goal->exclude_domains.begin(), goal->exclude_domains.end(), b.domain) !=
                    goal->exclude_domains.end())
      continue;
    PlanMember m;
    for (std::size_t f : b.findings) {
      if (f >= model.findings.size()) continue;
      const sdk::Finding& finding = model.findings[f];
      const bool counted = !goal || std::any_of(finding.phases.begin(), finding.phases.end(),
                                                [&](const std::string& p) { return wanted.count(p) > 0; });
      if (!counted) continue;
      ++m.places;
      if (b.domain == "deps") ++m.packages[packageOf(finding)];
    }
    if (m.places == 0) continue;
    m.bottleneck = b;
    m.bottleneck.findings.clear();
    m.bottleneck.steps.clear();
    in.members.push_back(std::move(m));
  }
  // The plan stage's verdict again, from these inputs: else the what-if would not be its model's.
  if (judgeMembers(in.members, placesOf(in.members), in.effort) != in.verdict) return std::nullopt;
  return in;
}

std::string encodePlanInputs(const PlanInputs& in) {
  Json members = Json::array();
  for (const PlanMember& m : in.members) {
    const sdk::Bottleneck& b = m.bottleneck;
    // What the verdict reads, no more: a store keeps one of these per run.
    Json j{{"id", b.id},
           {"rule", b.rule_id},
           {"alternative", !b.npu_alternative.empty()},
           {"severity", sdk::toString(b.severity)},
           {"difficulty", sdk::toString(b.difficulty)},
           {"autofix", b.autofix},
           {"first", b.effort_first},
           {"each", b.effort_each},
           {"places", m.places}};
    if (!m.packages.empty()) j["packages"] = m.packages;
    members.push_back(std::move(j));
  }
  const Json doc{{"goal", in.goal},
                 {"verdict", in.verdict},
                 {"effort",
                  {{"days_per_week", in.effort.days_per_week},
                   {"integration_factor", in.effort.integration_factor},
                   {"hard_weeks", in.effort.hard_weeks},
                   {"hard_bottleneck_days", in.effort.hard_bottleneck_days}}},
                 {"members", std::move(members)}};
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<PlanInputs> decodePlanInputs(const std::string& text) {
  try {
    const Json doc = Json::parse(text);
    PlanInputs in;
    in.goal = doc.at("goal").get<std::string>();
    in.verdict = doc.at("verdict").get<std::string>();
    const Json& e = doc.at("effort");
    in.effort.days_per_week = e.at("days_per_week").get<double>();
    in.effort.integration_factor = e.at("integration_factor").get<double>();
    in.effort.hard_weeks = e.at("hard_weeks").get<double>();
    in.effort.hard_bottleneck_days = e.at("hard_bottleneck_days").get<double>();
    for (const Json& j : doc.at("members")) {
      PlanMember m;
      sdk::Bottleneck& b = m.bottleneck;
      b.id = j.at("id").get<std::string>();
      b.rule_id = j.at("rule").get<std::string>();
      b.npu_alternative = j.at("alternative").get<bool>() ? "yes" : "";  // only whether there is one counts
      b.severity =
          sdk::severityFromString(j.at("severity").get<std::string>()).value_or(sdk::Severity::Warning);
      b.difficulty = sdk::levelFromString(j.at("difficulty").get<std::string>()).value_or(sdk::Level::Medium);
      b.autofix = j.at("autofix").get<bool>();
      b.effort_first = j.at("first").get<double>();
      b.effort_each = j.at("each").get<double>();
      m.places = j.at("places").get<std::size_t>();
      if (j.contains("packages")) m.packages = j.at("packages").get<std::map<std::string, std::size_t>>();
      in.members.push_back(std::move(m));
    }
    return in;
  } catch (const std::exception& e) {
    return makeError(std::string("unreadable plan inputs in the fleet store: ") + e.what());
  }
}

std::string verdictIf(const PlanInputs& in, const Solved& solved) {
  std::vector<std::size_t> places = placesOf(in.members);
  for (std::size_t i = 0; i < in.members.size(); ++i) {
    const PlanMember& m = in.members[i];
    if (!solved.rule.empty() && m.bottleneck.rule_id == solved.rule) places[i] = 0;
    if (!solved.package.empty())
      if (auto it = m.packages.find(solved.package); it != m.packages.end())
        places[i] -= std::min(places[i], it->second);
  }
  return judgeMembers(in.members, places, in.effort);
}

int verdictRank(const std::string& verdict) {
  static const char* const kOrder[] = {"infeasible", "hard", "needs adaptation", "feasible"};
  for (int i = 0; i < 4; ++i)
    if (verdict == kOrder[i]) return i;
  return -1;
}

}  // namespace migrate::fleet
