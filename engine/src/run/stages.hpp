#pragma once
/// The pipeline's stages in one shape: a stage takes the run (its spec, plugins, model, output
/// directory and the workspace the analysis built) and says how it went; runStage times, records,
/// logs it the same way for every stage, so that runPipeline (runner.cpp) reads as the data flow
/// it drives.

#include <spdlog/logger.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate::run {

/// What a run gives its stages.
struct StageRun {
  const PipelineSpec& spec;
  const RunOptions& options;
  const std::vector<ActivePlugin>& plugins;
  MigrationModel& model;
  std::filesystem::path out;
  spdlog::logger& log;
  std::optional<Workspace> workspace;  ///< built by analyze; plan and emit work on it
};

/// How a stage went: its record's detail (on failure, why), and its time when it measured it
/// itself (verify); else runStage's clock counts.
struct StageOutcome {
  bool ok = true;
  std::string summary;
  std::optional<double> seconds;
  std::size_t kept = 0;  ///< taken over from the previous output (StageRecord::kept), of `total`
  std::size_t total = 0;
};

struct Stage {
  const char* name;
  /// Fails, saying why, when the run has no analysis of its own (plan, emit).
  bool needs_analysis;
  StageOutcome (*run)(StageRun&);
};

/// The stages in pipeline order (kAllStages).
const std::vector<Stage>& pipelineStages();
const Stage& stageNamed(const std::string& name);

/// Runs `stage` (or records why it cannot run), records it in the model (replacing an earlier
/// record of it), logs one line "<stage>: <summary> (<s>, peak RSS <MB>)"; false when it failed.
bool runStage(const Stage& stage, StageRun& run);

/// Writes findings.json and the CSV tables with what the run has so far; false (logged) when
/// they cannot be written.
bool persist(const MigrationModel& model, const std::filesystem::path& out, spdlog::logger& log);

/// Records `record`, replacing an earlier record of the same stage.
void setStage(MigrationModel& model, StageRecord record);

/// One line: where the verification ran and how it ended.
std::string verifySummary(const VerifyResult& v);

}  // namespace migrate::run
