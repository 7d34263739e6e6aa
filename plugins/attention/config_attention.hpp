#pragma once
/// The attention selection in YAML and JSON configuration files (see config_attention.cpp).

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate_attention {

/// The rules the configuration pass reports; a null rule is not checked.
struct ConfigRules {
  const migrate::sdk::RuleInfo* implementation =
      nullptr;  ///< ATT-021: `attn_implementation: flash_attention_2`
  const migrate::sdk::RuleInfo* deprecated_switch = nullptr;  ///< ATT-022: `use_flash_attention_2: true`
};

void checkConfigFiles(const migrate::sdk::WorkspaceView& workspace, const ConfigRules& rules,
                      migrate::sdk::FindingSink& sink);

}  // namespace migrate_attention
