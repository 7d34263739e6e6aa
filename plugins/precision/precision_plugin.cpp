// The precision plugin: float64/complex128, bf16/fp16, autocast, norm-layer upcasts, TF32 flags, dtype
// asserts, GradScaler. Rules are data (rules/*.yaml); see README.md for one entry per rule id.

#include "migrate/sdk/plugin.hpp"
#include "precision_embedded_rules.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "",  // (none yet)
};

class PrecisionPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {
        "precision",
        "0.1.0",
        "precision",
        "float64/complex128, bf16/fp16, autocast, norm-layer upcasts, TF32 flags, dtype asserts, GradScaler",
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

MIGRATE_DEFINE_PLUGIN(PrecisionPlugin)
