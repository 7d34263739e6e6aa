#pragma once
// DEV-088: a rank-like value passed positionally as the `device` parameter of one of the
// repository's own functions (`load_model(path, cfg, cfg.device_id, "motion")` with
// `def load_model(ckpt_path, model_config, device, model_type)` in another module). The keyword
// form (`device=local_rank`) is DEV-067's; the positional one needs the callee's signature, so this
// is a repository pass over the Python files' text: each file's module-level function signatures
// with a positional `device` parameter, and its calls of a bare name with a rank-like positional
// argument, are summarised once (and kept as a memo of the run), then matched by name.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-088) at each such argument. A function name defined with the parameter at
/// different positions in different files is ambiguous and not matched.
void checkDeviceParameterCalls(const migrate::sdk::WorkspaceView& workspace,
                               const migrate::sdk::RuleInfo& rule, migrate::sdk::FindingSink& sink);

}  // namespace device
