#pragma once
// The attention plugin's emit hook, kept apart from the plugin class so tests can run it with a
// test EmitContext.

#include "migrate/sdk/emit.hpp"

namespace migrate_attention {

/// Asks for the npu_ops.py sections the adapted sources import (findings fixed by the npu_ops
/// rewrite) or the manual work points to, and lists that manual work: calls to switch to an
/// npu_ops wrapper by hand, and fixed calls whose arguments the NPU kernel cannot honour.
void emitAttention(migrate::sdk::EmitContext& context);

}  // namespace migrate_attention
