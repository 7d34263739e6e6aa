#include "pipeline/plan_spec.hpp"

#include <algorithm>
#include <set>
#include <string_view>

std::string_view migrateEmbeddedData(std::string_view name);

namespace migrate {
namespace {

const std::vector<std::string> kLevels{"low", "medium", "high"};

bool isIdentifier(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

double nonNegative(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  const double v = r.number(n, what);
  if (v < 0) r.fail(n, what + " must not be negative");
  return v;
}

void readRate(const yaml::Reader& r, const YAML::Node& n, const std::string& what, EffortRate& rate) {
  r.requireMap(n, what);
  r.checkKeys(n, {"first", "each"}, what);
  if (n["first"]) rate.first = nonNegative(r, n["first"], what + ".first");
  if (n["each"]) rate.each = nonNegative(r, n["each"], what + ".each");
}

void readEffort(const yaml::Reader& r, const YAML::Node& n, PlanSpec& spec) {
  r.requireMap(n, "plan.effort");
  r.checkKeys(
      n, {"days_per_week", "integration_factor", "hard_weeks", "hard_bottleneck_days", "difficulty", "rules"},
      "plan.effort");
  sdk::EffortSettings& e = spec.effort;
  if (n["days_per_week"]) {
    e.days_per_week = r.number(n["days_per_week"], "plan.effort.days_per_week");
    if (e.days_per_week <= 0 || e.days_per_week > 7)
      r.fail(n["days_per_week"], "plan.effort.days_per_week must be between 0 (exclusive) and 7");
  }
  if (n["integration_factor"])
    e.integration_factor = nonNegative(r, n["integration_factor"], "plan.effort.integration_factor");
  if (n["hard_weeks"]) e.hard_weeks = nonNegative(r, n["hard_weeks"], "plan.effort.hard_weeks");
  if (n["hard_bottleneck_days"])
    e.hard_bottleneck_days = nonNegative(r, n["hard_bottleneck_days"], "plan.effort.hard_bottleneck_days");
  if (const YAML::Node d = n["difficulty"]) {
    r.requireMap(d, "plan.effort.difficulty");
    r.checkKeys(d, kLevels, "plan.effort.difficulty");
    for (const auto& level : kLevels)
      if (d[level]) readRate(r, d[level], "plan.effort.difficulty." + level, spec.difficulty[level]);
  }
  if (const YAML::Node rules = n["rules"]; rules && !rules.IsNull()) {
    r.requireMap(rules, "plan.effort.rules");
    for (auto it = rules.begin(); it != rules.end(); ++it) {
      const std::string id = it->first.Scalar();
      EffortRate rate;
      readRate(r, it->second, "plan.effort.rules." + id, rate);
      if (!it->second["first"])
        r.fail(it->second, "plan.effort.rules." + id + " needs `first` (person-days)");
      if (!it->second["each"]) rate.each = rate.first;
      spec.rules[id] = rate;
    }
  }
}

std::vector<sdk::PhaseSpec> readPhases(const yaml::Reader& r, const YAML::Node& n) {
  if (!n.IsSequence() || n.size() == 0)
    r.fail(n, "plan.phases must be a non-empty list of {name, title, entry_points, domains}");
  std::vector<sdk::PhaseSpec> phases;
  std::set<std::string> seen;
  for (const auto& p : n) {
    r.requireMap(p, "a phase");
    r.checkKeys(p, {"name", "title", "entry_points", "domains"}, "a phase");
    r.requireKeys(p, {"name"}, "a phase");
    sdk::PhaseSpec phase;
    phase.name = r.string(p["name"], "a phase's name");
    if (!isIdentifier(phase.name))
      r.fail(p["name"], "a phase's name is lowercase letters, digits and '_' (e.g. train)");
    if (!seen.insert(phase.name).second) r.fail(p["name"], "phase '" + phase.name + "' is declared twice");
    phase.title = p["title"] ? r.string(p["title"], "a phase's title") : phase.name;
    if (p["entry_points"]) phase.entry_points = r.stringList(p["entry_points"], "entry_points");
    if (p["domains"]) phase.domains = r.stringList(p["domains"], "domains");
    phases.push_back(std::move(phase));
  }
  return phases;
}

void readGoals(const yaml::Reader& r, const YAML::Node& n, std::vector<sdk::GoalSpec>& goals) {
  r.requireMap(n, "plan.goals");
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string name = it->first.Scalar();
    if (!isIdentifier(name)) r.fail(it->first, "a goal's name is lowercase letters, digits and '_'");
    auto existing = std::find_if(goals.begin(), goals.end(), [&](const auto& g) { return g.name == name; });
    if (it->second.IsNull()) {  // `name: null` removes a default goal
      if (existing != goals.end()) goals.erase(existing);
      continue;
    }
    const YAML::Node g = it->second;
    r.requireMap(g, "plan.goals." + name);
    r.checkKeys(g, {"title", "phases", "exclude_domains"}, "plan.goals." + name);
    r.requireKeys(g, {"phases"}, "plan.goals." + name);
    sdk::GoalSpec goal;
    goal.name = name;
    goal.title = g["title"] ? r.string(g["title"], "plan.goals." + name + ".title") : name;
    goal.phases = r.stringList(g["phases"], "plan.goals." + name + ".phases");
    if (g["exclude_domains"])
      goal.exclude_domains = r.stringList(g["exclude_domains"], "plan.goals." + name + ".exclude_domains");
    if (existing != goals.end())
      *existing = std::move(goal);
    else
      goals.push_back(std::move(goal));
  }
}

/// Goals name known phases, the chosen goal exists, every difficulty has a rate.
void validate(const yaml::Reader& r, const YAML::Node& at, const PlanSpec& spec) {
  for (const auto& goal : spec.goals)
    for (const auto& phase : goal.phases)
      if (std::none_of(spec.phases.begin(), spec.phases.end(),
                       [&](const auto& p) { return p.name == phase; })) {
        std::vector<std::string> names;
        for (const auto& p : spec.phases) names.push_back(p.name);
        const std::string hint = yaml::closest(phase, names);
        const YAML::Node declared = at["goals"] ? at["goals"][goal.name] : YAML::Node();
        r.fail(declared && declared["phases"] ? declared["phases"] : at,
               "goal '" + goal.name + "' needs phase '" + phase + "', which plan.phases does not declare" +
                   (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      }
  if (spec.goals.empty()) r.fail(at, "plan.goals is empty; declare at least one goal");
  if (std::none_of(spec.goals.begin(), spec.goals.end(),
                   [&](const auto& g) { return g.name == spec.goal; })) {
    std::string names;
    for (const auto& g : spec.goals) names += (names.empty() ? "" : ", ") + g.name;
    r.fail(at["goal"] ? at["goal"] : at,
           "plan.goal '" + spec.goal + "' is not one of the goals (" + names + ")");
  }
  for (const auto& level : kLevels)
    if (!spec.difficulty.count(level)) r.fail(at, "plan.effort.difficulty." + level + " is missing");
}

void applyPlan(const yaml::Reader& r, const YAML::Node& node, PlanSpec& spec) {
  r.requireMap(node, "plan");
  r.checkKeys(node, {"goal", "effort", "phases", "goals"}, "plan");
  if (node["goal"]) spec.goal = r.string(node["goal"], "plan.goal");
  if (node["effort"]) readEffort(r, node["effort"], spec);
  if (node["phases"]) spec.phases = readPhases(r, node["phases"]);
  if (node["goals"]) readGoals(r, node["goals"], spec.goals);
  validate(r, node, spec);
}

}  // namespace

PlanSpec defaultPlanSpec() {
  static const PlanSpec defaults = [] {
    const std::string_view text = migrateEmbeddedData("data/plan_defaults.yaml");
    yaml::Reader r("engine/data/plan_defaults.yaml");
    PlanSpec spec;
    applyPlan(r, YAML::Load(std::string(text)), spec);
    return spec;
  }();
  return defaults;
}

void readPlanSpec(const yaml::Reader& r, const YAML::Node& node, PlanSpec& spec) {
  if (!node || node.IsNull()) return;
  applyPlan(r, node, spec);
}

void emitPlanSpec(YAML::Emitter& out, const PlanSpec& spec) {
  auto rate = [&](const EffortRate& x) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "first" << YAML::Value << x.first << YAML::Key
        << "each" << YAML::Value << x.each << YAML::EndMap;
  };
  out.SetDoublePrecision(12);  // 0.3, not 0.29999999999999999
  out << YAML::Key << "plan" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "goal" << YAML::Value << spec.goal;
  out << YAML::Key << "effort" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "days_per_week" << YAML::Value << spec.effort.days_per_week;
  out << YAML::Key << "integration_factor" << YAML::Value << spec.effort.integration_factor;
  out << YAML::Key << "hard_weeks" << YAML::Value << spec.effort.hard_weeks;
  out << YAML::Key << "hard_bottleneck_days" << YAML::Value << spec.effort.hard_bottleneck_days;
  out << YAML::Key << "difficulty" << YAML::Value << YAML::BeginMap;
  for (const auto& level : kLevels) {
    out << YAML::Key << level << YAML::Value;
    rate(spec.difficulty.at(level));
  }
  out << YAML::EndMap;
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginMap;
  for (const auto& [id, x] : spec.rules) {
    out << YAML::Key << id << YAML::Value;
    rate(x);
  }
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "phases" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : spec.phases) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name << YAML::Key << "title"
        << YAML::Value << p.title << YAML::Key << "entry_points" << YAML::Value << YAML::Flow
        << p.entry_points;
    if (!p.domains.empty()) out << YAML::Key << "domains" << YAML::Value << YAML::Flow << p.domains;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "goals" << YAML::Value << YAML::BeginMap;
  for (const auto& g : spec.goals) {
    out << YAML::Key << g.name << YAML::Value << YAML::BeginMap << YAML::Key << "title" << YAML::Value
        << g.title << YAML::Key << "phases" << YAML::Value << YAML::Flow << g.phases;
    if (!g.exclude_domains.empty())
      out << YAML::Key << "exclude_domains" << YAML::Value << YAML::Flow << g.exclude_domains;
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
}

}  // namespace migrate
