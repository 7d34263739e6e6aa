// The distributed plugin: process groups and backends, NCCL environment, DDP/FSDP/DataParallel,
// collectives, device meshes. Most of it is data (rules/*.yaml); the C++ checks in
// distributed_checks.hpp cover what a rule cannot say. See README.md for one entry per rule id.

#include <string>

#include "distributed_checks.hpp"
#include "distributed_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/backend.yaml",      // DIST-001..007, DIST-039
    "rules/environment.yaml",  // DIST-008..011
    "rules/parallel.yaml",     // DIST-012..018
    "rules/collectives.yaml",  // DIST-019..023
    "rules/device_mesh.yaml",  // DIST-024..025
    "rules/apex_nccl.yaml",    // DIST-027..029
    "rules/third_party.yaml",  // DIST-030..036, DIST-038, DIST-040, DIST-041
};

class DistributedPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {
        "distributed",
        "0.1.0",
        "distributed",
        "process groups and backends, NCCL environment, DDP/FSDP/DataParallel, collectives, device meshes",
        {}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    auto need = [&](const char* id) { return &context.requireRule(id); };
    rules_.nccl_backend = need("DIST-001");
    rules_.variable_backend = need("DIST-004");
    rules_.default_backend = need("DIST-005");
    rules_.env_ifname = need("DIST-008");
    rules_.env_errors = need("DIST-009");
    rules_.env_debug = need("DIST-010");
    rules_.env_other = need("DIST-011");
    rules_.data_parallel = need("DIST-012");
    rules_.local_rank = need("DIST-025");
    rules_.nccl_other = need("DIST-026");
    rules_.lightning_strategy = need("DIST-033");
    rules_.gloo_device_group = need("DIST-039");
    rules_.accelerate_multi_gpu = need("DIST-040");
    configured_ = true;
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    if (!configured_) return;
    distributed::checkBackendStrings(module, rules_, sink);
    distributed::checkInitProcessGroup(module, rules_, sink);
    distributed::checkGlooDeviceGroups(module, rules_, sink);
    distributed::checkAccelerateDistributedTypes(module, rules_, sink);
    distributed::checkDataParallelBases(module, rules_, sink);
    distributed::checkLocalRankDevice(module, rules_, sink);
    distributed::checkLightningStrategies(module, rules_, sink);
    distributed::checkEnvironmentFields(module, rules_, sink);
  }

  void analyzeRepository(const WorkspaceView& workspace, FindingSink& sink) const override {
    if (!configured_) return;
    distributed::checkScriptEnvironment(workspace, rules_, sink);
    distributed::checkConfigBackends(workspace, rules_, sink);
  }

 private:
  distributed::RuleTable rules_;
  bool configured_ = false;
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(DistributedPlugin)
