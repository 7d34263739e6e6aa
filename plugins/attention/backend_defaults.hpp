#pragma once
// Defaults that select a CUDA-only attention branch (ATT-027): `attn_mode: str = "xformers"` in a
// class whose forward runs `xformers.ops.memory_efficient_attention` under
// `if self.attn_mode == "xformers":`, or `mode="flash"` of a function that calls flash-attn under
// `elif mode == "flash":`. The kernel call is reported where it stands; the default is where an
// NPU host takes that branch without anyone asking for it, so it is the place to change.

#include <cstdint>
#include <string>
#include <vector>

#include "migrate/sdk/module.hpp"
#include "source_text.hpp"

namespace migrate_attention {

struct BackendDefault {
  const migrate::sdk::StringFact* value = nullptr;  ///< the default (or assigned) string
  std::string name;                                 ///< the parameter or variable it sets
  std::uint32_t branch_line = 0;                    ///< the `if`/`elif` that tests it
  std::string kernel;                               ///< what the branch runs (`xformers.ops.…`)
};

/// A kernel of a CUDA-only attention library that the file calls, by line.
struct KernelLine {
  std::uint32_t line = 0;
  std::string api;
};

/// Strings assigned to a name (a parameter default, a variable) that an `if NAME == "VALUE":` /
/// `elif` of the same file tests, when that branch calls one of `kernels`. A value chosen by a
/// conditional expression (`"xformers" if XFORMERS_IS_AVAILABLE else "torch"`) already falls
/// back and is left out.
std::vector<BackendDefault> findBackendDefaults(const migrate::sdk::Module& module, const SourceText& src,
                                                const std::vector<KernelLine>& kernels);

}  // namespace migrate_attention
