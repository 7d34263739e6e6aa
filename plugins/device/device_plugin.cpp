// The device plugin: the device layer of a CUDA code base — torch.cuda APIs, device strings and
// placement, backend flags, streams, graphs, compile, visible devices and NVML. Nearly all of it
// is data (rules/*.yaml); the checks a rule cannot say are in device_string_asserts.hpp,
// lightning_auto_accelerator.hpp, ray_gpu_bundles.hpp, integer_device_assignments.hpp,
// integer_variable_devices.hpp, spawned_worker_devices.hpp,
// device_parameter_calls.hpp and lightning_accelerator_options.hpp (across files), script_device.hpp (shell
// launch scripts) and config_device.hpp (YAML configuration files). See README.md for one entry per rule id.

#include "config_device.hpp"
#include "device_embedded_rules.hpp"
#include "device_parameter_calls.hpp"
#include "device_string_asserts.hpp"
#include "diffusers_offload.hpp"
#include "integer_device_assignments.hpp"
#include "integer_variable_devices.hpp"
#include "lightning_accelerator_options.hpp"
#include "lightning_auto_accelerator.hpp"
#include "migrate/sdk/plugin.hpp"
#include "ray_gpu_bundles.hpp"
#include "script_device.hpp"
#include "spawned_worker_devices.hpp"

namespace {

using namespace migrate::sdk;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/cuda_api.yaml",          // DEV-001..015
    "rules/device_placement.yaml",  // DEV-016..022, DEV-061..064, DEV-067, DEV-069..071, DEV-076, DEV-077,
                                    // DEV-088, DEV-095, DEV-097
    "rules/device_strings.yaml",    // DEV-023..026, 049, 050, 052
    "rules/backends.yaml",          // DEV-027..032, DEV-066
    "rules/graphs_compile.yaml",    // DEV-033..036, DEV-068
    "rules/environment.yaml",       // DEV-037..039, DEV-079
    "rules/monitoring.yaml",        // DEV-040..046
    "rules/runtime_facts.yaml",     // DEV-053..060, 065, 072..075, 078, 081..083, 085, 086, 096
};

class DevicePlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"device",
            "0.1.0",
            "device",
            "torch.cuda APIs, device strings and placement, backend flags, graphs, compile, NVML",
            {}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    device_string_assert_ = &context.requireRule("DEV-052");
    lightning_auto_accelerator_ = &context.requireRule("DEV-060");
    lightning_cuda_accelerator_ = context.rule("DEV-049");
    ray_gpu_bundle_ = &context.requireRule("DEV-069");
    integer_device_ = &context.requireRule("DEV-076");
    spawned_worker_device_ = &context.requireRule("DEV-095");
    integer_variable_device_ = &context.requireRule("DEV-097");
    device_parameter_ = context.rule("DEV-088");
    diffusers_offload_ = context.rule("DEV-096");
    scripts_ = {context.rule("DEV-037"), context.rule("DEV-038"), context.rule("DEV-039"),
                context.rule("DEV-053"), context.rule("DEV-001"), context.rule("DEV-079"),
                context.rule("DEV-023"), context.rule("DEV-040")};
    configs_ = {context.rule("DEV-023"), context.rule("DEV-049"), context.rule("DEV-060"),
                context.rule("DEV-080"), context.rule("DEV-040")};
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    if (device_string_assert_) device::checkDeviceStringAsserts(module, *device_string_assert_, sink);
    if (lightning_auto_accelerator_)
      device::checkLightningAutoAccelerator(module, *lightning_auto_accelerator_, sink);
    if (ray_gpu_bundle_) device::checkRayGpuBundles(module, *ray_gpu_bundle_, sink);
    if (integer_device_) device::checkIntegerDeviceAssignments(module, *integer_device_, sink);
    if (spawned_worker_device_) device::checkSpawnedWorkerDevices(module, *spawned_worker_device_, sink);
    if (integer_variable_device_)
      device::checkIntegerVariableDevices(module, *integer_variable_device_, sink);
  }

  /// Rank-like arguments of the repository's functions' `device` parameter
  /// (device_parameter_calls.hpp), `--accelerator` options left on "auto" or "gpu" for Lightning
  /// (lightning_accelerator_options.hpp), diffusers' offload on its old CUDA default (diffusers_offload.hpp),
  /// shell launch scripts (script_device.hpp) and YAML configuration files (config_device.hpp).
  void analyzeRepository(const WorkspaceView& workspace, FindingSink& sink) const override {
    if (device_parameter_) device::checkDeviceParameterCalls(workspace, *device_parameter_, sink);
    device::checkLightningAcceleratorOptions(workspace, lightning_auto_accelerator_,
                                             lightning_cuda_accelerator_, sink);
    if (diffusers_offload_) device::checkDiffusersOffload(workspace, *diffusers_offload_, sink);
    device::checkScripts(workspace, scripts_, sink);
    device::checkConfigFiles(workspace, configs_, sink);
  }

 private:
  const RuleInfo* device_string_assert_ = nullptr;        ///< DEV-052, set by configure()
  const RuleInfo* lightning_auto_accelerator_ = nullptr;  ///< DEV-060, set by configure()
  const RuleInfo* lightning_cuda_accelerator_ = nullptr;  ///< DEV-049, set by configure(); null when disabled
  const RuleInfo* ray_gpu_bundle_ = nullptr;              ///< DEV-069, set by configure()
  const RuleInfo* integer_device_ = nullptr;              ///< DEV-076, set by configure()
  const RuleInfo* spawned_worker_device_ = nullptr;       ///< DEV-095, set by configure()
  const RuleInfo* integer_variable_device_ = nullptr;     ///< DEV-097, set by configure()
  const RuleInfo* device_parameter_ = nullptr;            ///< DEV-088, set by configure(); null when disabled
  const RuleInfo* diffusers_offload_ = nullptr;           ///< DEV-096, set by configure(); null when disabled
  device::ScriptRules scripts_;                           ///< set by configure(); disabled rules are null
  device::ConfigRules configs_;                           ///< set by configure(); disabled rules are null
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(DevicePlugin)
