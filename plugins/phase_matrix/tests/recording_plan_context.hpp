#pragma once
// A PlanContext for unit tests: hands the plugin hand-built inputs and records what it sets.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace phase_matrix::test {

/// Everything the plan stage hands a plugin.
struct PlanInput {
  std::vector<migrate::sdk::Finding> findings;
  std::vector<migrate::sdk::ModuleNode> modules;
  std::vector<migrate::sdk::EntryPoint> entry_points;
  std::vector<migrate::sdk::Bottleneck> bottlenecks;
  std::vector<migrate::sdk::PhaseSpec> phases;
  std::vector<migrate::sdk::GoalSpec> goals;
  std::string chosen_goal;
  migrate::sdk::EffortSettings effort;
};

/// Serves a PlanInput and records the plugin's calls.
class RecordingPlanContext final : public migrate::sdk::PlanContext {
 public:
  explicit RecordingPlanContext(PlanInput input);

  const std::vector<migrate::sdk::Finding>& findings() const override { return input_.findings; }
  const std::vector<migrate::sdk::ModuleNode>& modules() const override { return input_.modules; }
  const std::vector<migrate::sdk::EntryPoint>& entryPoints() const override { return input_.entry_points; }
  const std::vector<migrate::sdk::Bottleneck>& bottlenecks() const override { return input_.bottlenecks; }
  const std::vector<migrate::sdk::PhaseSpec>& phases() const override { return input_.phases; }
  const std::vector<migrate::sdk::GoalSpec>& goals() const override { return input_.goals; }
  const std::string& chosenGoal() const override { return input_.chosen_goal; }
  const migrate::sdk::EffortSettings& effort() const override { return input_.effort; }
  void setFindingPhases(std::size_t index, std::vector<std::string> phases) override;
  void setAssessment(migrate::sdk::Assessment assessment) override;
  void diagnose(migrate::sdk::Diagnostic diagnostic) override;

  /// The phases set for finding `index` (nullopt: never set).
  const std::optional<std::vector<std::string>>& phasesOf(std::size_t index) const;
  /// How often setFindingPhases was called for finding `index`.
  std::size_t phaseCalls(std::size_t index) const;
  /// Calls of setFindingPhases with an index outside findings().
  std::size_t outOfRangeCalls() const { return out_of_range_calls_; }
  const std::optional<migrate::sdk::Assessment>& assessment() const { return assessment_; }
  std::size_t assessmentCalls() const { return assessment_calls_; }
  const std::vector<migrate::sdk::Diagnostic>& diagnostics() const { return diagnostics_; }

  /// Everything recorded, as text: equal text means equal outputs.
  std::string dump() const;

 private:
  PlanInput input_;
  std::vector<std::optional<std::vector<std::string>>> phases_;
  std::vector<std::size_t> phase_calls_;
  std::size_t out_of_range_calls_ = 0;
  std::optional<migrate::sdk::Assessment> assessment_;
  std::size_t assessment_calls_ = 0;
  std::vector<migrate::sdk::Diagnostic> diagnostics_;
};

}  // namespace phase_matrix::test
