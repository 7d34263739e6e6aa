// The attention plugin: flash-attn, xformers, SDPA and hand-written attention, with the arguments that decide
// the NPU mapping. Rules are data (rules/*.yaml); see README.md for one entry per rule id.

#include "attention_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "",  // (none yet)
};

class AttentionPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"attention",
            "0.1.0",
            "attention",
            "flash-attn, xformers, SDPA and hand-written attention, with the arguments that decide the NPU "
            "mapping",
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

MIGRATE_DEFINE_PLUGIN(AttentionPlugin)
