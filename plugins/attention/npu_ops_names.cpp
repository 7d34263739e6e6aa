// The table of library names npu_ops.py replaces. Keep it in step with the wrappers defined in
// templates/npu_ops.py.mustache: a name listed here must exist there with the library's
// signature (positional order included), or the adapted sources break.

#include "npu_ops_names.hpp"

#include <algorithm>
#include <iterator>

namespace migrate_attention {
namespace {

constexpr std::string_view kFlashAttn = "op_flash_attn";
constexpr std::string_view kXformers = "op_xformers";
constexpr std::string_view kRotary = "op_rotary";

const NpuOpsName kNames[] = {
    // flash-attn 2.x, from the package or its interface module.
    {"flash_attn", "flash_attn_func", kFlashAttn},
    {"flash_attn", "flash_attn_varlen_func", kFlashAttn},
    {"flash_attn", "flash_attn_qkvpacked_func", kFlashAttn},
    {"flash_attn", "flash_attn_kvpacked_func", kFlashAttn},
    {"flash_attn", "flash_attn_varlen_qkvpacked_func", kFlashAttn},
    {"flash_attn", "flash_attn_varlen_kvpacked_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_varlen_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_qkvpacked_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_kvpacked_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_varlen_qkvpacked_func", kFlashAttn},
    {"flash_attn.flash_attn_interface", "flash_attn_varlen_kvpacked_func", kFlashAttn},
    // flash-attn's rotary embedding function (not the RotaryEmbedding module).
    {"flash_attn.layers.rotary", "apply_rotary_emb", kRotary},
    // xformers memory-efficient attention and the two causal biases npu_ops maps.
    {"xformers.ops", "memory_efficient_attention", kXformers},
    {"xformers.ops", "LowerTriangularMask", kXformers},
    {"xformers.ops", "LowerTriangularFromBottomRightMask", kXformers},
    {"xformers.ops.fmha", "memory_efficient_attention", kXformers},
    {"xformers.ops.fmha", "LowerTriangularMask", kXformers},
    {"xformers.ops.fmha", "LowerTriangularFromBottomRightMask", kXformers},
    {"xformers.ops.fmha.attn_bias", "LowerTriangularMask", kXformers},
    {"xformers.ops.fmha.attn_bias", "LowerTriangularFromBottomRightMask", kXformers},
};

}  // namespace

const NpuOpsName* npuOpsName(std::string_view qualified) {
  const std::size_t dot = qualified.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  const std::string_view module = qualified.substr(0, dot);
  const std::string_view name = qualified.substr(dot + 1);
  const auto* it = std::find_if(std::begin(kNames), std::end(kNames),
                                [&](const NpuOpsName& n) { return n.module == module && n.name == name; });
  return it == std::end(kNames) ? nullptr : it;
}

bool isNpuOpsSourceModule(std::string_view module) {
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [&](const NpuOpsName& n) { return n.module == module; });
}

bool isNpuOpsSourceAncestor(std::string_view module) {
  return std::any_of(std::begin(kNames), std::end(kNames), [&](const NpuOpsName& n) {
    return n.module.size() > module.size() && n.module.compare(0, module.size(), module) == 0 &&
           n.module[module.size()] == '.';
  });
}

}  // namespace migrate_attention
