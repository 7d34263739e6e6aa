#pragma once
/// What-if for `fleet report`: a run's plan verdict judged again with one rule's findings or one
/// dependency solved. The fleet keeps, per run, what the verdict was judged from (the chosen
/// goal's bottlenecks with the places the goal counts, and the effort settings) and judges it with
/// the plan stage's own model (migrate/sdk/verdict.hpp), so a prediction is the verdict the plan
/// stage would write, not an estimate.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/result.hpp"
#include "migrate/sdk/plan.hpp"

namespace migrate::fleet {

/// One bottleneck the chosen goal needs, as its verdict reads it.
struct PlanMember {
  /// What the verdict reads of it: id, rule, severity, difficulty, autofix, whether it has an NPU
  /// alternative, effort rates (the store keeps no more).
  sdk::Bottleneck bottleneck;
  std::size_t places = 0;  ///< the places the goal counts
  /// Of those, the places that name each dependency (deps bottlenecks): solving the dependency
  /// takes them away.
  std::map<std::string, std::size_t> packages;
};

struct PlanInputs {
  std::string goal;     ///< the chosen goal ("full" when the plan has none of that name)
  std::string verdict;  ///< the plan stage's verdict of it
  sdk::EffortSettings effort;
  std::vector<PlanMember> members;  ///< in id order
};

/// What solving means: every finding of `rule`, or every place naming `package`, taken away.
struct Solved {
  std::string rule;
  std::string package;
};

/// A distribution name as PEP 503 normalises it (`Flash_Attn` → `flash-attn`).
std::string normalizedPackage(const std::string& name);

/// The package a dependency finding is about: its `package` detail, else (an import rule's
/// finding) the imported top-level module, normalised (`flash_attn` → `flash-attn`).
std::string packageOf(const sdk::Finding& finding);

/// The inputs of the chosen goal's verdict of a run (`plan` = the run's pipeline plan settings);
/// nullopt without an assessment, or when judging them again does not give the plan's verdict
/// (a plan written by another verdict model).
std::optional<PlanInputs> planInputsOf(const MigrationModel& model, const PlanSpec& plan);

/// The inputs as the store keeps them (compact JSON) and back.
std::string encodePlanInputs(const PlanInputs& inputs);
Result<PlanInputs> decodePlanInputs(const std::string& json);

/// The verdict judged again without what `solved` takes away.
std::string verdictIf(const PlanInputs& inputs, const Solved& solved);

/// Verdicts from worst to best: infeasible 0, hard 1, needs adaptation 2, feasible 3; -1 otherwise.
int verdictRank(const std::string& verdict);

}  // namespace migrate::fleet
