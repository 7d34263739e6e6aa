// migrate-pipeline: the command line. Argument handling only; the work is in the engine.

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "build_info.hpp"
#include "migrate/engine/fleet.hpp"
#include "migrate/engine/install_layout.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/plugin_scaffold.hpp"
#include "migrate/engine/rule_tools.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"

namespace fs = std::filesystem;
using namespace migrate;

namespace {

/// Overrides shared by `run` and `config dump`.
struct OverrideFlags {
  std::string source;
  std::string ref;
  std::string output;
  int jobs = -1;
  std::string stages;
  std::string plugin_dir;
  std::vector<std::string> rule_packs;
  bool no_cache = false;
  bool rerun_verify = false;
  std::vector<std::string> sets;

  void add(CLI::App* app) {
    app->add_option("--source", source, "Repository to analyse: a local path or a git URL");
    app->add_option("--ref", ref, "Branch, tag or commit to check out (git URL sources)");
    app->add_option("--output", output, "Output directory");
    app->add_option("--jobs", jobs, "Worker threads (0 = all cores)")->check(CLI::Range(0, 1024));
    app->add_option("--stages", stages, "Comma-separated stages: analyze,plan,emit,verify,report");
    app->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");
    app->add_option("--rule-pack", rule_packs,
                    "A rule pack directory to load besides the pipeline's rule_packs (repeatable)");
    app->add_flag("--no-cache", no_cache,
                  "Analyse every file anew; neither read nor write the analysis cache");
    app->add_flag(
        "--rerun-verify", rerun_verify,
        "Run every verification check, even those whose inputs did not change (verify.reuse=false)");
    app->add_option("--set", sets, "Override a pipeline key: dotted.key=value (value is YAML; null removes)");
  }

  static bool isUrl(const std::string& s) {
    return s.find("://") != std::string::npos ||
           (s.find('@') != std::string::npos && s.find(':') != std::string::npos) ||
           (s.size() > 4 && s.compare(s.size() - 4, 4, ".git") == 0 && !fs::is_directory(s));
  }

  Result<std::vector<Override>> overrides() const {
    std::vector<Override> out;
    if (!source.empty()) {
      if (isUrl(source)) {
        out.push_back({"source.path", "null"});
        out.push_back({"source.url", source});
      } else {
        out.push_back({"source.url", "null"});
        out.push_back({"source.ref", "null"});
        out.push_back({"source.path", fs::absolute(source).lexically_normal().string()});
      }
    }
    if (!ref.empty()) out.push_back({"source.ref", ref});
    if (!output.empty()) out.push_back({"output", output});
    if (jobs >= 0) out.push_back({"jobs", std::to_string(jobs)});
    if (!stages.empty()) out.push_back({"stages", "[" + stages + "]"});
    if (!plugin_dir.empty()) out.push_back({"plugin_dir", fs::absolute(plugin_dir).string()});
    if (no_cache) out.push_back({"cache.enabled", "false"});
    if (rerun_verify) out.push_back({"verify.reuse", "false"});
    for (const auto& s : sets) {
      auto o = parseOverride(s);
      if (!o) return o.error();
      out.push_back(o.value());
    }
    return out;
  }
};

/// `--version`: the version, the commit, what a plugin must match, and where this one looks.
std::string versionText() {
  const InstallLayout& layout = installLayout();
  return std::string("migrate-pipeline ") + sdk::kSdkVersion + "\ncommit: " + build_info::kGitCommit +
         "\nplugin ABI: " + std::to_string(sdk::kAbiVersion) + " (" + MIGRATE_TOOLCHAIN_TAG + ")" +
         "\nplugins: " + defaultPluginDir().string() + "\npipelines: " + layout.pipeline_dir.string() +
         (layout.build_tree ? " (build tree)" : "");
}

Result<PipelineSpec> loadWithOverrides(const std::string& name, const OverrideFlags& flags) {
  auto file = resolvePipeline(name, installLayout());
  if (!file) return file.error();
  auto overrides = flags.overrides();
  if (!overrides) return overrides.error();
  auto spec = loadPipeline(file.value(), overrides.value());
  if (spec)
    for (const auto& dir : flags.rule_packs)
      spec->rule_packs.push_back(fs::absolute(dir).lexically_normal().string());
  return spec;
}

int configDump(const std::string& file, const OverrideFlags& flags) {
  auto spec = loadWithOverrides(file, flags);
  if (!spec) {
    std::cerr << "error: " << spec.error().message << "\n";
    return kExitUsage;
  }
  // Fill in and check plugin options when the plugins can be loaded.
  const fs::path dir = spec->plugin_dir.empty() ? defaultPluginDir() : fs::path(spec->plugin_dir);
  if (auto catalog = discoverPlugins(dir)) {
    for (auto& sel : spec->plugins) {
      const LoadedPlugin* p = catalog->find(sel.name);
      if (!p) {
        std::cerr << "error: " << sel.location << ": plugin '" << sel.name << "' is not in " << dir.string()
                  << "\n";
        return kExitPlugins;
      }
      auto opts = resolveOptions(sel, p->info);
      if (!opts) {
        std::cerr << "error: " << opts.error().message << "\n";
        return kExitUsage;
      }
      for (const auto& o : p->info.options) {
        const sdk::OptionValue& value = opts.value().at(o.name);
        OptionInput in;
        in.is_list = o.type == sdk::OptionSpec::Type::StringList;
        in.scalar = value.scalar;
        in.items = value.list;
        sel.options[o.name] = in;
      }
    }
  } else {
    std::cerr << "warning: " << catalog.error().message << " (plugin options not checked)\n";
  }
  std::cout << dumpPipeline(spec.value());
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"migrate-pipeline: analyse a PyTorch/CUDA repository and migrate it to Ascend NPUs"};
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", versionText,
      "Print the version, git commit and plugin ABI, and where plugins and pipelines are found");
  app.footer(
      "Exit codes: 0 success, 2 usage or pipeline error, 3 source not acquired, 4 plugin or rule pack error, "
      "5 a stage failed (earlier outputs kept); fleet: 6 some repositories failed, 7 the fleet directory is "
      "busy, 8 the fleet store cannot be used, 128+N interrupted by signal N.");

  std::string pipeline;
  OverrideFlags run_flags;
  bool quiet = false;
  auto* run = app.add_subcommand("run", "Run a pipeline");
  run->add_option("pipeline", pipeline,
                  "Pipeline YAML file, or a shipped pipeline's name (full, analyze-only)")
      ->required();
  run_flags.add(run);
  run->add_flag("-q,--quiet", quiet, "Only warnings and errors");

  std::string verify_dir;
  std::vector<std::string> verify_sets;
  bool verify_quiet = false;
  bool verify_rerun = false;
  auto* verify = app.add_subcommand("verify", "Run the verification again on a run's output directory");
  verify->add_option("output_dir", verify_dir, "Output directory of `migrate-pipeline run`")->required();
  verify->add_option("--set", verify_sets, "Override a key of the run's pipeline, e.g. verify.target=lab");
  verify->add_flag("-q,--quiet", verify_quiet, "Only warnings and errors");
  verify->add_flag("--rerun-verify", verify_rerun,
                   "Run every check, even those whose inputs did not change since the last verification");

  std::string report_dir;
  std::vector<std::string> report_sets;
  bool report_quiet = false;
  auto* report = app.add_subcommand("report", "Write the report again from a run's output directory");
  report->add_option("output_dir", report_dir, "Output directory of `migrate-pipeline run`")->required();
  report->add_option("--set", report_sets,
                     "Override a key of the run's pipeline, e.g. report.directory=docs");
  report->add_flag("-q,--quiet", report_quiet, "Only warnings and errors");

  std::string plugin_dir;
  std::vector<std::string> pack_dirs;
  auto* plugins =
      app.add_subcommand("plugins", "List the plugins found and the rule packs given, without analysing");
  plugins->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");
  plugins->add_option("--rule-pack", pack_dirs, "A rule pack directory to list (repeatable)");
  std::string plugins_pipeline;
  plugins->add_option("--pipeline", plugins_pipeline,
                      "Also list this pipeline's rule_packs (and use its plugin_dir unless --plugin-dir)");

  auto* rules_cmd = app.add_subcommand("rules", "Rules of the plugins and rule packs: test, list, show");
  rules_cmd->require_subcommand(1);
  std::vector<std::string> test_dirs;
  auto* rules_test = rules_cmd->add_subcommand(
      "test", "Run the valid/invalid snippets of every rule of rule packs or plugin rule directories");
  rules_test->add_option("dirs", test_dirs, "Rule pack directories, or plugin rules directories")->required();
  rules_test->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");
  std::string rules_domain;
  std::string rules_format = "table";
  auto* rules_list =
      rules_cmd->add_subcommand("list", "List the rules of the plugins and the rule packs given");
  rules_list->add_option("--domain", rules_domain, "Only the rules of this domain");
  rules_list->add_option("--format", rules_format, "table or json")->check(CLI::IsMember({"table", "json"}));
  rules_list->add_option("--rule-pack", pack_dirs, "A rule pack directory (repeatable)");
  rules_list->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");
  std::string rule_id;
  auto* rules_show =
      rules_cmd->add_subcommand("show", "A rule's message, NPU alternative, doc entry and snippets");
  rules_show->add_option("id", rule_id, "The rule id, e.g. DEV-001")->required();
  rules_show->add_option("--rule-pack", pack_dirs, "A rule pack directory (repeatable)");
  rules_show->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");

  auto* new_cmd = app.add_subcommand("new", "Write a skeleton: a rule pack or a plugin project");
  new_cmd->require_subcommand(1);
  std::string new_name;
  std::string new_dir;
  auto* new_pack = new_cmd->add_subcommand("pack", "A rule pack that passes `rules test` as written");
  new_pack->add_option("name", new_name, "The pack's name, e.g. acme-gpu")->required();
  new_pack->add_option("--dir", new_dir, "Where its directory goes (default: the working directory)");
  auto* new_plugin = new_cmd->add_subcommand(
      "plugin", "A plugin project against the installed SDK that builds and passes its tests as written");
  new_plugin->add_option("name", new_name, "The plugin's name, e.g. acme-gpu (plugin and domain acme_gpu)")
      ->required();
  new_plugin->add_option("--dir", new_dir, "Where its directory goes (default: the working directory)");

  auto* config = app.add_subcommand("config", "Pipeline configuration");
  config->require_subcommand(1);
  std::string dump_file;
  OverrideFlags dump_flags;
  auto* dump = config->add_subcommand("dump", "Print the effective, validated pipeline");
  dump->add_option("pipeline", dump_file, "Pipeline YAML file, or a shipped pipeline's name")->required();
  dump_flags.add(dump);

  auto* fleet = app.add_subcommand("fleet", "Many repositories, every night: run, status, history, merge");
  fleet->require_subcommand(1);
  FleetRunOptions fleet_run;
  std::string fleet_only;
  std::string fleet_shard;
  auto* fleet_run_cmd = fleet->add_subcommand("run", "Run the night over a fleet manifest");
  fleet_run_cmd->add_option("manifest", fleet_run.manifest, "Fleet manifest YAML (format 1)")->required();
  fleet_run_cmd->add_option("--output", fleet_run.output, "Fleet directory: store, mirrors, outputs")
      ->required();
  fleet_run_cmd->add_option("--jobs", fleet_run.jobs, "Repositories at once (0 = the number of cores)")
      ->check(CLI::Range(0, 256));
  fleet_run_cmd->add_option("--only", fleet_only, "Comma-separated repository names");
  fleet_run_cmd
      ->add_option("--rerun", fleet_run.rerun,
                   "failed: run the latest night's failures again; all: ignore the cache")
      ->check(CLI::IsMember({"failed", "all"}));
  fleet_run_cmd->add_option("--shard", fleet_shard,
                            "I/N: this machine's slice of the manifest (1 <= I <= N)");
  fleet_run_cmd->add_option("--night", fleet_run.night, "The night's label (default: today's UTC date)");
  fleet_run_cmd->add_option(
      "--executable", fleet_run.executable,
      "The migrate-pipeline the runs, Slurm tasks or Kubernetes pods start (default: this "
      "one; k8s from a build tree: migrate-pipeline on the image's PATH)");
  fleet_run_cmd->add_flag("-q,--quiet", fleet_run.quiet, "Only failures and the summary");
  fleet_run_cmd
      ->add_option("--scheduler", fleet_run.scheduler,
                   "local (default), slurm (a job array and a merge job) or k8s (write Kubernetes Jobs)")
      ->check(CLI::IsMember({"local", "slurm", "k8s"}));
  fleet_run_cmd->add_option("--shards", fleet_run.shards, "slurm, k8s: shards of the night")
      ->check(CLI::Range(1, 10000));
  fleet_run_cmd->add_option("--array-limit", fleet_run.array_limit, "slurm: array tasks at once")
      ->check(CLI::Range(0, 10000));
  fleet_run_cmd->add_option("--partition", fleet_run.partition, "slurm: the partition");
  fleet_run_cmd->add_flag("--no-wait", fleet_run.no_wait, "slurm: submit and return");
  fleet_run_cmd->add_option("--parallelism", fleet_run.parallelism, "k8s: shards at once")
      ->check(CLI::Range(1, 10000));
  fleet_run_cmd->add_option("--image", fleet_run.image, "k8s: container image with migrate-pipeline");
  fleet_run_cmd->add_option("--claim", fleet_run.claim,
                            "k8s: PersistentVolumeClaim holding the fleet directory");
  fleet_run_cmd->add_option("--cpu", fleet_run.cpu, "k8s: CPU request and limit per shard");
  fleet_run_cmd->add_option("--memory", fleet_run.memory, "k8s: memory request and limit per shard");
  std::string fleet_dir;
  std::int64_t fleet_night = 0;
  std::string fleet_format = "table";
  auto* fleet_status = fleet->add_subcommand("status", "One row per repository of a night");
  fleet_status->add_option("dir", fleet_dir, "Fleet directory")->required();
  fleet_status->add_option("--night", fleet_night, "Night id (default: the latest)")
      ->check(CLI::PositiveNumber);
  fleet_status->add_option("--format", fleet_format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  auto* fleet_history = fleet->add_subcommand("history", "One row per night");
  fleet_history->add_option("dir", fleet_dir, "Fleet directory")->required();
  fleet_history->add_option("--format", fleet_format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  std::string diff_from, diff_to, diff_repo, diff_format = "md";
  auto* fleet_diff = fleet->add_subcommand(
      "diff", "Findings new, fixed and persisting between two nights, and why they moved");
  fleet_diff->add_option("dir", fleet_dir, "Fleet directory")->required();
  fleet_diff->add_option("--from", diff_from, "The earlier night's label (default: the one before --to)");
  fleet_diff->add_option("--to", diff_to, "The later night's label (default: the latest)");
  fleet_diff->add_option("--repo", diff_repo, "Only this repository");
  fleet_diff->add_option("--format", diff_format, "md, csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  std::string report_night, report_format = "md";
  auto* fleet_report = fleet->add_subcommand(
      "report", "What blocks the most repositories, effort by domain, and what solving each would do");
  fleet_report->add_option("dir", fleet_dir, "Fleet directory")->required();
  fleet_report->add_option("--night", report_night, "The night's label (default: the latest)");
  fleet_report->add_option("--format", report_format, "md, csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  auto* fleet_dashboard = fleet->add_subcommand("dashboard", "Write DIR/index.html from the store");
  fleet_dashboard->add_option("dir", fleet_dir, "Fleet directory")->required();
  std::vector<std::string> merge_dirs;
  auto* fleet_merge = fleet->add_subcommand("merge", "Combine shard stores into one");
  fleet_merge->add_option("--output", fleet_dir, "Fleet directory receiving the merged store")->required();
  fleet_merge->add_option("shard_dirs", merge_dirs, "Fleet directories of the shards")->required();
  std::string merge_manifest;
  std::string merge_night;
  fleet_merge->add_option("--manifest", merge_manifest,
                          "With --night: record the manifest's repositories no shard recorded as failed");
  fleet_merge->add_option("--night", merge_night, "The night's label (with --manifest)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (*fleet_run_cmd) {
    if (!fleet_shard.empty() && !parseShard(fleet_shard, fleet_run.shard_index, fleet_run.shard_count)) {
      std::cerr << "error: --shard " << fleet_shard << ": expected I/N with 1 <= I <= N, e.g. --shard 2/4\n";
      return kExitUsage;
    }
    for (std::size_t start = 0; !fleet_only.empty() && start <= fleet_only.size();) {
      const std::size_t comma = std::min(fleet_only.find(',', start), fleet_only.size());
      if (comma > start) fleet_run.only.push_back(fleet_only.substr(start, comma - start));
      start = comma + 1;
    }
    fleet_run.terminal = isatty(STDERR_FILENO) != 0;
    return runFleet(fleet_run);
  }
  if (*fleet_status) return fleetStatus(fleet_dir, fleet_night, fleet_format);
  if (*fleet_history) return fleetHistory(fleet_dir, fleet_format);
  if (*fleet_diff) return fleetDiff(fleet_dir, diff_from, diff_to, diff_repo, diff_format);
  if (*fleet_report) return fleetReport(fleet_dir, report_night, report_format);
  if (*fleet_dashboard) return fleetDashboard(fleet_dir);
  if (*fleet_merge) {
    std::vector<fs::path> shards(merge_dirs.begin(), merge_dirs.end());
    return fleetMerge(fleet_dir, shards, merge_manifest, merge_night);
  }
  if (!plugins_pipeline.empty()) {
    auto file = resolvePipeline(plugins_pipeline, installLayout());
    if (!file) {
      std::cerr << "error: " << file.error().message << "\n";
      return kExitUsage;
    }
    auto spec = loadPipeline(file.value(), {});
    if (!spec) {
      std::cerr << "error: " << spec.error().message << "\n";
      return kExitUsage;
    }
    if (plugin_dir.empty()) plugin_dir = spec->plugin_dir;
    pack_dirs.insert(pack_dirs.begin(), spec->rule_packs.begin(), spec->rule_packs.end());
  }
  RuleSources rule_sources{plugin_dir, std::vector<fs::path>(pack_dirs.begin(), pack_dirs.end())};
  if (*plugins) return listPlugins(rule_sources);
  if (*rules_test) return rulesTest(std::vector<fs::path>(test_dirs.begin(), test_dirs.end()), rule_sources);
  if (*rules_list) return rulesList(rule_sources, rules_domain, rules_format);
  if (*rules_show) return rulesShow(rule_id, rule_sources);
  if (*new_pack) return newPack(new_name, new_dir);
  if (*new_plugin) return newPlugin(new_name, new_dir);
  if (*dump) return configDump(dump_file, dump_flags);
  if (*verify || *report) {
    std::vector<Override> overrides;
    for (const auto& text : *verify ? verify_sets : report_sets) {
      auto o = parseOverride(text);
      if (!o) {
        std::cerr << "error: " << o.error().message << "\n";
        return kExitUsage;
      }
      overrides.push_back(o.value());
    }
    if (*verify && verify_rerun) overrides.push_back({"verify.reuse", "false"});
    RunOptions options;
    options.terminal = isatty(STDERR_FILENO) != 0;
    options.quiet = *verify ? verify_quiet : report_quiet;
    return *verify ? verifyOutputDirectory(verify_dir, overrides, options)
                   : reportOutputDirectory(report_dir, overrides, options);
  }
  auto spec = loadWithOverrides(pipeline, run_flags);
  if (!spec) {
    std::cerr << "error: " << spec.error().message << "\n";
    return kExitUsage;
  }
  RunOptions options;
  options.terminal = isatty(STDERR_FILENO) != 0;
  options.quiet = quiet;
  return runPipeline(spec.value(), options);
}
