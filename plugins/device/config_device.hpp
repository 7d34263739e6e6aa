#pragma once
/// The device layer in YAML configuration files (see config_device.cpp).

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace device {

/// The rules the configuration pass reports; a null rule is not checked.
struct ConfigRules {
  const migrate::sdk::RuleInfo* device_string = nullptr;     ///< DEV-023
  const migrate::sdk::RuleInfo* accelerator = nullptr;       ///< DEV-049
  const migrate::sdk::RuleInfo* auto_accelerator = nullptr;  ///< DEV-060: a trainer's `gpus: N`
  const migrate::sdk::RuleInfo* trainer_device = nullptr;    ///< DEV-080: a trainer's `device: gpu`
  const migrate::sdk::RuleInfo* smi = nullptr;               ///< DEV-040: a value that runs nvidia-smi
};

void checkConfigFiles(const migrate::sdk::WorkspaceView& workspace, const ConfigRules& rules,
                      migrate::sdk::FindingSink& sink);

}  // namespace device
