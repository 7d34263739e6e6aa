#pragma once
/// How the repository is started: scripts with a __main__ block, console scripts (setup.py,
/// setup.cfg, pyproject.toml), launch scripts (shell scripts running python / torchrun /
/// deepspeed / accelerate / mpirun), and test modules; for a repository with none of these (a
/// library), its top-level packages.

#include <vector>

#include "migrate/engine/plan.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate {

std::vector<sdk::EntryPoint> findEntryPoints(const std::vector<ModuleSummary>& modules,
                                             const sdk::WorkspaceView& workspace);

/// A test file: test_*.py, *_test.py, or anything under a tests/ or test/ directory.
bool isTestPath(const std::string& path);

/// The launcher and target of one shell command line (already joined over `\` continuations):
/// {launcher, script path or "-m module"}; empty launcher when the line runs no Python.
struct LaunchCommand {
  std::string launcher;
  std::string target;
};
std::vector<LaunchCommand> parseLaunchLine(const std::string& line);

}  // namespace migrate
