#pragma once
/// The plugin contract. A plugin is a shared library exporting the two C symbols defined by
/// MIGRATE_DEFINE_PLUGIN: a handshake the host checks first, and a factory.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/emit.hpp"
#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/module.hpp"
#include "migrate/sdk/plan.hpp"
#include "migrate/sdk/version.hpp"
#include "migrate/sdk/workspace.hpp"

#if defined(__GNUC__)
#define MIGRATE_SDK_VISIBLE __attribute__((visibility("default")))
#else
#define MIGRATE_SDK_VISIBLE
#endif

namespace migrate::sdk {

/// One option a plugin accepts under `plugins.<name>.options` in a pipeline.
struct OptionSpec {
  enum class Type { Bool, Int, Number, String, StringList };
  std::string name;
  Type type = Type::String;
  std::string default_value;  ///< YAML text, e.g. "true", "4", "[a, b]"
  std::string description;
};

struct PluginInfo {
  std::string name;  ///< unique; the key used in pipelines
  std::string version;
  std::string domain;  ///< the domain its rules and findings carry
  std::string description;
  std::vector<OptionSpec> options;
};

/// A rule file compiled into the plugin: its name (e.g. "rules/cuda_api.yaml") and YAML text.
struct RuleSource {
  std::string name;
  std::string_view yaml;
};

/// An option value after validation, as YAML scalar text or a list of them.
struct OptionValue {
  std::string scalar;
  std::vector<std::string> list;
  bool asBool() const { return scalar == "true"; }
  long long asInt() const { return std::stoll(scalar); }
  double asNumber() const { return std::stod(scalar); }
};

/// The rule sources of files embedded with migrate_add_plugin, in the order listed; `lookup` is
/// the generated migrateEmbeddedRule. Empty names are skipped.
template <std::size_t N>
std::vector<RuleSource> embeddedRuleSources(const char* const (&files)[N],
                                            std::string_view (*lookup)(std::string_view)) {
  std::vector<RuleSource> sources;
  for (const char* file : files)
    if (file && *file) sources.push_back({file, lookup(file)});
  return sources;
}

class MIGRATE_SDK_VISIBLE PluginContext {
 public:
  virtual ~PluginContext() = default;
  /// The validated options; every declared option is present (defaults filled in).
  virtual const std::map<std::string, OptionValue>& options() const = 0;
  /// The data of one of this plugin's rules (any match kind); nullptr for an unknown id. Valid for
  /// the plugin's lifetime.
  virtual const RuleInfo* rule(std::string_view id) const = 0;
  /// rule(id) for a rule the plugin's code cannot work without: throws (in configure, the host
  /// then records a plugin-error and skips the plugin) when the rule files lack it.
  const RuleInfo& requireRule(std::string_view id) const {
    if (const RuleInfo* r = rule(id)) return *r;
    throw std::runtime_error("rule " + std::string(id) + " is missing from the plugin's rule files");
  }
  virtual void logInfo(std::string_view message) const = 0;
  virtual void logWarning(std::string_view message) const = 0;
};

/// One repository pass of a plugin (see Plugin::repositoryPasses).
struct RepositoryPass {
  std::string name;  ///< unique within the plugin, e.g. "native-sources"; names its cache entry
  std::function<void(const WorkspaceView&, FindingSink&)> run;
};

class MIGRATE_SDK_VISIBLE Plugin {
 public:
  virtual ~Plugin() = default;
  virtual PluginInfo info() const = 0;
  /// The rule files of this plugin, listed explicitly.
  virtual std::vector<RuleSource> ruleSources() const { return {}; }
  /// Called once before analysis with the validated options.
  virtual void configure(const PluginContext& context) { (void)context; }
  /// Called for every Python file, from worker threads: keep no shared mutable state.
  virtual void analyzeModule(const Module& module, FindingSink& sink) const {
    (void)module;
    (void)sink;
  }
  /// Called once per run, for files that are not Python (requirements, CUDA sources, CMake).
  virtual void analyzeRepository(const WorkspaceView& workspace, FindingSink& sink) const {
    (void)workspace;
    (void)sink;
  }
  /// The repository passes, called once per run (the list is asked for once, after configure).
  /// Each pass is a task of its own on the analysis threads, cached on its own: it runs again only
  /// when a file it read changed. A plugin with independent scans (native sources, build files,
  /// Python glue) lists them apart, so one changed file reruns only the scans that read it. The
  /// default is one pass, "repository", that calls analyzeRepository.
  virtual std::vector<RepositoryPass> repositoryPasses() const {
    return {{"repository", [this](const WorkspaceView& workspace, FindingSink& sink) {
               analyzeRepository(workspace, sink);
             }}};
  }
  /// Called once per run in the plan stage, after the engine's bottleneck list: whole-repository
  /// passes over the findings (e.g. the task-phase matrix).
  virtual void plan(PlanContext& context) const { (void)context; }
  /// Called once per run in the emit stage: contribute to the adaptation kit (sections of
  /// npu_ops.py, files such as a build script, manual work).
  virtual void emit(EmitContext& context) const { (void)context; }
};

}  // namespace migrate::sdk

/// The handshake: plain C data, readable whatever the plugin's C++ ABI.
extern "C" struct MigratePluginHandshake {
  std::uint32_t abi_version;
  const char* toolchain;
  const char* sdk_version;
};

/// Defines the exported handshake and factory of a plugin class.
#define MIGRATE_DEFINE_PLUGIN(PluginClass)                                                            \
  extern "C" MIGRATE_SDK_VISIBLE const MigratePluginHandshake* migrate_plugin_handshake() {           \
    static const MigratePluginHandshake handshake{::migrate::sdk::kAbiVersion, MIGRATE_TOOLCHAIN_TAG, \
                                                  ::migrate::sdk::kSdkVersion};                       \
    return &handshake;                                                                                \
  }                                                                                                   \
  extern "C" MIGRATE_SDK_VISIBLE ::migrate::sdk::Plugin* migrate_plugin_create() {                    \
    return new PluginClass();                                                                         \
  }
