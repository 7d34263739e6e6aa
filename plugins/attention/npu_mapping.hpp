#pragma once
// The NPU mapping of an attention call: the npu_* details derived from its recorded arguments.

#include <string>

#include "kernels.hpp"

namespace migrate_attention {

/// Appends `value` to `d[key]`, separated by `sep` from what is already there.
void add(Details& d, const std::string& key, const std::string& value, const char* sep = "; ");

/// The flash-attn kernels (FA1 to FA4): npu_fusion_attention, or npu_fused_infer_attention_score
/// for flash_attn_with_kvcache.
void mapFlash(const KernelSpec& spec, Details& d);
/// xformers memory_efficient_attention; `bias_class` is the attention-bias class passed, when known.
void mapXformers(Details& d, const std::string& bias_class);
/// torch.nn.functional.scaled_dot_product_attention (native on the NPU; npu_fusion_attention optional).
void mapSdpa(Details& d);

}  // namespace migrate_attention
