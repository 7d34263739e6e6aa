#pragma once
// The precision plugin's emit hook, kept apart from the plugin class so tests can run it with a
// test EmitContext.

#include "migrate/sdk/emit.hpp"

namespace precision {

/// Asks for npu_ops.py's op_rms_norm section when an RMS norm upcasts to float32 (PREC-014) and
/// op_rotary for complex rotary embeddings (PREC-005), and lists the manual work of swapping them
/// in: neither is rewritten automatically (the surrounding code decides the arguments).
void emitPrecision(migrate::sdk::EmitContext& context);

}  // namespace precision
