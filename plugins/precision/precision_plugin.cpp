// The precision plugin: float64/complex128, bf16/fp16, autocast, norm-layer upcasts, TF32 flags,
// dtype asserts, GradScaler. Rules are data (rules/*.yaml); the rules marked `custom` there are
// reported by the checks declared in checks.hpp (one file each), because they depend on where a dtype stands
// (a comparison is not a use, a tensor built on the CPU may stay float64), on the enclosing class or function
// (norm layers, RoPE helpers), or on a value followed through a variable (numpy arrays turned into tensors).
// emit (precision_emit.cpp) asks for the npu_ops sections that replace RMSNorm upcasts and complex RoPE.
// See README.md for one entry per rule id and the details keys.

#include <string>
#include <vector>

#include "checks.hpp"
#include "file_view.hpp"
#include "migrate/sdk/plugin.hpp"
#include "precision_embedded_rules.hpp"
#include "precision_emit.hpp"

namespace {

using namespace migrate::sdk;
using namespace precision;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/float64.yaml",          // PREC-001..005
    "rules/half_precision.yaml",   // PREC-006..010
    "rules/mixed_precision.yaml",  // PREC-011..013, PREC-018..020
    "rules/numerics.yaml",         // PREC-014..017
    "rules/third_party.yaml",      // PREC-021..025
};

// ---- the plugin --------------------------------------------------------------------------------

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
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    for (const char* id : {"PREC-001", "PREC-002", "PREC-004", "PREC-005", "PREC-006", "PREC-010", "PREC-011",
                           "PREC-014", "PREC-015", "PREC-020"})
      rules_[id] = &context.requireRule(id);
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    if (rules_.empty()) return;
    const FileView view(module);
    dtypeReferences(view, rules_, sink);
    castMethods(view, rules_, sink);
    pythonFloatDtype(view, rules_, sink);
    numpyFloat64(view, rules_, sink);
    complexRope(view, rules_, sink);
    autocastRegions(view, rules_, sink);
    autocastQueries(view, rules_, sink);
    normUpcasts(view, rules_, sink);
    dtypeAsserts(view, rules_, sink);
  }

  void emit(EmitContext& context) const override { emitPrecision(context); }

 private:
  Rules rules_;
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(PrecisionPlugin)
