#pragma once
/// Outcomes of the verification's checks: each check of the adapted tree (the candidate) compared
/// with the same check on the original tree (the reference), so that a failure the migration
/// caused (`introduced`) stands apart from one the project already had (`pre-existing`) and from
/// a host that cannot run the project (`environment`: a module, tool or device it lacks).

#include <set>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"

namespace migrate::verify {

/// What the comparison needs to know of the repository.
struct OutcomeContext {
  std::set<std::string> repository_modules;  ///< top-level modules of the original tree
  std::set<std::string> declared_packages;   ///< the project's dependencies, PEP 503 names
};

/// A distribution name per PEP 503: lowercase, runs of -, _ and . as one -.
std::string normalizedPackage(const std::string& name);

/// What the target lacks according to a failing check's text ("module transformers: not installed
/// on the target; the project declares transformers"), or "" when the failure says no such thing.
/// `module` receives the missing top-level module, if that is what is missing.
std::string environmentCause(const std::string& text, const OutcomeContext& context, std::string& module);

/// The error class a failure names (`ModuleNotFoundError`, `AssertionError`), or "".
std::string errorClass(const std::string& text);

/// Folds the reference records (`reference`) into the adapted tree's checks of the same stage and
/// name, drops them, and gives every check its outcome and cause.
void assignOutcomes(std::vector<CheckResult>& checks, const OutcomeContext& context);

/// The top-level module names of a tree's Python files (`pkg/a.py` → pkg, `train.py` → train;
/// under `src/` the next level too).
std::set<std::string> topLevelModules(const std::vector<std::string>& paths);

}  // namespace migrate::verify
