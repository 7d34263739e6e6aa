#pragma once
/// Running a pipeline: acquire, analyze and the later stages, writing each stage's output to the
/// output directory as it finishes.

#include <filesystem>
#include <vector>

#include "migrate/engine/pipeline.hpp"

namespace migrate {

/// Exit codes of `migrate-pipeline` (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,           ///< the run completed (findings do not make it fail)
  kExitUsage = 2,        ///< bad arguments or an invalid pipeline
  kExitSource = 3,       ///< the source could not be acquired
  kExitPlugins = 4,      ///< the plugin directory or a selected plugin could not be loaded
  kExitStageFailed = 5,  ///< a stage failed after the source was acquired; earlier outputs kept
};

struct RunOptions {
  bool terminal = false;  ///< draw a progress bar (stderr is a terminal)
  bool quiet = false;     ///< only warnings and errors on stderr
};

/// Runs `spec` and returns the process exit code. Never throws.
int runPipeline(const PipelineSpec& spec, const RunOptions& options);

/// `migrate-pipeline verify OUTPUT_DIR`: runs the verify stage again on a run's output directory
/// (its pipeline.yaml with `overrides` applied, its emit.json and kit), without analysing, then
/// updates findings.json's verify stage and writes the report again when the run had one.
/// Exit code 0 when the verification ran (whatever its checks found), 5 when it could not.
int verifyOutputDirectory(const std::filesystem::path& out, const std::vector<Override>& overrides,
                          const RunOptions& options);

/// `migrate-pipeline report OUTPUT_DIR`: writes the report stage's outputs again from a run's
/// output directory (findings.json, emit.json, verify.json; its pipeline.yaml with `overrides`).
/// Exit code 0 when written, 5 when the outputs cannot be read or the report not written.
int reportOutputDirectory(const std::filesystem::path& out, const std::vector<Override>& overrides,
                          const RunOptions& options);

}  // namespace migrate
