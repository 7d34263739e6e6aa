#pragma once
// DEV-069: the "GPU" resource written as a key of a Ray resource dict (placement-group bundles,
// `resources={...}`) or read from one (`ray.cluster_resources()["GPU"]`). The rule data cannot
// say "a dict key in a file that uses Ray", so this check is code.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-069) for each plain string "GPU" written as a dict key (`{"GPU": 1}`,
/// `{'CPU': 1, 'GPU': 1}`), a subscript key (`resources["GPU"] = 1`,
/// `ray.cluster_resources()["GPU"]`) or the key of a dict lookup (`.get("GPU", 0)`, `.pop`,
/// `.setdefault`) in a module that imports Ray: Ray schedules such a bundle or task on GPUs and
/// counts none on an Ascend host, which offers its NPUs as the "NPU" resource. The fix renames
/// the key.
void checkRayGpuBundles(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                        migrate::sdk::FindingSink& sink);

}  // namespace device
