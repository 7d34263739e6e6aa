// The deps plugin: third-party dependencies: requirements, setup.py/cfg, pyproject, environment.yml,
// Dockerfiles, NVIDIA-only imports. Rules are data (rules/*.yaml); see README.md for one entry per rule id.

#include "deps_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "",  // (none yet)
};

class DepsPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"deps",
            "0.1.0",
            "deps",
            "third-party dependencies: requirements, setup.py/cfg, pyproject, environment.yml, Dockerfiles, "
            "NVIDIA-only imports",
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

MIGRATE_DEFINE_PLUGIN(DepsPlugin)
