#pragma once
// DEV-096: diffusers' CPU offload left on its default device. Before diffusers 0.34,
// `DiffusionPipeline.enable_model_cpu_offload(gpu_id=None, device="cuda")` and
// `enable_sequential_cpu_offload(…)` move each model to "cuda" when it runs; 0.34 made the default
// None, resolved by diffusers' get_device() (which knows the NPU). So the call without a device is a
// finding only in a repository that pins diffusers below 0.34. The pin sits in a manifest and the
// pipeline's class may be the repository's own, so this is a repository pass over the files' text.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-096) at each `X.enable_model_cpu_offload()` /
/// `X.enable_sequential_cpu_offload()` call, written on one line with no `device` and no second
/// positional argument, in a repository whose requirements, pyproject, setup or environment file
/// pins diffusers below 0.34 (`==0.28.2`, `<=0.31.0`, `<0.20`). Not when X's class (`X = Cls(…)` or
/// `Cls.from_pretrained(…)` above the call) is defined in a file of the repository that defines the
/// method itself, nor when the call sits under a bare flag test (`if self.cfg.cpu_offload:`: an
/// opt-in the user switches on), nor for `self.enable_…()` inside a pipeline class.
void checkDiffusersOffload(const migrate::sdk::WorkspaceView& workspace, const migrate::sdk::RuleInfo& rule,
                           migrate::sdk::FindingSink& sink);

}  // namespace device
