// The custom_ops plugin: custom CUDA kernels, C++ bindings, CUDA extension builds, Triton kernels, autograd
// Functions. Rules are data (rules/*.yaml); see README.md for one entry per rule id.

#include "custom_ops_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "",  // (none yet)
};

class CustomOpsPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"custom_ops",
            "0.1.0",
            "custom_ops",
            "custom CUDA kernels, C++ bindings, CUDA extension builds, Triton kernels, autograd Functions",
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

MIGRATE_DEFINE_PLUGIN(CustomOpsPlugin)
