#pragma once
// What the attention plugin knows about attention APIs: the kernels whose arguments it records
// (their documented signatures and how they map to torch_npu), and the other names of the
// attention libraries with the rule each belongs to.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/module.hpp"

namespace migrate_attention {

/// The shapes of attention call the NPU mapping distinguishes.
enum class KernelKind {
  Dense,            ///< flash_attn_func: q, k, v (batch, seqlen, heads, dim)
  Varlen,           ///< flash_attn_varlen_func: (total_tokens, heads, dim) + cu_seqlens
  QkvPacked,        ///< flash_attn_qkvpacked_func: qkv (batch, seqlen, 3, heads, dim)
  KvPacked,         ///< flash_attn_kvpacked_func: q + kv (batch, seqlen, 2, heads, dim)
  VarlenQkvPacked,  ///< flash_attn_varlen_qkvpacked_func: qkv (total, 3, heads, dim)
  VarlenKvPacked,   ///< flash_attn_varlen_kvpacked_func: q (total, heads, dim) + kv (total, 2, heads, dim)
  KvCache,          ///< flash_attn_with_kvcache: decoding against a (paged) KV cache
  Xformers,         ///< xformers memory_efficient_attention: BMHK + attn_bias
  Sdpa,             ///< torch.nn.functional.scaled_dot_product_attention: BNSD
};

/// One parameter of a documented signature: the API's own keyword, the details key it is
/// recorded under (shared by all APIs: `dropout_p`, `softmax_scale`, `causal`, ...) and its default.
struct Param {
  std::string_view name;
  std::string_view key;
  std::string_view default_value;  ///< empty: required
};

/// An attention kernel whose calls the plugin maps argument by argument.
struct KernelSpec {
  std::string_view rule_id;
  std::string_view
      library;  ///< "flash_attn" (FA2), "flash_attn_1", "flash_attn_3", "flash_attn_4", "xformers", "torch"
  std::string_view function;
  KernelKind kind;
  std::vector<Param> params;
  /// Leading parameters that may be matched by position. Later ones moved between library
  /// versions (e.g. flash-attn 2.6 inserted `softcap`), so only keywords are trusted there.
  std::size_t positional;
};

/// A rule for other names of the attention libraries (`flash_attn.bert_padding.*`, ...).
struct NameRule {
  std::string_view pattern;  ///< exact name, or prefix ending in ".*"
  std::string_view rule_id;
  std::string_view npu;   ///< fills {npu}
  std::string_view note;  ///< fills {note}
};

/// The kernel a resolved callee names, or nullptr.
const KernelSpec* findKernel(const std::string& resolved);
/// The name rule for a resolved name (exact beats prefix, longer prefix beats shorter), or nullptr.
const NameRule* findNameRule(const std::string& resolved);
/// `xformers.ops.fmha.attn_bias.BlockDiagonalMask.from_seqlens` → "BlockDiagonalMask"; "" when the
/// name is not an xformers attention-bias class.
std::string xformersBiasClass(const std::string& resolved);
/// Whether `resolved` is a package or module of an attention library (never a finding by itself).
bool isLibraryModule(const std::string& resolved);

/// The recorded arguments of one call and the NPU mapping derived from them (Finding::details).
using Details = std::map<std::string, std::string>;

/// Maps the call's arguments onto `spec`'s signature and derives the npu_* keys. `bias_class` is
/// the xformers attention-bias class passed as attn_bias, when known.
Details describeCall(const KernelSpec& spec, const migrate::sdk::Module& module,
                     const migrate::sdk::CallFact& call, const std::string& bias_class);
/// Details of a kernel referenced without being called (passed as a value).
Details describeReference(const KernelSpec& spec);

}  // namespace migrate_attention
