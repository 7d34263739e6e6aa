// The distributed plugin: process groups and backends, NCCL environment, DDP/FSDP/DataParallel, collectives,
// device meshes. Rules are data (rules/*.yaml); see README.md for one entry per rule id.

#include "distributed_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "",  // (none yet)
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
    std::vector<RuleSource> sources;
    for (const char* file : kRuleFiles)
      if (*file) sources.push_back({file, migrateEmbeddedRule(file)});
    return sources;
  }
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(DistributedPlugin)
