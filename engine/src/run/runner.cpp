#include "migrate/engine/runner.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>

#include "acquire/git_session.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "outputs/run_outputs.hpp"
#include "plugin_host/crash_report.hpp"
#include "rules/rule_pack.hpp"
#include "rules/rule_set.hpp"
#include "run/stages.hpp"
#include "time/utc_time.hpp"
#include "verify/verifier.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

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

/// A run that stops before its stages (no source, no plugins): the report still says why.
void reportAndPersist(const PipelineSpec& spec, const RunOptions& options, MigrationModel& model,
                      const fs::path& out, spdlog::logger& log) {
  const std::vector<ActivePlugin> none;
  run::StageRun report_run{spec, options, none, model, out, log, std::nullopt};
  run::runStage(run::stageNamed("report"), report_run);
  run::persist(model, out, log);
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
    reportAndPersist(spec, options, model, out, *log);
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
      reportAndPersist(spec, options, model, out, *log);
      return kExitPlugins;
    }
    auto opts = resolveOptions(sel, loaded->info);
    if (!opts) {
      log->error("{}", opts.error().message);
      model.stages.push_back({"analyze", "failed", opts.error().message, 0});
      reportAndPersist(spec, options, model, out, *log);
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
      reportAndPersist(spec, options, model, out, *log);
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
    reportAndPersist(spec, options, model, out, *log);
    return kExitSource;
  }
  model.source = source.value();
  log->info("source {} ({}){}", model.source.location, model.source.kind,
            model.source.commit.empty() ? "" : " at commit " + model.source.commit);

  // The stages, each timed, recorded and logged the same way (run/stages.cpp). The outputs are
  // written after each selected stage, so that a later stage's failure or crash loses nothing;
  // after the last selected stage the final write below is the only one needed (the whole
  // findings.json once, not twice, on an analysis-only run).
  auto selected = [&](const std::string& stage) {
    return std::find(spec.stages.begin(), spec.stages.end(), stage) != spec.stages.end();
  };
  auto moreToRun = [&](const std::string& stage) {
    const auto at = std::find(kAllStages.begin(), kAllStages.end(), stage);
    return std::any_of(at == kAllStages.end() ? at : std::next(at), kAllStages.end(), selected);
  };
  run::StageRun stage_run{spec, options, active, model, out, *log, std::nullopt};
  bool stage_failed = false;
  for (const run::Stage& stage : run::pipelineStages()) {
    stage_failed = !run::runStage(stage, stage_run) || stage_failed;
    if (selected(stage.name) && moreToRun(stage.name)) run::persist(model, out, *log);
  }
  const bool ok = run::persist(model, out, *log) && !stage_failed;
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
  const std::string line = run::verifySummary(result);
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
    run::setStage(*model,
                  {"verify", result.status == "completed" ? "completed" : "failed", line, result.seconds});
    const bool reported = std::any_of(model->stages.begin(), model->stages.end(), [](const StageRecord& s) {
      return s.name == "report" && s.status != "skipped";
    });
    if (reported) {
      const std::vector<ActivePlugin> none;
      run::StageRun report_run{*spec, options, none, *model, out, *log, std::nullopt};
      run::runStage(run::stageNamed("report"), report_run);
    }
    run::persist(*model, out, *log);
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
    run::setStage(*model, {"verify", model->verify.status == "completed" ? "completed" : "failed",
                           run::verifySummary(model->verify), model->verify.seconds});
  if (std::find(spec->stages.begin(), spec->stages.end(), "report") == spec->stages.end())
    spec->stages.push_back("report");  // asked for by name
  const std::vector<ActivePlugin> none;
  run::StageRun report_run{*spec, options, none, *model, out, *log, std::nullopt};
  const bool written = run::runStage(run::stageNamed("report"), report_run);
  return run::persist(*model, out, *log) && written ? kExitOk : kExitStageFailed;
}

}  // namespace migrate
