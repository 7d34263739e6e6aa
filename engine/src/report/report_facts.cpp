#include "report/report_facts.hpp"

#include "report/report_text.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>

std::string_view migrateEmbeddedData(std::string_view name);

namespace migrate::report {
namespace {

struct Repair {
  std::regex stage;
  std::regex check;
  std::string suggestion;
};

/// engine/data/verify_repairs.yaml, read once.
struct RepairData {
  std::vector<Repair> repairs;
  std::vector<TroubleshootingRow> troubleshooting;
};

const RepairData& repairData() {
  static const RepairData data = [] {
    RepairData out;
    const YAML::Node doc = YAML::Load(std::string(migrateEmbeddedData("data/verify_repairs.yaml")));
    for (const auto& r : doc["repairs"])
      out.repairs.push_back({std::regex(r["stage"].as<std::string>()),
                             std::regex(r["check"].as<std::string>()), r["suggestion"].as<std::string>()});
    for (const auto& r : doc["troubleshooting"])
      out.troubleshooting.push_back(
          {r["issue"].as<std::string>(), r["cause"].as<std::string>(), r["solution"].as<std::string>()});
    return out;
  }();
  return data;
}

const StageRecord* stageRecord(const MigrationModel& model, const std::string& name) {
  for (const StageRecord& s : model.stages)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

const std::vector<ReportGroup>& reportGroups() {
  static const std::vector<ReportGroup> groups = [] {
    std::vector<ReportGroup> out;
    const YAML::Node doc = YAML::Load(std::string(migrateEmbeddedData("data/report_groups.yaml")));
    for (const auto& g : doc["groups"]) {
      ReportGroup group{g["id"].as<std::string>(), g["title"].as<std::string>(), {}, {}};
      if (g["domains"]) group.domains = g["domains"].as<std::vector<std::string>>();
      if (g["rules"]) group.rules = g["rules"].as<std::vector<std::string>>();
      out.push_back(std::move(group));
    }
    return out;
  }();
  return groups;
}

std::vector<ReportGroup> reportGroups(const MigrationModel& model) {
  std::vector<ReportGroup> groups = reportGroups();
  for (const DomainRecord& d : model.domains) groups.push_back({"pack:" + d.name, d.title, {d.name}, {}});
  return groups;
}

const std::string& groupOf(const std::string& rule_id, const std::string& domain) {
  return groupOf(reportGroups(), rule_id, domain);
}

const std::string& groupOf(const std::vector<ReportGroup>& groups, const std::string& rule_id,
                           const std::string& domain) {
  for (const ReportGroup& g : groups)
    if (std::find(g.rules.begin(), g.rules.end(), rule_id) != g.rules.end()) return g.id;
  for (const ReportGroup& g : groups)
    if (std::find(g.domains.begin(), g.domains.end(), domain) != g.domains.end()) return g.id;
  return groups.front().id;
}

std::vector<BottleneckState> bottleneckStates(const MigrationModel& model) {
  std::vector<BottleneckState> states;
  const std::vector<ReportGroup> groups = reportGroups(model);
  for (const sdk::Bottleneck& b : model.plan.bottlenecks) {
    BottleneckState s;
    s.bottleneck = &b;
    s.places = b.findings.size();
    for (std::size_t i : b.findings) s.fixed += model.emit.isFixed(i);
    s.group = groupOf(groups, b.rule_id, b.domain);
    states.push_back(std::move(s));
  }
  return states;
}

AdaptationStatus adaptationStatus(const MigrationModel& model, const std::vector<BottleneckState>& states) {
  std::vector<std::string> failed;
  std::vector<std::string> partial;
  for (const char* stage : {"analyze", "plan", "emit"}) {
    const StageRecord* s = stageRecord(model, stage);
    const std::string name = std::string("the ") + stage + " stage";
    if (!s)
      failed.push_back(name + " did not run (the run stopped before it)");
    else if (s->status == "failed")
      failed.push_back(name + " failed: " + s->detail);
    else if (s->status != "completed" && std::string(stage) == "plan")
      partial.push_back(name + " did not run (" + s->detail + "), so no bottleneck was counted");
    else if (s->status != "completed")
      failed.push_back(name + " did not run (" + s->detail + "): nothing was " +
                       (std::string(stage) == "emit" ? "adapted" : "analysed"));
  }
  if (model.emit.computed) {
    const std::size_t adapted = static_cast<std::size_t>(
        std::count_if(states.begin(), states.end(), [](const BottleneckState& s) { return s.adapted(); }));
    if (adapted < states.size())
      partial.push_back(plural(states.size() - adapted, "bottleneck remains", "bottlenecks remain") +
                        " (of " + std::to_string(states.size()) + "), with " +
                        plural(model.emit.manual_work.size(), "place", "places") + " of manual work");
    else if (!model.emit.manual_work.empty())
      partial.push_back(plural(model.emit.manual_work.size(), "place of manual work remains",
                               "places of manual work remain"));
  }
  const VerifyResult& v = model.verify;
  const StageRecord* vs = stageRecord(model, "verify");
  if (!v.computed) {
    if (!vs)
      partial.push_back("the adaptation was not verified (the run stopped before the verify stage)");
    else if (vs->status == "failed")
      partial.push_back("the verification could not start: " + vs->detail);
    else
      partial.push_back("the adaptation was not verified (the verify stage did not run: " + vs->detail + ")");
  } else if (v.status != "completed") {
    partial.push_back("the verification could not run on " + v.host + " (" + v.status + "): " + v.detail);
  } else {
    const std::size_t bad = v.broken();
    if (bad) failed.push_back(plural(bad, "verification check", "verification checks") + " failed");
    if (const std::size_t env = v.outcomes("environment"))
      partial.push_back(plural(env, "verification check", "verification checks") +
                        " could not pass on this target for what it lacks (packages, tools, devices: "
                        "section 5.4), so they verify nothing yet");
    std::vector<std::string> skipped;
    for (const CheckResult* c : skippedChecks(v)) skipped.push_back(c->stage + "/" + c->check);
    if (!skipped.empty())
      partial.push_back(plural(skipped.size(), "verification check was", "verification checks were") +
                        " skipped, so the adaptation is not verified on an NPU: " + joined(skipped));
  }
  AdaptationStatus status;
  if (!failed.empty()) {
    status.level = "failed";
    status.reasons = failed;
    status.reasons.insert(status.reasons.end(), partial.begin(), partial.end());
  } else if (!partial.empty()) {
    status.level = "partially";
    status.reasons = partial;
  } else {
    status.level = "fully";
    status.reasons.push_back("every bottleneck was adapted and every verification check passed");
  }
  return status;
}

std::vector<std::pair<std::string, double>> effortPerPhase(const MigrationModel& model) {
  std::vector<std::pair<std::string, double>> out;
  if (!model.plan.assessment) return out;
  for (const std::string& phase : model.plan.assessment->active_phases) {
    double days = 0;
    for (const sdk::Bottleneck& b : model.plan.bottlenecks) {
      std::size_t k = 0;
      for (std::size_t i : b.findings) {
        if (i >= model.findings.size()) continue;
        const auto& phases = model.findings[i].phases;
        k += std::find(phases.begin(), phases.end(), phase) != phases.end() ? 1 : 0;
      }
      if (k) days += b.effort_first + b.effort_each * static_cast<double>(k - 1);
    }
    out.emplace_back(phase, days);
  }
  return out;
}

const std::vector<TroubleshootingRow>& troubleshooting() {
  return repairData().troubleshooting;
}

std::vector<const CheckResult*> skippedChecks(const VerifyResult& verify) {
  std::vector<const CheckResult*> out;
  for (const CheckResult& c : verify.checks)
    if (c.status == "skipped" && c.stage != "benchmark") out.push_back(&c);
  return out;
}

std::string repairSuggestion(const std::string& stage, const std::string& check) {
  for (const Repair& r : repairData().repairs)
    if (std::regex_match(stage, r.stage) && std::regex_match(check, r.check)) return r.suggestion;
  return "Read the check's output and the run's verify/verify.log.";
}

}  // namespace migrate::report
