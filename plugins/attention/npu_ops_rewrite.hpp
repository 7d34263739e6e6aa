#pragma once
// Automatic fixes of the attention findings: the file's flash-attn / xformers imports switched to
// the generated npu_ops module, whose wrappers keep the libraries' call signatures, so that the
// call sites stay as written. See README.md ("Automatic fixes") for the forms rewritten.

#include <string>
#include <vector>

#include "kernels.hpp"
#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/module.hpp"

namespace migrate_attention {

/// One finding of a file, as the rewrite sees it.
struct RewriteCandidate {
  migrate::sdk::Finding* finding = nullptr;
  std::string root;                              ///< local name its API is reached through; "" for none
  const migrate::sdk::CallFact* call = nullptr;  ///< the call reported, when it is a kernel call
  const KernelSpec* spec = nullptr;              ///< that call's kernel
};

/// Decides, for every name an import binds to a library name npu_ops replaces, whether the whole
/// file can switch it to npu_ops (every use of it must be a name npu_ops has, every call one whose
/// arguments npu_ops takes the same way). If so, every candidate reached through the name gets all
/// the edits of the switch (the same list on each: identical edits are applied once) and details
/// `npu_ops` / `npu_ops_section`; if not, the candidates npu_ops could serve get `npu_ops_blocked`
/// saying why.
void planNpuOpsRewrites(const migrate::sdk::Module& module, std::vector<RewriteCandidate>& candidates);

}  // namespace migrate_attention
