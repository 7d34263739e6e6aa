#pragma once
// DEV-060: a Lightning Trainer or Fabric whose accelerator is left to Lightning's automatic choice.
// The rule data can say what an argument holds, not that an argument is missing, so this check is
// code.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-060) at each call of Lightning's Trainer or Fabric (lightning,
/// pytorch_lightning, lightning_fabric) with no `accelerator` argument or with
/// `accelerator="auto"`: Lightning's automatic choice knows TPU, CUDA, MPS and CPU, so on an Ascend
/// host the run silently falls back to the CPU. A call with `**kwargs`, a positional argument list
/// that reaches the accelerator, or an accelerator given as a name (its value is chosen elsewhere)
/// is left alone — unless the name is bound to "auto" in the function around the call (a
/// parameter's default, `def __init__(self, accelerator="auto")`), reported at that string; inside
/// Lightning's own repository nothing is reported.
void checkLightningAutoAccelerator(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                                   migrate::sdk::FindingSink& sink);

}  // namespace device
