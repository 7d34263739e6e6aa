#pragma once
/// The device layer in shell launch scripts: CUDA runtime variables, inline-Python torch.cuda
/// queries, CUDA device options and nvidia-smi commands (see script_device.cpp).

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace device {

/// The rules the script pass reports; a null rule is not checked.
struct ScriptRules {
  const migrate::sdk::RuleInfo* visible_devices = nullptr;   ///< DEV-037
  const migrate::sdk::RuleInfo* alloc_conf = nullptr;        ///< DEV-038
  const migrate::sdk::RuleInfo* launch_blocking = nullptr;   ///< DEV-039
  const migrate::sdk::RuleInfo* runtime_variable = nullptr;  ///< DEV-053
  const migrate::sdk::RuleInfo* cuda_query = nullptr;        ///< DEV-001
  const migrate::sdk::RuleInfo* nproc_by_cuda = nullptr;     ///< DEV-079
  const migrate::sdk::RuleInfo* device_string = nullptr;     ///< DEV-023: `--device cuda:0` options
  const migrate::sdk::RuleInfo* smi = nullptr;               ///< DEV-040: nvidia-smi run as a command
};

void checkScripts(const migrate::sdk::WorkspaceView& workspace, const ScriptRules& rules,
                  migrate::sdk::FindingSink& sink);

}  // namespace device
