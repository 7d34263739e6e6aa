#pragma once
// DEV-052: a CUDA device string that a unittest assertion compares with a device value. The rule
// data cannot relate one argument of a call to another, so this check is code.

#include "migrate/sdk/plugin.hpp"

namespace device {

/// Reports `rule` (DEV-052) for each plain string "cuda" / "cuda:N" that is one operand of
/// assertEqual / assertNotEqual / assertIn / assertNotIn (and the *Equals aliases) whose other
/// operand is a device value: a name or attribute called `device`, `*_device`, `device_type` or
/// `devices` (a digit suffix allowed), its `.type`, `str(...)` of it, or a `["device"]`
/// subscript. The fix renames "cuda" to "npu" inside the literal.
void checkDeviceStringAsserts(const migrate::sdk::Module& module, const migrate::sdk::RuleInfo& rule,
                              migrate::sdk::FindingSink& sink);

}  // namespace device
