#pragma once
// DEV-097: a variable that only ever holds an integer, used as a device. `cur_device = 0`, later
// `cur_device = (cur_device + 1) % nproc`, then `x.to(cur_device)`; `for i in range(n):
// layer.to(i)`; `device = image.get_device()` then `.to(device)`. An integer device is read as
// the CUDA device with that index, a known failure on NPU; the name says nothing (`cur_device`,
// `i`), so the rank-like name rules (DEV-019, DEV-062, DEV-067) do not see it: this check reads
// how the variable is bound in the function around the use.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-097) at each use of a plain variable as a device (`.to(v)`,
/// `torch.device(v)`, `device=v`, or `v` passed by position to the module's own function whose
/// parameter there is named for a device) when, in the function around the use (the module's top
/// level outside functions), `v` is not a parameter and every binding of it gives an integer: an
/// integer literal, integer arithmetic of itself and other names (`(v + 1) % n`), a `for v in
/// range(…)` or `for v, _ in enumerate(…)` loop, `t.get_device()` — with at least one binding
/// that is not arithmetic. A variable bound by `t.get_device()` gets one finding, on that call:
/// `t.device` is the fix for every use. Not reported: arguments of torch.cuda's own calls, which
/// take the index (`memory_reserved(device=i)`), and uses a rank-like name rule reports.
/// `torch.cuda.current_device()` is no binding here: DEV-001 reports it where it is read, and the
/// dev labels fix it there.
/// A name the function reads without binding it is looked up at the module's top level (a
/// constant `MAIN_CARD = 0`, unless a `global` statement lets a function rebind it), and `self.X` /
/// `cls.X` in the class body (`device_for_inference = 0`, bound once, never `self.X =`): those get
/// one finding, on the binding.
void checkIntegerVariableDevices(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                                 migrate::sdk::FindingSink& sink);

}  // namespace device
