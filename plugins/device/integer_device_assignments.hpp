#pragma once
// DEV-076: a rank-like integer stored as the device (`device = local_rank`, `args.device =
// args.local_rank`, `device = int(os.environ["LOCAL_RANK"])`, `device = dist.get_rank()`). The value
// is a name or a call, not a literal, so no keyword or string rule sees it; the receivers
// (`.to(device)`, `torch.device(device)`) read an integer as a CUDA index. A plain variable whose
// only later use in its function is `set_device(device)` is left alone: that call takes an index on
// the NPU too. This check reads the module's source lines.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-076) at the value of each such one-line assignment outside strings.
void checkIntegerDeviceAssignments(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                                   migrate::sdk::FindingSink& sink);

}  // namespace device
