// A plugin whose rule file is invalid: the host must refuse it, naming the rule file position.
#include "bad_rules_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {
using namespace migrate::sdk;
class BadRulesPlugin final : public Plugin {
 public:
  PluginInfo info() const override { return {"bad_rules", "0.0.1", "testing", "invalid rules", {}}; }
  std::vector<RuleSource> ruleSources() const override {
    return {{"plugins/rules/bad.yaml", migrateEmbeddedRule("plugins/rules/bad.yaml")}};
  }
};
}  // namespace

MIGRATE_DEFINE_PLUGIN(BadRulesPlugin)
