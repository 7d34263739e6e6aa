#pragma once
/// The plan stage's view for plugins: the repository's import graph and entry points, the
/// bottleneck list the engine built from the findings, the configured task phases and goals; and
/// what a plan plugin contributes back (phase tags per finding, the assessment).

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/finding.hpp"

namespace migrate::sdk {

/// One Python file of the repository as a node of the import graph.
struct ModuleNode {
  std::string path;         ///< relative to the repository root
  std::string dotted_name;  ///< "pkg.sub.mod"
  /// Indices (into PlanContext::modules()) of the project modules this one imports, directly
  /// (including the packages' __init__ modules an import runs); sorted, unique.
  std::vector<std::size_t> imports;
  /// Top-level names of the libraries it imports (not the project, not the standard library).
  std::vector<std::string> libraries;
};

/// A way the repository is started.
struct EntryPoint {
  /// Library: a top-level package, counted only when the repository has no other entry point.
  enum class Kind { MainBlock, ConsoleScript, LaunchScript, TestModule, Library };
  Kind kind = Kind::MainBlock;
  std::string name;      ///< the script path, console-script name, or test module path
  std::string file;      ///< where it is declared (the .py, setup.py / pyproject.toml, the .sh)
  std::string launcher;  ///< for launch scripts: python, torchrun, deepspeed, accelerate, ...
  /// The Python modules it runs (indices into PlanContext::modules()); sorted, unique.
  std::vector<std::size_t> modules;
  /// What the phase globs are matched against: the declaring file, the module paths, and the
  /// forms "console_script:<name>", "launcher:<launcher>" and "library:<package>".
  std::vector<std::string> labels;
};

inline const char* toString(EntryPoint::Kind k) {
  switch (k) {
    case EntryPoint::Kind::MainBlock:
      return "main_block";
    case EntryPoint::Kind::ConsoleScript:
      return "console_script";
    case EntryPoint::Kind::LaunchScript:
      return "launch_script";
    case EntryPoint::Kind::TestModule:
      return "test_module";
    case EntryPoint::Kind::Library:
      return "library";
  }
  return "main_block";
}

/// The EntryPoint::Kind `toString` names; nullopt for any other text.
inline std::optional<EntryPoint::Kind> entryPointKindFromString(std::string_view s) {
  for (auto k : {EntryPoint::Kind::MainBlock, EntryPoint::Kind::ConsoleScript, EntryPoint::Kind::LaunchScript,
                 EntryPoint::Kind::TestModule, EntryPoint::Kind::Library})
    if (s == toString(k)) return k;
  return std::nullopt;
}

/// A task phase as the pipeline's `plan.phases` declares it.
struct PhaseSpec {
  std::string name;   ///< e.g. "train"
  std::string title;  ///< e.g. "Training (forward, backward, optimizer)"
  /// Globs over EntryPoint::labels; an entry point matching one belongs to the phase.
  std::vector<std::string> entry_points;
  /// Findings of these domains reached from any entry point also belong to the phase (e.g.
  /// distributed findings to "distributed launch").
  std::vector<std::string> domains;
};

/// A migration goal (`plan.goals`): the phases it needs, the domains it leaves out.
struct GoalSpec {
  std::string name;  ///< e.g. "inference_only"
  std::string title;
  std::vector<std::string> phases;
  std::vector<std::string> exclude_domains;
};

/// One distinct migration problem: the findings of one rule with the same remedy (and the same
/// `details.group` when a plugin sets one), numbered #001... in order of impact, then difficulty.
struct Bottleneck {
  std::string id;  ///< "#001"
  std::string rule_id;
  std::string domain;
  std::string title;              ///< the rule's title
  std::vector<std::string> apis;  ///< distinct GPU APIs as resolved (else as written), sorted
  std::string npu_alternative;
  std::vector<std::size_t> findings;      ///< indices into PlanContext::findings(), in model order
  Severity severity = Severity::Warning;  ///< the highest of its findings
  Level difficulty = Level::Medium;       ///< the highest of its findings
  bool autofix = false;                   ///< every finding has a fix
  std::string scope;                      ///< "global" | "module" | "local"
  std::string scope_reason;
  std::vector<std::string> steps;  ///< concrete migration steps
  double effort_first = 0.0;       ///< person-days for the first place
  double effort_each = 0.0;        ///< person-days for each further place
  double effort_days = 0.0;        ///< effortFor(findings.size())

  /// Person-days for `places` of its places (the effort model: first + each × (places − 1)).
  double effortFor(std::size_t places) const {
    return places == 0 ? 0.0 : effort_first + effort_each * static_cast<double>(places - 1);
  }
};

/// How person-days become weeks, and when a verdict turns "hard".
struct EffortSettings {
  double days_per_week = 5.0;
  double integration_factor = 0.3;    ///< added on top of the sum for integration and testing
  double hard_weeks = 8.0;            ///< more weeks than this: "hard"
  double hard_bottleneck_days = 3.0;  ///< a manual high-difficulty bottleneck this big: "hard"

  /// Weeks for `days` person-days, integration included, rounded up to half weeks.
  double weeksFor(double days) const {
    const double weeks = days * (1.0 + integration_factor) / (days_per_week > 0 ? days_per_week : 5.0);
    return days <= 0 ? 0.0 : std::ceil(weeks * 2.0 - 1e-9) / 2.0;
  }
};

/// One row of the dependency × phase matrix.
struct MatrixRow {
  std::string dependency;  ///< e.g. "flash_attn", "torch.cuda", "kernel bias_gelu_forward_kernel"
  std::string domain;
  std::vector<std::string> phases;  ///< the phases that reach it, in the configured order
  std::string priority;             ///< "P0" (every active phase) | "P1" (some) | "skip" (none)
  std::string replacement;
  std::vector<std::string> bottlenecks;  ///< ids
  double effort_days = 0.0;
};

/// The minimum migration set for one goal.
struct GoalResult {
  std::string name;
  std::string title;
  std::vector<std::string> bottlenecks;  ///< ids of the bottlenecks the goal needs
  std::size_t findings = 0;
  double effort_days = 0.0;
  double effort_weeks = 0.0;
  std::string verdict;                ///< "feasible" | "needs adaptation" | "hard" | "infeasible"
  std::vector<std::string> blockers;  ///< what decides the verdict, one sentence each
};

/// What a phase-matrix plugin concludes.
struct Assessment {
  std::string producer;                    ///< the plugin that set it
  std::vector<std::string> active_phases;  ///< phases with at least one entry point
  std::vector<MatrixRow> matrix;
  GoalResult full;  ///< every bottleneck
  std::vector<GoalResult> goals;
  std::string chosen_goal;                   ///< `plan.goal`
  std::vector<std::string> unreached_files;  ///< files with findings no entry point reaches
  std::vector<std::string> notes;

  /// The goal `chosen_goal` names, else the full migration.
  const GoalResult& chosen() const {
    for (const GoalResult& g : goals)
      if (g.name == chosen_goal) return g;
    return full;
  }
};

/// Handed to Plugin::plan once per run, after analysis and the engine's own plan passes.
class PlanContext {
 public:
  virtual ~PlanContext() = default;
  virtual const std::vector<Finding>& findings() const = 0;  ///< sorted as in findings.json
  virtual const std::vector<ModuleNode>& modules() const = 0;
  virtual const std::vector<EntryPoint>& entryPoints() const = 0;
  virtual const std::vector<Bottleneck>& bottlenecks() const = 0;
  virtual const std::vector<PhaseSpec>& phases() const = 0;
  virtual const std::vector<GoalSpec>& goals() const = 0;
  virtual const std::string& chosenGoal() const = 0;
  virtual const EffortSettings& effort() const = 0;
  /// Tags finding `index` with the phases (names from phases()) that reach it.
  virtual void setFindingPhases(std::size_t index, std::vector<std::string> phases) = 0;
  virtual void setAssessment(Assessment assessment) = 0;
  virtual void diagnose(Diagnostic diagnostic) = 0;
};

}  // namespace migrate::sdk
