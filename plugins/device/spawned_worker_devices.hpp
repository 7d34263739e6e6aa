#pragma once
// DEV-095: the process index a spawner hands its worker, used as a device inside the worker.
// `torch.multiprocessing.spawn(worker, nprocs=n, args=(cfg,))` calls `worker(i, cfg)` with the
// integer i first; `def worker(gpu, cfg): … torch.randn(…, device=gpu)` then reads that integer as
// the CUDA device with its index. The name says nothing (`gpu`, `proc_id`, `i`), so no name rule
// sees it: this check follows the spawn call to the worker's definition in the same module.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-095) at each use of a spawned worker's first parameter (after `self`) as a
/// device: `.to(p)`, `torch.device(p)`, a `device=p` argument, and `p` passed by position where a
/// function or method of the module names the parameter for a device (`self.to_device(x, p)` with
/// `def to_device(self, data, device)`). A worker that rebinds the
/// parameter is left alone, and so is a name the rank-like rules already report there (DEV-019's
/// `.to(gpu)`, DEV-062's `torch.device(rank)`, DEV-067's `device=local_rank`).
void checkSpawnedWorkerDevices(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                               migrate::sdk::FindingSink& sink);

}  // namespace device
