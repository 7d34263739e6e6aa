#pragma once
/// A finished child run as the store's row: its outputs read back (findings, fixes, effort left,
/// verdict, verification, stages) and, when it did not succeed, a one-line reason to act on.

#include <filesystem>
#include <string>

#include "fleet/child_run.hpp"
#include "fleet/fleet_store.hpp"

namespace migrate::fleet {

/// Fills `run`'s counts, effort, verdict, verification and stages from the output directory
/// `out` (findings.json, emit.json, verify.json); false with `error` set when they cannot be read.
bool readOutputs(const std::filesystem::path& out, RepoRun& run, std::string& error);

/// Sets `run.status`, `run.reason` and `run.exit_code` from how the child ended; `log` is its
/// captured stdout and stderr; `run.stages` (read first) name a failed stage.
void classifyOutcome(const ChildOutcome& outcome, const ChildLimits& limits, const std::filesystem::path& log,
                     RepoRun& run);

}  // namespace migrate::fleet
