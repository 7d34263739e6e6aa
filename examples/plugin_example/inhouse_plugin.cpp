// An example third-party plugin: a company's own CUDA helper package (`acme_cuda`) that every
// project of theirs imports. Most knowledge is data (rules/inhouse.yaml); the C++ hook adds
// what data cannot say: a file that imports the helpers but never imports torch_npu.

#include "inhouse_embedded_rules.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

class InhousePlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"inhouse",
            "1.0.0",
            "inhouse",
            "acme_cuda helper library (example out-of-tree plugin)",
            {{"report_missing_torch_npu", OptionSpec::Type::Bool, "true",
              "flag files that use acme_cuda without importing torch_npu"}}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return {{"rules/inhouse.yaml", migrateEmbeddedRule("rules/inhouse.yaml")}};
  }

  void configure(const PluginContext& context) override {
    report_missing_ = context.options().at("report_missing_torch_npu").asBool();
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    if (!report_missing_) return;
    const ImportFact* helpers = nullptr;
    bool has_torch_npu = false;
    for (const auto& imp : module.imports()) {
      const std::string& name = imp.name.empty() ? imp.module : imp.target;
      if (name.rfind("acme_cuda", 0) == 0 && !helpers) helpers = &imp;
      if (imp.module.rfind("torch_npu", 0) == 0) has_torch_npu = true;
    }
    if (!helpers || has_torch_npu) return;
    Finding f;
    f.rule_id = "INH-100";
    f.file = std::string(module.path());
    f.range = helpers->range;
    f.api = helpers->module;
    f.message = "uses acme_cuda but never imports torch_npu; add `import torch_npu` before the helpers";
    f.npu_alternative = "import torch_npu";
    f.confidence = Level::Medium;
    f.difficulty = Level::Low;
    f.effort_days = 0.05;
    sink.report(std::move(f));
  }

 private:
  bool report_missing_ = true;
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(InhousePlugin)
