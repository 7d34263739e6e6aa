#include "migrate/engine/runner.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "acquire/git_session.hpp"
#include "analysis_cache/cache_key.hpp"
#include "analysis_cache/open_cache.hpp"
#include "analyze/analyzer.hpp"
#include "emit/emitter.hpp"
#include "migrate/engine/findings_json.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "outputs/csv_tables.hpp"
#include "outputs/run_outputs.hpp"
#include "plan/planner.hpp"
#include "plugin_host/crash_report.hpp"
#include "progress/progress.hpp"
#include "report/reporter.hpp"
#include "rules/rule_pack.hpp"
#include "rules/rule_set.hpp"
#include "time/utc_time.hpp"
#include "verify/verifier.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<spdlog::logger> makeLogger(const fs::path& log_file, const RunOptions& options) {
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_level(options.quiet ? spdlog::level::warn : spdlog::level::info);
  console->set_pattern("%^%l%$: %v");
  std::vector<spdlog::sink_ptr> sinks{console};
  try {
    auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file.string(), true);
    file->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
    file->set_level(spdlog::level::debug);
    sinks.push_back(file);
  } catch (const spdlog::spdlog_ex&) {
    // No run log without a writable output directory; the caller reports that.
  }
  auto logger = std::make_shared<spdlog::logger>("migrate", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::info);
  return logger;
}

/// Writes findings.json and the CSV tables with what the run has so far, side by side (both only
/// read the model; on an unchanged re-run they were a tenth of the time); false (logged) when
/// they cannot be written.
bool persist(const MigrationModel& model, const fs::path& out, spdlog::logger& log) {
  auto json = std::async(std::launch::async, [&] { return writeFindingsJson(model, out / "findings.json"); });
  const Status csv = outputs::writeCsvTables(model, out);
  for (const Status& st : {json.get(), csv})
    if (!st) {
      log.error("{}", st.error().message);
      return false;
    }
  return true;
}

void summarize(const MigrationModel& model, spdlog::logger& log) {
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

/// One line: bottlenecks, and the assessment's verdict and effort for the chosen goal.
std::string planSummary(const MigrationModel& model) {
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
  return line;
}

/// One line: what the emit stage adapted and left.
std::string emitSummary(const MigrationModel& model) {
  const EmitResult& e = model.emit;
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
  return line;
}

/// One line: where the verification ran and how it ended.
std::string verifySummary(const VerifyResult& v) {
  std::string line = v.status + " on " + v.host + " (target " + v.target + "): " + v.detail;
  for (const CheckResult& c : v.checks)
    if (c.broken()) line += "; " + c.stage + "/" + c.check + " " + (c.outcome.empty() ? c.status : c.outcome);
  return line;
}

/// Peak resident memory of the process so far, in MB.
double peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
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

/// Records `record`, replacing an earlier record of the same stage.
void setStage(MigrationModel& model, StageRecord record) {
  for (StageRecord& s : model.stages)
    if (s.name == record.name) {
      s = std::move(record);
      return;
    }
  model.stages.push_back(std::move(record));
}

/// The report stage: records itself in the model and says whether it wrote everything. Runs
/// also after an earlier stage failed, so that the report says which and why.
bool reportStage(MigrationModel& model, const PipelineSpec& spec, const fs::path& out, spdlog::logger& log) {
  if (std::find(spec.stages.begin(), spec.stages.end(), "report") == spec.stages.end()) {
    setStage(model, {"report", "skipped", "not selected in the pipeline's stages", 0});
    return true;
  }
  const auto t0 = Clock::now();
  const auto written = writeReport(model, spec, out, std::time(nullptr));
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!written) {
    log.error("stage report: {}", written.error().message);
    setStage(model, {"report", "failed", written.error().message, secs});
    return false;
  }
  const ReportOutputs& w = written.value();
  const std::string detail =
      w.report.filename().string() + ", findings.sarif, " + w.chart.filename().string();
  setStage(model, {"report", "completed", detail, secs});
  log.info("report: {}{} ({:.2f} s, peak RSS {:.0f} MB)", w.report.string(),
           w.copy.empty() ? "" : " and " + w.copy.string(), secs, peakRssMb());
  return true;
}

}  // namespace

int runPipeline(const PipelineSpec& spec, const RunOptions& options) {
  // libgit2 initialised once for the whole run: each first initialisation loads the system's CA
  // certificates, and acquiring the source and the inventory would each do it again.
  const git::Session git_session;
  const fs::path out = fs::absolute(spec.output);
  std::error_code ec;
  fs::create_directories(out, ec);
  auto log = makeLogger(out / "run.log", options);
  if (ec) {
    log->error("cannot create output directory {}: {}", out.string(), ec.message());
    return kExitUsage;
  }
  installCrashReport(out / "run.log");

  MigrationModel model;
  model.tool_version = sdk::kSdkVersion;
  model.pipeline_name = spec.name;
  model.pipeline_file = spec.file.string();
  model.started_at = utcNow();
  // What the run was asked to analyse, kept when the source cannot be acquired.
  model.source.kind = spec.source.url.empty() ? "path" : "git";
  model.source.location = spec.source.url.empty() ? spec.source.path : spec.source.url;
  model.source.ref = spec.source.ref;
  log->info("pipeline {} ({}), output {}", spec.name, spec.file.string(), out.string());
  {  // The effective pipeline, for `migrate-pipeline verify OUTPUT_DIR` and for the record.
    std::ofstream dump(out / "pipeline.yaml", std::ios::binary | std::ios::trunc);
    dump << "# The effective pipeline of this run (" << spec.file.string() << " with overrides).\n"
         << dumpPipeline(spec);
  }

  // Plugins.
  const fs::path plugin_dir = spec.plugin_dir.empty() ? defaultPluginDir() : fs::path(spec.plugin_dir);
  auto catalog = discoverPlugins(plugin_dir);
  if (!catalog) {
    log->error("{}", catalog.error().message);
    model.stages.push_back({"analyze", "failed", catalog.error().message, 0});
    reportStage(model, spec, out, *log);
    persist(model, out, *log);
    return kExitPlugins;
  }
  for (const auto& refusal : catalog->refused) {
    log->warn("plugin refused: {}", refusal);
    model.diagnostics.push_back({sdk::Severity::Warning, "plugin-refused", "", 0, refusal});
  }
  std::vector<ActivePlugin> active;
  std::vector<std::unique_ptr<sdk::PluginContext>> contexts;
  for (const auto& sel : spec.plugins) {
    if (!sel.enabled) continue;
    const LoadedPlugin* loaded = catalog->find(sel.name);
    if (!loaded) {
      std::string names;
      for (const auto& p : catalog->plugins) names += (names.empty() ? "" : ", ") + p.info.name;
      const std::string msg = sel.location + ": plugin '" + sel.name + "' is not in " + plugin_dir.string() +
                              " (found: " + (names.empty() ? "none" : names) +
                              "); build it, fix the name, or set plugin_dir";
      log->error("{}", msg);
      model.stages.push_back({"analyze", "failed", msg, 0});
      reportStage(model, spec, out, *log);
      persist(model, out, *log);
      return kExitPlugins;
    }
    auto opts = resolveOptions(sel, loaded->info);
    if (!opts) {
      log->error("{}", opts.error().message);
      model.stages.push_back({"analyze", "failed", opts.error().message, 0});
      reportStage(model, spec, out, *log);
      persist(model, out, *log);
      return kExitUsage;
    }
    contexts.push_back(
        makePluginContext(*loaded, std::move(opts.value()), [log](bool warning, std::string_view m) {
          if (warning)
            log->warn("{}", m);
          else
            log->info("{}", m);
        }));
    std::string failure;
    try {
      loaded->plugin->configure(*contexts.back());
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      failure = "unknown exception";
    }
    if (!failure.empty()) {
      const std::string msg = "plugin " + sel.name + " failed in configure: " + failure + "; it is skipped";
      log->error("{}", msg);
      model.diagnostics.push_back({sdk::Severity::Error, "plugin-error", "", 0, msg});
      continue;
    }
    active.push_back({loaded});
    model.plugins.push_back({loaded->info.name, loaded->info.version, loaded->info.domain,
                             loaded->rules->rules().size(), loaded->file.string()});
    for (const rules::Rule& r : loaded->rules->rules())
      model.rules.push_back({loaded->info.name, r.info(), r.no_npu_counterpart});
  }
  // Rule packs: every problem of every pack is reported, and the run stops before analysing.
  std::vector<LoadedPlugin> packs;
  if (!spec.rule_packs.empty()) {
    const std::vector<fs::path> dirs(spec.rule_packs.begin(), spec.rule_packs.end());
    rules::PackLoad load = rules::loadRulePacks(dirs, knownRules(*catalog), sdk::kSdkVersion);
    if (!load.errors.empty()) {
      for (const std::string& e : load.errors) log->error("rule pack: {}", e);
      const std::string msg = std::to_string(load.errors.size()) +
                              (load.errors.size() == 1 ? " problem" : " problems") +
                              " in the rule packs, the first: " + load.errors.front();
      model.stages.push_back({"analyze", "failed", msg, 0});
      reportStage(model, spec, out, *log);
      persist(model, out, *log);
      return kExitPlugins;
    }
    packs.reserve(load.packs.size());  // `active` points into it
    for (const rules::RulePack& pack : load.packs) {
      packs.push_back(packPlugin(pack));
      const LoadedPlugin& loaded = packs.back();
      active.push_back({&loaded});
      model.plugins.push_back(
          {pack.name, pack.version, loaded.info.domain, pack.rules.size(), pack.dir.string()});
      for (const rules::Rule& r : pack.rules)
        model.rules.push_back({pack.name, r.info(), r.no_npu_counterpart});
      for (const rules::PackDomain& d : pack.domains) model.domains.push_back({d.name, d.title, pack.name});
      log->info("rule pack {} {} ({}): {} rules, domain {}", pack.name, pack.version, pack.dir.string(),
                pack.rules.size(), loaded.info.domain);
    }
  }
  std::sort(model.rules.begin(), model.rules.end(),
            [](const RuleRecord& a, const RuleRecord& b) { return a.info.id < b.info.id; });

  // Acquire.
  const fs::path work_dir = spec.work_dir.empty() ? out / "_work" : fs::path(spec.work_dir);
  auto source = acquireSource(spec.source, work_dir, [&](const std::string& m) { log->info("{}", m); });
  if (!source) {
    log->error("{}", source.error().message);
    model.stages.push_back({"analyze", "failed", source.error().message, 0});
    reportStage(model, spec, out, *log);
    persist(model, out, *log);
    return kExitSource;
  }
  model.source = source.value();
  log->info("source {} ({}){}", model.source.location, model.source.kind,
            model.source.commit.empty() ? "" : " at commit " + model.source.commit);

  std::optional<Workspace> workspace;
  bool stage_failed = false;
  // plan and emit work on this run's analysis; without it they fail and say so.
  auto failWithoutAnalysis = [&](const std::string& stage) {
    const std::string why = "the " + stage + " stage needs the analyze stage in the same run";
    log->error("stage {}: {}", stage, why);
    model.stages.push_back({stage, "failed", why, 0});
    stage_failed = true;
  };
  // The outputs are written after each stage, so that a later stage's failure or crash loses
  // nothing; after the last selected stage the final write below is the only one needed (the
  // whole findings.json once, not twice, on an analysis-only run).
  auto moreToRun = [&](const std::string& stage) {
    const auto at = std::find(kAllStages.begin(), kAllStages.end(), stage);
    return std::any_of(at == kAllStages.end() ? at : std::next(at), kAllStages.end(),
                       [&](const std::string& s) {
                         return std::find(spec.stages.begin(), spec.stages.end(), s) != spec.stages.end();
                       });
  };
  for (const std::string& stage : kAllStages) {
    const bool selected = std::find(spec.stages.begin(), spec.stages.end(), stage) != spec.stages.end();
    if (!selected) {
      model.stages.push_back({stage, "skipped", "not selected in the pipeline's stages", 0});
      continue;
    }
    if (stage == "analyze") {
      const auto t0 = Clock::now();
      std::vector<sdk::Diagnostic> inventory_diags;
      const Workspace& ws = workspace.emplace(buildInventory(
          model.source.root, {spec.include, spec.exclude, spec.max_file_bytes, threadsFor(spec.jobs)},
          inventory_diags));
      model.inventory.skipped = inventory_diags.size();
      model.diagnostics.insert(model.diagnostics.end(), inventory_diags.begin(), inventory_diags.end());
      log->info("inventory: {} files selected, {} skipped", ws.files().size(), inventory_diags.size());
      auto progress =
          makeProgress(options.terminal && !options.quiet, [&](const std::string& m) { log->info("{}", m); });
      const std::size_t known = model.diagnostics.size();
      std::unique_ptr<cache::CacheStore> store = cache::openCache(spec.cache, model.diagnostics);
      for (std::size_t i = known; i < model.diagnostics.size(); ++i)
        log->warn("{}", model.diagnostics[i].message);
      std::optional<CacheUse> cache_use;
      if (store) cache_use.emplace(CacheUse{*store, cache::runContext(spec, active, projectRoots(ws))});
      analyzeWorkspace(ws, active, {spec.jobs, spec.parse_timeout_ms}, *progress, model,
                       cache_use ? &*cache_use : nullptr);
      separateDependencyRows(model);
      if (store) {
        if (auto written = store->commit(); !written) {
          model.diagnostics.push_back({sdk::Severity::Warning, "cache-not-written", "", 0,
                                       written.error().message + "; the next run analyses these files anew"});
          log->warn("{}", model.diagnostics.back().message);
        }
        log->info("analysis cache: {}", store->file().string());
      }
      const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      model.stages.push_back({"analyze", "completed",
                              std::to_string(model.inventory.python_parsed) + " Python files analysed",
                              secs});
      summarize(model, *log);
      logStatistics(model, secs, *log);
      if (moreToRun(stage)) persist(model, out, *log);
      continue;
    }
    if (stage == "plan") {
      if (!workspace) {
        failWithoutAnalysis(stage);
        continue;
      }
      const auto t0 = Clock::now();
      planRepository(*workspace, spec.plan, active, model);
      const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      model.stages.push_back({stage, "completed", planSummary(model), secs});
      log->info("plan: {} ({:.2f} s, peak RSS {:.0f} MB)", planSummary(model), secs, peakRssMb());
      if (moreToRun(stage)) persist(model, out, *log);
      continue;
    }
    if (stage == "emit") {
      if (!workspace) {
        failWithoutAnalysis(stage);
        continue;
      }
      const auto t0 = Clock::now();
      const Status st = emitKit(*workspace, spec.emit, spec.verify, active, model, out,
                                [&](const std::string& m) { log->info("{}", m); });
      const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!st) {
        log->error("stage emit: {}", st.error().message);
        model.stages.push_back({stage, "failed", st.error().message, secs});
        stage_failed = true;
      } else {
        model.stages.push_back({stage, "completed", emitSummary(model), secs});
        log->info("emit: {} ({:.2f} s, peak RSS {:.0f} MB)", emitSummary(model), secs, peakRssMb());
        if (model.emit.tree_reused)  // in the log only: the outputs are those of a cold emit
          log->info("emit: adapted/: {} of {} files kept from the previous emit", model.emit.tree_reused,
                    model.emit.tree_files);
      }
      if (moreToRun(stage)) persist(model, out, *log);
      continue;
    }
    if (stage == "verify") {
      VerifyInputs inputs;
      if (model.emit.computed) {
        inputs = verifyInputsFrom(model, out);
      } else if (auto from_disk = verifyInputsFrom(out)) {
        inputs = std::move(from_disk.value());
        inputs.tool_version = model.tool_version;
      } else {
        log->error("stage verify: {}", from_disk.error().message);
        model.stages.push_back({stage, "failed", from_disk.error().message, 0});
        stage_failed = true;
        continue;
      }
      model.verify = runVerification(spec, inputs, [&](const std::string& m) { log->info("{}", m); });
      const std::string line = verifySummary(model.verify);
      if (model.verify.status == "completed") {
        log->info("verify: {}", line);
        model.stages.push_back({stage, "completed", line, model.verify.seconds});
      } else {
        log->error("stage verify: {}", line);
        model.stages.push_back({stage, "failed", line, model.verify.seconds});
        stage_failed = true;
      }
      if (moreToRun(stage)) persist(model, out, *log);
      continue;
    }
    if (stage == "report") stage_failed = !reportStage(model, spec, out, *log) || stage_failed;
  }
  const bool ok = persist(model, out, *log) && !stage_failed;
  if (ok) log->info("wrote {}", (out / "findings.json").string());
  // The model (every finding, module and rule) ends with the process, which returns its memory at
  // once: freeing it piece by piece was 7 % of an unchanged re-run. A static pointer holds it, so
  // that leak checkers see it reachable.
  static MigrationModel* last_model = nullptr;
  delete std::exchange(last_model, new MigrationModel(std::move(model)));
  return ok ? kExitOk : kExitStageFailed;
}

namespace {

/// The effective pipeline of a run's output directory with `overrides` applied; the error
/// printed and nullopt when there is none or it is invalid.
std::optional<PipelineSpec> outputPipeline(const fs::path& out, const std::vector<Override>& overrides) {
  if (!fs::exists(out / "pipeline.yaml")) {
    std::cerr << "error: " << out.string()
              << " has no pipeline.yaml: give the output directory of a `migrate-pipeline run`\n";
    return std::nullopt;
  }
  auto spec = loadPipeline(out / "pipeline.yaml", overrides);
  if (!spec) {
    std::cerr << "error: " << spec.error().message << "\n";
    return std::nullopt;
  }
  return std::move(spec.value());
}

}  // namespace

int verifyOutputDirectory(const fs::path& out_dir, const std::vector<Override>& overrides,
                          const RunOptions& options) {
  const fs::path out = fs::absolute(out_dir);
  const auto spec = outputPipeline(out, overrides);
  if (!spec) return kExitUsage;
  auto inputs = verifyInputsFrom(out);
  if (!inputs) {
    std::cerr << "error: " << inputs.error().message << "\n";
    return kExitStageFailed;
  }
  std::error_code ec;
  fs::create_directories(out / "verify", ec);
  auto log = makeLogger(out / "verify" / "verify-run.log", options);
  inputs->tool_version = sdk::kSdkVersion;
  const VerifyResult result =
      runVerification(*spec, *inputs, [&](const std::string& m) { log->info("{}", m); });
  const std::string line = verifySummary(result);
  if (result.status != "completed")
    log->error("verify: {}", line);
  else
    log->info("verify: {}", line);
  log->info("wrote {}", (out / "verify.json").string());

  // The run's record and report follow the new verification.
  auto model = readRunOutputs(out);
  if (!model) {
    log->warn("findings.json and the report are not updated: {}", model.error().message);
  } else {
    model->verify = result;
    setStage(*model, {"verify", result.status == "completed" ? "completed" : "failed", line, result.seconds});
    const bool reported = std::any_of(model->stages.begin(), model->stages.end(), [](const StageRecord& s) {
      return s.name == "report" && s.status != "skipped";
    });
    if (reported) reportStage(*model, *spec, out, *log);
    persist(*model, out, *log);
  }
  return result.status == "completed" ? kExitOk : kExitStageFailed;
}

int reportOutputDirectory(const fs::path& out_dir, const std::vector<Override>& overrides,
                          const RunOptions& options) {
  const fs::path out = fs::absolute(out_dir);
  auto spec = outputPipeline(out, overrides);
  if (!spec) return kExitUsage;
  auto log = makeLogger(out / "report-run.log", options);
  auto model = readRunOutputs(out);
  if (!model) {
    log->error("{}", model.error().message);
    return kExitStageFailed;
  }
  if (model->verify.computed)  // verify.json may be newer than findings.json's record of it
    setStage(*model, {"verify", model->verify.status == "completed" ? "completed" : "failed",
                      verifySummary(model->verify), model->verify.seconds});
  if (std::find(spec->stages.begin(), spec->stages.end(), "report") == spec->stages.end())
    spec->stages.push_back("report");  // asked for by name
  const bool written = reportStage(*model, *spec, out, *log);
  return persist(*model, out, *log) && written ? kExitOk : kExitStageFailed;
}

}  // namespace migrate
