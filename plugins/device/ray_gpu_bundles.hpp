#pragma once
// DEV-069: the "GPU" resource written as a key of a Ray resource dict (placement-group bundles,
// `resources={...}`). The rule data cannot say "a dict key in a file that uses Ray", so this check
// is code.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-069) for each plain string "GPU" written as a dict key (`{"GPU": 1}`,
/// `{'CPU': 1, 'GPU': 1}`) in a module that imports Ray: Ray schedules such a bundle or task on
/// GPUs, and an Ascend host offers its NPUs as the "NPU" resource. The fix renames the key.
void checkRayGpuBundles(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                        migrate::sdk::FindingSink& sink);

}  // namespace device
