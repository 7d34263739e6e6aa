#include "run/stages.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <future>
#include <map>
#include <set>

#include "analysis_cache/cache_key.hpp"
#include "analysis_cache/open_cache.hpp"
#include "analyze/analyzer.hpp"
#include "emit/emitter.hpp"
#include "migrate/engine/findings_json.hpp"
#include "outputs/csv_tables.hpp"
#include "plan/planner.hpp"
#include "progress/progress.hpp"
#include "report/reporter.hpp"
#include "verify/verifier.hpp"

namespace migrate::run {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void logFindings(const MigrationModel& model, spdlog::logger& log) {
  std::map<std::string, std::size_t> per_domain;
  std::size_t fixable = 0;
  for (const auto& f : model.findings) {
    ++per_domain[f.domain];
    fixable += f.autofix() ? 1 : 0;
  }
  std::string domains;
  for (const auto& [d, n] : per_domain)
    domains += (domains.empty() ? "" : ", ") + d + " " + std::to_string(n);
  log.info("{} findings ({}), {} auto-fixable; {} diagnostics", model.findings.size(),
           domains.empty() ? "none" : domains, fixable, model.diagnostics.size());
}

/// Throughput and peak memory of the analysis (read by bench/run_bench.sh).
void logStatistics(const MigrationModel& model, double seconds, spdlog::logger& log) {
  const double mb = static_cast<double>(model.inventory.bytes) / 1e6;
  const double s = seconds > 0 ? seconds : 1e-9;
  log.info(
      "statistics: {} files ({} Python, {} lines), {:.1f} MB in {:.2f} s: {:.1f} MB/s, {:.0f} files/s, "
      "peak RSS {:.0f} MB; {} Python files from the analysis cache",
      model.inventory.files, model.inventory.python_parsed, model.inventory.python_lines, mb, seconds, mb / s,
      static_cast<double>(model.inventory.files) / s, peakRssMb(), model.inventory.python_cached);
}

/// The inventory, then every file through the plugins (from the analysis cache where it can).
StageOutcome analyzeStage(StageRun& run) {
  const auto t0 = Clock::now();
  const PipelineSpec& spec = run.spec;
  MigrationModel& model = run.model;
  std::vector<sdk::Diagnostic> inventory_diags;
  const Workspace& ws = run.workspace.emplace(buildInventory(
      model.source.root, {spec.include, spec.exclude, spec.max_file_bytes, threadsFor(spec.jobs)},
      inventory_diags));
  model.inventory.skipped = inventory_diags.size();
  model.diagnostics.insert(model.diagnostics.end(), inventory_diags.begin(), inventory_diags.end());
  run.log.info("inventory: {} files selected, {} skipped", ws.files().size(), inventory_diags.size());
  auto progress = makeProgress(run.options.terminal && !run.options.quiet,
                               [&](const std::string& m) { run.log.info("{}", m); });
  const std::size_t known = model.diagnostics.size();
  std::unique_ptr<cache::CacheStore> store = cache::openCache(spec.cache, model.diagnostics);
  for (std::size_t i = known; i < model.diagnostics.size(); ++i)
    run.log.warn("{}", model.diagnostics[i].message);
  std::optional<CacheUse> cache_use;
  if (store) cache_use.emplace(CacheUse{*store, cache::runContext(spec, run.plugins, projectRoots(ws))});
  analyzeWorkspace(ws, run.plugins, {spec.jobs, spec.parse_timeout_ms}, *progress, model,
                   cache_use ? &*cache_use : nullptr);
  separateDependencyRows(model);
  if (store) {
    if (auto written = store->commit(); !written) {
      model.diagnostics.push_back({sdk::Severity::Warning, "cache-not-written", "", 0,
                                   written.error().message + "; the next run analyses these files anew"});
      run.log.warn("{}", model.diagnostics.back().message);
    }
    run.log.info("analysis cache: {}", store->file().string());
  }
  logFindings(model, run.log);
  logStatistics(model, std::chrono::duration<double>(Clock::now() - t0).count(), run.log);
  return {true, std::to_string(model.inventory.python_parsed) + " Python files analysed", std::nullopt};
}

/// Bottlenecks, and the assessment's verdict and effort for the chosen goal.
StageOutcome planStage(StageRun& run) {
  const MigrationModel& model = run.model;
  planRepository(*run.workspace, run.spec.plan, run.plugins, run.model);
  std::string line = std::to_string(model.plan.bottlenecks.size()) + " bottlenecks, " +
                     std::to_string(model.plan.structure.entry_points.size()) + " entry points";
  if (const auto& a = model.plan.assessment) {
    const sdk::GoalResult& chosen = a->chosen();
    line += "; " + chosen.title + ": " + chosen.verdict + ", " + fmt::format("{:g}", chosen.effort_weeks) +
            " weeks (full migration: " + a->full.verdict + ", " + fmt::format("{:g}", a->full.effort_weeks) +
            " weeks)";
  } else {
    line += "; no assessment (enable the phase_matrix plugin for phases, goals and the verdict)";
  }
  return {true, line, std::nullopt};
}

/// What the emit stage adapted and left.
StageOutcome emitStage(StageRun& run) {
  const Status st = emitKit(*run.workspace, run.spec.emit, run.spec.verify, run.plugins, run.model, run.out,
                            [&](const std::string& m) { run.log.info("{}", m); });
  if (!st) return {false, st.error().message, std::nullopt};
  const EmitResult& e = run.model.emit;
  std::string line = std::to_string(e.findings_fixed) + " findings fixed by " +
                     std::to_string(e.edits_applied) + " edits in " + std::to_string(e.adapted.size()) +
                     " files, " + std::to_string(e.manual_work.size()) + " places of manual work";
  if (e.conflicts) line += " (" + std::to_string(e.conflicts) + " conflicting fixes)";
  std::set<std::string> top;  // the kit's top-level entries (ascend_ops/ rather than its files)
  for (const EmittedFile& f : e.files) {
    const std::size_t slash = f.path.find('/');
    top.insert(slash == std::string::npos ? f.path : f.path.substr(0, slash + 1));
  }
  line += "; kit: ";
  for (const std::string& t : top) line += (line.back() == ' ' ? "" : ", ") + t;
  if (e.tree_reused)  // the kit is the one a cold emit writes: the reuse is the stage record's, not
                      // emit.json's
    run.log.info("emit: adapted/: {} of {} files kept from the previous emit", e.tree_reused, e.tree_files);
  return {true, line, std::nullopt, e.tree_reused, e.tree_files};
}

/// The verification of this run's kit, or of the kit an earlier run left in the directory.
StageOutcome verifyStage(StageRun& run) {
  VerifyInputs inputs;
  if (run.model.emit.computed) {
    inputs = verifyInputsFrom(run.model, run.out);
  } else if (auto from_disk = verifyInputsFrom(run.out)) {
    inputs = std::move(from_disk.value());
    inputs.tool_version = run.model.tool_version;
  } else {
    return {false, from_disk.error().message, 0.0};
  }
  inputs.base = run.spec.emit.base;
  run.model.verify = runVerification(run.spec, inputs, [&](const std::string& m) { run.log.info("{}", m); });
  const VerifyResult& v = run.model.verify;
  return {v.status == "completed", verifySummary(v), v.seconds, v.reused(), v.checks.size()};
}

/// The report; runs also after an earlier stage failed, so that it says which and why.
StageOutcome reportStage(StageRun& run) {
  const auto written = writeReport(run.model, run.spec, run.out, std::time(nullptr));
  if (!written) return {false, written.error().message, std::nullopt};
  const ReportOutputs& w = written.value();
  if (!w.copy.empty()) run.log.info("report: also written to {}", w.copy.string());
  return {true, w.report.filename().string() + ", findings.sarif, " + w.chart.filename().string(),
          std::nullopt};
}

}  // namespace

const std::vector<Stage>& pipelineStages() {
  static const std::vector<Stage> stages{{"analyze", false, analyzeStage},
                                         {"plan", true, planStage},
                                         {"emit", true, emitStage},
                                         {"verify", false, verifyStage},
                                         {"report", false, reportStage}};
  return stages;
}

const Stage& stageNamed(const std::string& name) {
  for (const Stage& s : pipelineStages())
    if (name == s.name) return s;
  throw std::out_of_range("no stage " + name);
}

bool runStage(const Stage& stage, StageRun& run) {
  const std::string name = stage.name;
  if (std::find(run.spec.stages.begin(), run.spec.stages.end(), name) == run.spec.stages.end()) {
    setStage(run.model, {name, "skipped", "not selected in the pipeline's stages", 0});
    return true;
  }
  const auto t0 = Clock::now();
  StageOutcome outcome =
      stage.needs_analysis && !run.workspace
          ? StageOutcome{false, "the " + name + " stage needs the analyze stage in the same run", 0.0}
          : stage.run(run);
  const double secs = outcome.seconds.value_or(std::chrono::duration<double>(Clock::now() - t0).count());
  setStage(run.model,
           {name, outcome.ok ? "completed" : "failed", outcome.summary, secs, outcome.kept, outcome.total});
  if (outcome.ok)
    run.log.info("{}: {} ({:.2f} s, peak RSS {:.0f} MB)", name, outcome.summary, secs, peakRssMb());
  else
    run.log.error("stage {}: {}", name, outcome.summary);
  return outcome.ok;
}

bool persist(const MigrationModel& model, const fs::path& out, spdlog::logger& log) {
  // Side by side: both only read the model (on an unchanged re-run they were a tenth of the time).
  auto json = std::async(std::launch::async, [&] { return writeFindingsJson(model, out / "findings.json"); });
  const Status csv = outputs::writeCsvTables(model, out);
  for (const Status& st : {json.get(), csv})
    if (!st) {
      log.error("{}", st.error().message);
      return false;
    }
  return true;
}

void setStage(MigrationModel& model, StageRecord record) {
  for (StageRecord& s : model.stages)
    if (s.name == record.name) {
      s = std::move(record);
      return;
    }
  model.stages.push_back(std::move(record));
}

std::string verifySummary(const VerifyResult& v) {
  std::string line = v.status + " on " + v.host + " (target " + v.target + "): " + v.detail;
  for (const CheckResult& c : v.checks)
    if (c.broken()) line += "; " + c.stage + "/" + c.check + " " + (c.outcome.empty() ? c.status : c.outcome);
  return line;
}

}  // namespace migrate::run
