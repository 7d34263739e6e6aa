// A plugin that fails in its hooks: the run must record a diagnostic naming it and go on.
#include <stdexcept>

#include "migrate/sdk/plugin.hpp"
#include "throwing_embedded_rules.hpp"

namespace {
using namespace migrate::sdk;

class ThrowingPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"throwing",
            "0.0.1",
            "testing",
            "fails on purpose",
            {{"fail_in_module", OptionSpec::Type::Bool, "true", "throw from analyzeModule"},
             {"limit", OptionSpec::Type::Int, "3", "an integer option"}}};
  }
  std::vector<RuleSource> ruleSources() const override {
    return {{"plugins/rules/throwing.yaml", migrateEmbeddedRule("plugins/rules/throwing.yaml")}};
  }
  void configure(const PluginContext& context) override {
    fail_in_module_ = context.options().at("fail_in_module").asBool();
  }
  void analyzeModule(const Module& module, FindingSink&) const override {
    if (fail_in_module_) throw std::runtime_error("boom in " + std::string(module.path()));
  }
  void analyzeRepository(const WorkspaceView&, FindingSink&) const override {
    throw std::runtime_error("boom in repository pass");
  }

 private:
  bool fail_in_module_ = true;
};
}  // namespace

MIGRATE_DEFINE_PLUGIN(ThrowingPlugin)
