// The custom_ops plugin: custom CUDA kernels, C++ bindings, CUDA extension builds, Triton kernels, autograd
// Functions. Rules are data (rules/*.yaml); the C++ finds what data cannot say: kernels and their facts in
// CUDA/C++ sources (tree-sitter cuda grammar), CMake, Triton kernel facts and autograd Functions over
// custom kernels. See README.md for one entry per rule id.

#include "build_machinery.hpp"
#include "common.hpp"
#include "custom_ops_embedded_rules.hpp"
#include "emit_custom_ops.hpp"
#include "migrate/sdk/plugin.hpp"
#include "native_scan.hpp"
#include "python_scan.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/cuda_kernels.yaml",     // OPS-001..004
    "rules/cuda_libraries.yaml",   // OPS-005..012
    "rules/build_bindings.yaml",   // OPS-013..020
    "rules/triton.yaml",           // OPS-021..026
    "rules/python_glue.yaml",      // OPS-027..030, OPS-041, OPS-043, OPS-047, OPS-048
    "rules/build_machinery.yaml",  // OPS-031..040, OPS-044..046
};

class CustomOpsPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"custom_ops",
            "0.1.0",
            "custom_ops",
            "custom CUDA kernels, C++ bindings, CUDA extension builds, Triton kernels, autograd Functions",
            {{"skip_dirs", OptionSpec::Type::StringList,
              "[third_party, 3rdparty, thirdparty, external, extern, vendor, vendored]",
              "directory names holding vendored code: its files are not analysed"},
             {"include_npu_paths", OptionSpec::Type::Bool, "false",
              "also report Python kernels and autograd Functions under paths named for the NPU or for "
              "another vendor's backend (by default taken as already ported or unused on the NPU)"}}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    rules_.load(context);
    const auto& options = context.options();
    if (auto it = options.find("skip_dirs"); it != options.end()) options_.skip_dirs = it->second.list;
    if (auto it = options.find("include_npu_paths"); it != options.end())
      options_.include_npu_paths = it->second.asBool();
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    custom_ops::analyzePython(module, rules_, options_, sink);
  }

  // Eight independent scans, each cached on its own: a changed Python file reruns only the glue,
  // a changed .cu file only the native scan.
  std::vector<RepositoryPass> repositoryPasses() const override {
    return {
        {"native-sources",
         [this](const WorkspaceView& w, FindingSink& s) {
           custom_ops::analyzeNativeSources(w, rules_, options_, s);
         }},
        {"cmake", [this](const WorkspaceView& w,
                         FindingSink& s) { custom_ops::analyzeCMake(w, rules_, options_, s); }},
        {"makefiles", [this](const WorkspaceView& w,
                             FindingSink& s) { custom_ops::analyzeMakefiles(w, rules_, options_, s); }},
        {"gitmodules",
         [this](const WorkspaceView& w, FindingSink& s) { custom_ops::analyzeGitmodules(w, rules_, s); }},
        {"docker-builds",
         [this](const WorkspaceView& w, FindingSink& s) { custom_ops::analyzeDockerBuilds(w, rules_, s); }},
        {"script-builds",
         [this](const WorkspaceView& w, FindingSink& s) {
           custom_ops::analyzeScriptBuilds(w, rules_, options_, s);
         }},
        {"extension-glue",
         [this](const WorkspaceView& w, FindingSink& s) {
           custom_ops::analyzeExtensionGlue(w, rules_, options_, s);
         }},
        {"registered-ops",
         [this](const WorkspaceView& w, FindingSink& s) {
           custom_ops::analyzeRegisteredOps(w, rules_, options_, s);
         }},
    };
  }

  void emit(EmitContext& context) const override { custom_ops::emitCustomOps(context); }

 private:
  custom_ops::Rules rules_;
  custom_ops::Options options_;
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(CustomOpsPlugin)
