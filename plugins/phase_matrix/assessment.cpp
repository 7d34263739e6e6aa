// Step 7: runs the passes in order and hands their results to the plan stage.

#include "assessment.hpp"

#include <algorithm>
#include <map>

#include "finding_phases.hpp"
#include "goals.hpp"
#include "matrix.hpp"
#include "reach.hpp"

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

constexpr const char* kNoEntryPoint =
    "no entry point found: no __main__ block, console script, launch script or test module, so no phase "
    "is active, every finding is unreached and the goals need nothing";

/// Files of findings in Python modules of the graph that no entry point reaches (setup.py is the
/// environment, not code to reach); sorted, unique.
std::vector<std::string> unreachedFiles(const PlanContext& context, const Reach& reach) {
  std::map<std::string, std::size_t> module_by_path;
  const auto& modules = context.modules();
  for (std::size_t m = 0; m < modules.size(); ++m) module_by_path.emplace(modules[m].path, m);
  std::vector<std::string> files;
  for (const Finding& f : context.findings()) {
    const auto it = module_by_path.find(f.file);
    if (it != module_by_path.end() && !reach.isReached(it->second) && !isBuildScript(f.file))
      files.push_back(f.file);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace

void planPhaseMatrix(PlanContext& context) {
  const Reach reach = computeReach(context.modules(), context.entryPoints(), context.phases());
  const FindingPhases finding_phases = findingPhases(context, reach);
  for (std::size_t i = 0; i < finding_phases.size(); ++i)
    context.setFindingPhases(i, phaseNames(finding_phases[i], context.phases()));

  Assessment assessment;
  assessment.producer = kProducer;
  assessment.active_phases = phaseNames(reach.active, context.phases());
  assessment.matrix = buildMatrix(context, finding_phases, reach.active);
  assessment.full = fullResult(context);
  std::vector<Diagnostic> diagnostics;
  for (const GoalSpec& goal : context.goals())
    assessment.goals.push_back(goalResult(context, goal, finding_phases, diagnostics));
  assessment.chosen_goal = context.chosenGoal();
  assessment.unreached_files = unreachedFiles(context, reach);

  const auto& entry_points = context.entryPoints();
  for (std::size_t e = 0; e < entry_points.size(); ++e)
    if (reach.entry_phases[e].empty())
      assessment.notes.push_back("entry point " + entry_points[e].name + " (" +
                                 toString(entry_points[e].kind) + ") matches no phase");
  if (entry_points.empty()) {
    assessment.notes.push_back(kNoEntryPoint);
    diagnostics.push_back({Severity::Warning, "plan-no-entry-points", "", 0, kNoEntryPoint});
  }
  for (Diagnostic& d : diagnostics) context.diagnose(std::move(d));
  context.setAssessment(std::move(assessment));
}

}  // namespace phase_matrix
