#include "plan/planner.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "plan/bottlenecks.hpp"
#include "plan/code_structure.hpp"
#include "plan/entry_points.hpp"
#include "plan/import_graph.hpp"
#include "plugin_host/crash_report.hpp"
#include "rules/rule_set.hpp"

namespace migrate {
namespace {

/// What one plugin's plan hook sees and may change.
class EnginePlanContext final : public sdk::PlanContext {
 public:
  EnginePlanContext(MigrationModel& model, const PlanSpec& spec, std::string plugin)
      : model_(model), spec_(spec), plugin_(std::move(plugin)) {}

  const std::vector<sdk::Finding>& findings() const override { return model_.findings; }
  const std::vector<sdk::ModuleNode>& modules() const override { return model_.plan.graph; }
  const std::vector<sdk::EntryPoint>& entryPoints() const override {
    return model_.plan.structure.entry_points;
  }
  const std::vector<sdk::Bottleneck>& bottlenecks() const override { return model_.plan.bottlenecks; }
  const std::vector<sdk::PhaseSpec>& phases() const override { return spec_.phases; }
  const std::vector<sdk::GoalSpec>& goals() const override { return spec_.goals; }
  const std::string& chosenGoal() const override { return spec_.goal; }
  const sdk::EffortSettings& effort() const override { return spec_.effort; }

  void setFindingPhases(std::size_t index, std::vector<std::string> phases) override {
    if (index >= model_.findings.size())
      throw std::out_of_range("setFindingPhases: finding " + std::to_string(index) + " does not exist");
    for (const auto& p : phases)
      if (std::none_of(spec_.phases.begin(), spec_.phases.end(), [&](const auto& s) { return s.name == p; }))
        throw std::invalid_argument("setFindingPhases: '" + p + "' is not a phase of plan.phases");
    model_.findings[index].phases = std::move(phases);
  }
  void setAssessment(sdk::Assessment assessment) override {
    if (model_.plan.assessment && model_.plan.assessment->producer != plugin_)
      model_.diagnostics.push_back(
          {sdk::Severity::Warning, "plan-conflict", "", 0,
           "plugin " + plugin_ + " replaced the assessment of plugin " + model_.plan.assessment->producer});
    assessment.producer = plugin_;
    model_.plan.assessment = std::move(assessment);
  }
  void diagnose(sdk::Diagnostic diagnostic) override { model_.diagnostics.push_back(std::move(diagnostic)); }

 private:
  MigrationModel& model_;
  const PlanSpec& spec_;
  std::string plugin_;
};

}  // namespace

void planRepository(const Workspace& workspace, const PlanSpec& spec,
                    const std::vector<ActivePlugin>& plugins, MigrationModel& model) {
  std::map<std::string, std::string> titles;
  for (const ActivePlugin& p : plugins)
    for (const auto& rule : p.loaded->rules->rules()) titles.emplace(rule.id, rule.title);

  PlanResult& plan = model.plan;
  plan.graph = buildImportGraph(model.modules);
  std::vector<sdk::EntryPoint> entries = findEntryPoints(model.modules, workspace);
  plan.bottlenecks = buildBottlenecks(model.findings, titles, plan.graph, entries, spec);
  plan.structure = describeCode(model.modules, plan.graph, std::move(entries), model.findings, workspace,
                                model.dependencies);
  plan.computed = true;

  for (const ActivePlugin& p : plugins) {
    EnginePlanContext context(model, spec, p.loaded->info.name);
    const PluginCallScope scope(p.loaded->info.name, "plan", "");
    try {
      p.loaded->plugin->plan(context);
    } catch (const std::exception& e) {
      model.diagnostics.push_back({sdk::Severity::Error, "plugin-error", "", 0,
                                   "plugin " + p.loaded->info.name + " failed in plan: " + e.what()});
    } catch (...) {
      model.diagnostics.push_back(
          {sdk::Severity::Error, "plugin-error", "", 0,
           "plugin " + p.loaded->info.name + " failed in plan with an unknown exception"});
    }
  }
}

}  // namespace migrate
