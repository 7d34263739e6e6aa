#pragma once
// The library names the generated npu_ops.py replaces with the same call signature
// (templates/npu_ops.py.mustache), and the section of npu_ops.py that defines each.

#include <string>
#include <string_view>

namespace migrate_attention {

/// A library name that npu_ops.py provides under the same name and signature.
struct NpuOpsName {
  std::string_view module;   ///< the library module it is imported from ("xformers.ops")
  std::string_view name;     ///< the name in that module and in npu_ops ("memory_efficient_attention")
  std::string_view section;  ///< the npu_ops.py section defining it ("op_xformers")
};

/// The npu_ops counterpart of a fully qualified library name
/// (`flash_attn.flash_attn_interface.flash_attn_func`), or nullptr.
const NpuOpsName* npuOpsName(std::string_view qualified);
/// Whether some names of module `module` have npu_ops counterparts (`xformers.ops`, `flash_attn`).
bool isNpuOpsSourceModule(std::string_view module);
/// Whether `module` is a strict ancestor package of such a module (`xformers` for `xformers.ops`).
bool isNpuOpsSourceAncestor(std::string_view module);

}  // namespace migrate_attention
