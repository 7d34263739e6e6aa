// migrate-pipeline: the command line. Argument handling only; the work is in the engine.

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"
#include "rules/rule_set.hpp"

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
  std::vector<std::string> sets;

  void add(CLI::App* app) {
    app->add_option("--source", source, "Repository to analyse: a local path or a git URL");
    app->add_option("--ref", ref, "Branch, tag or commit to check out (git URL sources)");
    app->add_option("--output", output, "Output directory");
    app->add_option("--jobs", jobs, "Worker threads (0 = all cores)")->check(CLI::Range(0, 1024));
    app->add_option("--stages", stages, "Comma-separated stages: analyze,plan,emit,verify,report");
    app->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");
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
    for (const auto& s : sets) {
      auto o = parseOverride(s);
      if (!o) return o.error();
      out.push_back(o.value());
    }
    return out;
  }
};

Result<PipelineSpec> loadWithOverrides(const std::string& file, const OverrideFlags& flags) {
  auto overrides = flags.overrides();
  if (!overrides) return overrides.error();
  return loadPipeline(file, overrides.value());
}

int listPlugins(const std::string& dir_flag) {
  const fs::path dir = dir_flag.empty() ? defaultPluginDir() : fs::path(dir_flag);
  auto catalog = discoverPlugins(dir);
  if (!catalog) {
    std::cerr << "error: " << catalog.error().message << "\n";
    return kExitPlugins;
  }
  std::cout << "plugins in " << dir.string() << ":\n";
  for (const auto& p : catalog->plugins) {
    std::cout << "  " << p.info.name << " " << p.info.version << "  domain=" << p.info.domain
              << "  rules=" << p.rules->rules().size() << "  " << p.info.description << "\n";
    for (const auto& o : p.info.options)
      std::cout << "      option " << o.name << " (default " << o.default_value << "): " << o.description
                << "\n";
  }
  if (catalog->plugins.empty()) std::cout << "  (none)\n";
  for (const auto& r : catalog->refused) std::cerr << "warning: refused " << r << "\n";
  return catalog->refused.empty() ? kExitOk : kExitPlugins;
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
  app.set_version_flag("--version", std::string("migrate-pipeline ") + sdk::kSdkVersion +
                                        " (plugin SDK ABI " + std::to_string(sdk::kAbiVersion) + ", " +
                                        MIGRATE_TOOLCHAIN_TAG + ")");
  app.footer(
      "Exit codes: 0 success, 2 usage or pipeline error, 3 source not acquired, 4 plugin error, "
      "5 a stage failed (earlier outputs kept).");

  std::string pipeline;
  OverrideFlags run_flags;
  bool quiet = false;
  auto* run = app.add_subcommand("run", "Run a pipeline");
  run->add_option("pipeline", pipeline, "Pipeline YAML file")->required();
  run_flags.add(run);
  run->add_flag("-q,--quiet", quiet, "Only warnings and errors");

  std::string verify_dir;
  std::vector<std::string> verify_sets;
  bool verify_quiet = false;
  auto* verify = app.add_subcommand("verify", "Run the verification again on a run's output directory");
  verify->add_option("output_dir", verify_dir, "Output directory of `migrate-pipeline run`")->required();
  verify->add_option("--set", verify_sets, "Override a key of the run's pipeline, e.g. verify.target=lab");
  verify->add_flag("-q,--quiet", verify_quiet, "Only warnings and errors");

  std::string report_dir;
  std::vector<std::string> report_sets;
  bool report_quiet = false;
  auto* report = app.add_subcommand("report", "Write the report again from a run's output directory");
  report->add_option("output_dir", report_dir, "Output directory of `migrate-pipeline run`")->required();
  report->add_option("--set", report_sets,
                     "Override a key of the run's pipeline, e.g. report.directory=docs");
  report->add_flag("-q,--quiet", report_quiet, "Only warnings and errors");

  std::string plugin_dir;
  auto* plugins = app.add_subcommand("plugins", "List the plugins found, without analysing");
  plugins->add_option("--plugin-dir", plugin_dir, "Directory to load plugins from");

  auto* config = app.add_subcommand("config", "Pipeline configuration");
  config->require_subcommand(1);
  std::string dump_file;
  OverrideFlags dump_flags;
  auto* dump = config->add_subcommand("dump", "Print the effective, validated pipeline");
  dump->add_option("pipeline", dump_file, "Pipeline YAML file")->required();
  dump_flags.add(dump);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (*plugins) return listPlugins(plugin_dir);
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
