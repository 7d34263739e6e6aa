#pragma once
// The checks of the distributed plugin that rules cannot express. Each reports findings of a
// rule declared with `match: {custom: ...}` (or shares the id of a data rule), built from the
// rule's data with sdk::findingFrom.

#include <string>
#include <string_view>

#include "migrate/sdk/plugin.hpp"

namespace distributed {

/// The rule data the checks report with; every pointer is set by configure().
struct RuleTable {
  const migrate::sdk::RuleInfo* nccl_backend = nullptr;          ///< DIST-001 (positions beyond its data)
  const migrate::sdk::RuleInfo* variable_backend = nullptr;      ///< DIST-004
  const migrate::sdk::RuleInfo* default_backend = nullptr;       ///< DIST-005
  const migrate::sdk::RuleInfo* env_ifname = nullptr;            ///< DIST-008
  const migrate::sdk::RuleInfo* env_errors = nullptr;            ///< DIST-009
  const migrate::sdk::RuleInfo* env_debug = nullptr;             ///< DIST-010
  const migrate::sdk::RuleInfo* env_other = nullptr;             ///< DIST-011
  const migrate::sdk::RuleInfo* data_parallel = nullptr;         ///< DIST-012
  const migrate::sdk::RuleInfo* local_rank = nullptr;            ///< DIST-025
  const migrate::sdk::RuleInfo* nccl_other = nullptr;            ///< DIST-026
  const migrate::sdk::RuleInfo* lightning_strategy = nullptr;    ///< DIST-033
  const migrate::sdk::RuleInfo* gloo_device_group = nullptr;     ///< DIST-039
  const migrate::sdk::RuleInfo* accelerate_multi_gpu = nullptr;  ///< DIST-040
};

/// DIST-001 where its data cannot reach (keywords named like *backend*, comparisons with
/// lower-case "nccl", Literal entries, `return "nccl"`) and DIST-026 for the other "nccl" strings.
void checkBackendStrings(const migrate::sdk::Module& module, const RuleTable& rules,
                         migrate::sdk::FindingSink& sink);

/// A call of torch.distributed.init_process_group (through any import of it).
bool isInitProcessGroup(const migrate::sdk::CallFact& call);

/// DIST-004 / DIST-005: init_process_group whose backend is a variable that cannot be traced to a
/// string literal in this file, comes from **kwargs, or is missing.
void checkInitProcessGroup(const migrate::sdk::Module& module, const RuleTable& rules,
                           migrate::sdk::FindingSink& sink);

/// DIST-039: `init_process_group(backend="gloo")` in a function (or module) that then puts the
/// model on the accelerator (`.cuda(rank)`, `torch.cuda.set_device`, DDP `device_ids=`, a "cuda"
/// device): Gloo reduces CPU (and CUDA) tensors but not NPU ones. Not when the function has another
/// init_process_group call (a Windows branch taking Gloo beside an NCCL one).
void checkGlooDeviceGroups(const migrate::sdk::Module& module, const RuleTable& rules,
                           migrate::sdk::FindingSink& sink);

/// DIST-040: accelerate's `DistributedType.MULTI_GPU` named in a function (or a module, at top
/// level) that never names `MULTI_NPU`: on Ascend accelerate reports MULTI_NPU, so a test or list
/// of MULTI_GPU alone skips the multi-device path there (metrics not reduced, a DDP-only assert
/// that fails).
void checkAccelerateDistributedTypes(const migrate::sdk::Module& module, const RuleTable& rules,
                                     migrate::sdk::FindingSink& sink);

/// DIST-012 for classes derived from nn.DataParallel (the data rule matches only calls).
void checkDataParallelBases(const migrate::sdk::Module& module, const RuleTable& rules,
                            migrate::sdk::FindingSink& sink);

/// DIST-033: Lightning strategies that choose their process-group backend from the accelerator.
void checkLightningStrategies(const migrate::sdk::Module& module, const RuleTable& rules,
                              migrate::sdk::FindingSink& sink);

/// DIST-025: LOCAL_RANK read and used as a device index; one finding per file.
void checkLocalRankDevice(const migrate::sdk::Module& module, const RuleTable& rules,
                          migrate::sdk::FindingSink& sink);

/// DIST-008..011 for settings named after NCCL variables and given a string (`NCCL_DEBUG: str =
/// "INFO"` in an environment-settings dataclass that the program exports later).
void checkEnvironmentFields(const migrate::sdk::Module& module, const RuleTable& rules,
                            migrate::sdk::FindingSink& sink);

/// DIST-001 in YAML configuration files (`backend: nccl`).
void checkConfigBackends(const migrate::sdk::WorkspaceView& workspace, const RuleTable& rules,
                         migrate::sdk::FindingSink& sink);

/// DIST-008..011 in shell launch scripts and Dockerfiles.
void checkScriptEnvironment(const migrate::sdk::WorkspaceView& workspace, const RuleTable& rules,
                            migrate::sdk::FindingSink& sink);

/// Which environment rule an NCCL variable name belongs to (the same split as
/// rules/environment.yaml); nullptr when the name is not an NCCL variable.
const migrate::sdk::RuleInfo* environmentRule(std::string_view name, const RuleTable& rules);

}  // namespace distributed
