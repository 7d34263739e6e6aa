#pragma once
// DEV-060 and DEV-049 across files: a command-line option that hands Lightning its accelerator,
// declared with the default "auto" (Lightning's automatic choice) or "gpu" (CUDA). The option is declared in
// one module (`common.py`'s `add_argument("--accelerator", default="auto")`) and read in another
// (`pl.Trainer(accelerator=args.accelerator)`), so this is a repository pass over the files' text.

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace device {

/// Reports `automatic` (DEV-060) at the `"auto"` default of each `add_argument("--accelerator", …,
/// default="auto")`, and `cuda` (DEV-049) at a `"gpu"` default, in a Python file of a repository
/// that imports Lightning (lightning, pytorch_lightning, lightning_fabric) and hands an attribute
/// named `accelerator` to a keyword of that name (`accelerator=args.accelerator`, in any file): the
/// option's default reaches the Trainer. A null rule is not checked. Not inside Lightning's own
/// repository. (A "cuda" default is DEV-023's, as for any option.)
void checkLightningAcceleratorOptions(const migrate::sdk::WorkspaceView& workspace,
                                      const migrate::sdk::RuleInfo* automatic,
                                      const migrate::sdk::RuleInfo* cuda, migrate::sdk::FindingSink& sink);

}  // namespace device
