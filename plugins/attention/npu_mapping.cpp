// The NPU side of an attention call: layout, sparse_mode, atten_mask, scale, keep_prob from its arguments.
// The NPU side follows shared/knowledge/ascend-facts.md.

#include "npu_mapping.hpp"

#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

#include "source_text.hpp"

namespace migrate_attention {
namespace {

bool isOneOf(const std::string& s, std::initializer_list<std::string_view> values) {
  for (std::string_view v : values)
    if (s == v) return true;
  return false;
}

bool isZero(const std::string& s) {
  return isOneOf(s, {"0", "0.0", "0.", ".0", "0.00"});
}

bool isNone(const std::string& s) {
  return s == "None";
}

/// Whether `s` is a primary expression (a name, attribute chain, call or subscript) that needs no
/// parentheses before `.attr`, `[i]` or an operator.
bool isSimple(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
      return false;
    }
  }
  return depth == 0;
}

std::string paren(const std::string& s) {
  return isSimple(s) ? s : "(" + s + ")";
}

/// "(-1, -1)" → {"-1", "-1"}; false when not a two-element literal.
bool splitPair(const std::string& text, std::string& left, std::string& right) {
  std::string t = trim(text);
  if (t.size() < 2 || !((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']')))
    return false;
  t = t.substr(1, t.size() - 2);
  const std::size_t comma = t.find(',');
  if (comma == std::string::npos || t.find(',', comma + 1) != std::string::npos) return false;
  left = trim(t.substr(0, comma));
  right = trim(t.substr(comma + 1));
  return !left.empty() && !right.empty();
}

bool unbounded(const std::string& s) {
  return s == "-1" || s == "None";
}

}  // namespace

void add(Details& d, const std::string& key, const std::string& value, const char* sep) {
  std::string& slot = d[key];
  if (!slot.empty()) slot += sep;
  slot += value;
}

namespace {

const char* kCausalMask =
    "torch.triu(torch.ones(2048, 2048, dtype=torch.bool, device={q}.device), diagonal=1)";

std::string causalMask(const std::string& q) {
  std::string m = kCausalMask;
  m.replace(m.find("{q}"), 3, paren(q));
  return m;
}

/// sparse_mode / atten_mask / pre_tockens / next_tockens from causal and window_size.
void mapMasking(Details& d, const std::string& q, const std::string& causal_mode,
                const std::string& alignment) {
  const std::string causal = d.count("causal") ? d["causal"] : "False";
  const std::string window = d.count("window_size") ? d["window_size"] : "(-1, -1)";
  std::string left, right;
  const bool literal_window = splitPair(window, left, right);
  const bool window_active = literal_window ? !(unbounded(left) && unbounded(right)) : !isNone(window);
  if (window_active) {
    d["npu_sparse_mode"] = "4";
    d["npu_atten_mask"] = causalMask(q);
    d["npu_pre_tockens"] = literal_window ? (unbounded(left) ? "2147483647" : left) : paren(window) + "[0]";
    if (causal == "True")
      d["npu_next_tockens"] = "0";
    else
      d["npu_next_tockens"] =
          literal_window ? (unbounded(right) ? "2147483647" : right) : paren(window) + "[1]";
    d["causal_alignment"] = alignment;
    if (!literal_window)
      add(d, "npu_notes",
          "window_size is computed at run time: sparse_mode=4 (band) only when it is not (-1, -1)");
    return;
  }
  if (causal == "True") {
    d["npu_sparse_mode"] = causal_mode;
    d["npu_atten_mask"] = causalMask(q);
    d["causal_alignment"] = alignment;
  } else if (causal == "False") {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] = "None";
  } else {
    d["npu_sparse_mode"] = causal_mode + " if " + paren(causal) + " else 0";
    d["npu_atten_mask"] = causalMask(q) + " if " + paren(causal) + " else None";
    d["causal_alignment"] = alignment;
  }
}

void mapScaleAndDropout(Details& d, const std::string& head_source, bool has_dropout) {
  const std::string scale = d.count("softmax_scale") ? d["softmax_scale"] : "None";
  d["npu_scale"] = isNone(scale) ? "1.0 / math.sqrt(" + paren(head_source) + ".shape[-1])" : scale;
  if (!has_dropout) {
    d["keep_prob"] = "1.0";
    return;
  }
  const std::string p = d.count("dropout_p") ? d["dropout_p"] : "0.0";
  d["keep_prob"] = isZero(p) ? "1.0" : "1.0 - " + paren(p);
}

void mapUnsupported(Details& d) {
  auto given = [&](const char* key, bool (*off)(const std::string&)) {
    auto it = d.find(key);
    return it != d.end() && !off(it->second);
  };
  if (given("softcap", isZero))
    add(d, "npu_unsupported", "softcap (tanh soft-capping has no npu_fusion_attention parameter)");
  if (given("alibi_slopes", isNone))
    add(d, "npu_unsupported", "alibi_slopes (build the ALiBi bias and pass it as pse)");
  if (given("return_attn_probs", [](const std::string& s) { return s == "False"; }))
    add(d, "npu_unsupported",
        "return_attn_probs / return_lse (npu_fusion_attention returns softmax_max/softmax_sum, not "
        "probabilities or lse)");
  if (given("qv", isNone)) add(d, "npu_unsupported", "qv (FA3 MLA query-value product)");
  for (const char* fp8 : {"q_descale", "k_descale", "v_descale"})
    if (given(fp8, isNone)) {
      add(d, "npu_unsupported", "FP8 descale factors");
      break;
    }
  if (given("score_mod", isNone) || given("mask_mod", isNone))
    add(d, "npu_unsupported", "score_mod / mask_mod (express the mask as atten_mask)");
  if (given("learnable_sink", isNone)) add(d, "npu_unsupported", "learnable_sink");
  if (given("cache_batch_idx", isNone))
    add(d, "npu_unsupported", "cache_batch_idx (gather the cache rows first)");
  if (given("cache_leftpad", isNone)) add(d, "npu_unsupported", "cache_leftpad");
}

std::string valueOr(const Details& d, const char* key, const std::string& fallback) {
  auto it = d.find(key);
  return it == d.end() ? fallback : it->second;
}

}  // namespace

void mapFlash(const KernelSpec& spec, Details& d) {
  const bool fa1 = spec.library == "flash_attn_1";
  const bool has_dropout = spec.library == "flash_attn" || fa1;
  const std::string mode = fa1 ? "2" : "3";
  const std::string alignment = fa1 ? "top-left (flash-attn < 2.1)" : "bottom-right (flash-attn >= 2.1)";
  std::string q = valueOr(d, "q", "q");
  std::string head = q;
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "true";
  switch (spec.kind) {
    case KernelKind::Dense:
      d["layout"] = "BSND";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(q) + ".shape[2]";
      break;
    case KernelKind::KvPacked:
      d["layout"] = "BSND (q) + packed kv (batch, seqlen, 2, heads, dim)";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(q) + ".shape[2]";
      d["npu_split"] = "k, v = " + paren(valueOr(d, "kv", "kv")) + ".unbind(dim=2)";
      break;
    case KernelKind::QkvPacked: {
      const std::string qkv = valueOr(d, "qkv", "qkv");
      d["layout"] = "packed qkv (batch, seqlen, 3, heads, dim)";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(qkv) + ".shape[3]";
      d["npu_split"] = "q, k, v = " + paren(qkv) + ".unbind(dim=2)";
      q = "q";
      head = paren(qkv);
      break;
    }
    case KernelKind::Varlen:
    case KernelKind::VarlenKvPacked:
    case KernelKind::VarlenQkvPacked: {
      d["npu_input_layout"] = "TND";
      if (spec.kind == KernelKind::VarlenQkvPacked) {
        const std::string qkv = valueOr(d, "qkv", "qkv");
        d["layout"] = "packed qkv (total_tokens, 3, heads, dim)";
        d["npu_head_num"] = paren(qkv) + ".shape[2]";
        d["npu_split"] = "q, k, v = " + paren(qkv) + ".unbind(dim=1)";
        q = "q";
        head = paren(qkv);
        const std::string cu = valueOr(d, "cu_seqlens", "cu_seqlens");
        d["npu_actual_seq_qlen"] = paren(cu) + "[1:].tolist()";
        d["npu_actual_seq_kvlen"] = paren(cu) + "[1:].tolist()";
      } else {
        d["layout"] =
            spec.kind == KernelKind::Varlen ? "TND" : "TND (q) + packed kv (total_tokens, 2, heads, dim)";
        d["npu_head_num"] = paren(q) + ".shape[1]";
        if (spec.kind == KernelKind::VarlenKvPacked)
          d["npu_split"] = "k, v = " + paren(valueOr(d, "kv", "kv")) + ".unbind(dim=1)";
        if (d.count("cu_seqlens_q")) d["npu_actual_seq_qlen"] = paren(d["cu_seqlens_q"]) + "[1:].tolist()";
        if (d.count("cu_seqlens_k")) d["npu_actual_seq_kvlen"] = paren(d["cu_seqlens_k"]) + "[1:].tolist()";
      }
      add(d, "npu_notes",
          "actual_seq_qlen/actual_seq_kvlen are cumulative lengths WITHOUT the leading 0 (flash-attn's "
          "cu_seqlens "
          "start with 0)");
      if (d.count("block_table") && !isNone(d["block_table"]))
        add(d, "npu_unsupported", "block_table (paged KV: use torch_npu.npu_fused_infer_attention_score)");
      break;
    }
    case KernelKind::KvCache: {
      const std::string k_cache = valueOr(d, "k_cache", "k_cache");
      d["layout"] =
          "BSND (q) + KV cache (batch, seqlen_cache, heads_k, dim), paged when block_table is given";
      d["npu_op"] = "torch_npu.npu_fused_infer_attention_score";
      d["npu_input_layout"] = "BSND";
      d["npu_num_heads"] = paren(q) + ".shape[2]";
      d["npu_num_key_value_heads"] = paren(k_cache) + ".shape[2]";
      if (d.count("cache_seqlens")) d["npu_actual_seq_lengths_kv"] = d["cache_seqlens"];
      if (d.count("block_table") && !isNone(d["block_table"])) {
        d["npu_block_table"] = d["block_table"];
        d["npu_block_size"] = paren(k_cache) + ".shape[1]";
      }
      if (d.count("k_new") && !isNone(d["k_new"]))
        add(d, "npu_notes",
            "flash_attn_with_kvcache appends k/v to the cache in place at cache_seqlens: write them into "
            "k_cache/v_cache before the call and add their length to actual_seq_lengths_kv");
      if (d.count("rotary_cos") && !isNone(d["rotary_cos"]))
        add(d, "npu_notes",
            "rotary_cos/rotary_sin were applied inside the kernel: apply torch_npu.npu_rotary_mul to q and k "
            "first");
      mapMasking(d, q, mode, alignment);
      mapScaleAndDropout(d, head, false);
      d.erase("keep_prob");
      mapUnsupported(d);
      d["npu_returns"] = "(attention_out, softmax_lse): take [0]";
      return;
    }
    default:
      break;
  }
  mapMasking(d, q, mode, alignment);
  mapScaleAndDropout(d, head, has_dropout);
  mapUnsupported(d);
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
  if (spec.library == "flash_attn_3")
    add(d, "npu_notes",
        "FA3 releases before 3.0 returned (out, softmax_lse): check how the result is unpacked");
}

void mapXformers(Details& d, const std::string& bias_class) {
  const std::string q = valueOr(d, "q", "q");
  const std::string bias = valueOr(d, "attn_bias", "None");
  d["layout"] = "BMHK (= BSND)";
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "true";
  d["npu_input_layout"] = "BSND";
  d["npu_head_num"] = paren(q) + ".shape[2]";
  if (!bias_class.empty()) d["attn_bias_class"] = bias_class;
  const auto has = [&](std::string_view part) { return bias_class.find(part) != std::string::npos; };
  if (isNone(bias)) {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] = "None";
  } else if (has("Paged") || has("PaddedKeys") || has("Gappy")) {
    d["npu_op"] = "torch_npu.npu_fused_infer_attention_score";
    add(d, "npu_notes",
        bias_class +
            " describes decoding against a padded/paged KV cache: pass the per-sequence KV lengths as "
            "actual_seq_lengths_kv (and block_table for paged caches)");
    d["npu_sparse_mode"] = has("Causal") ? "3" : "0";
    d["npu_atten_mask"] = has("Causal") ? causalMask(q) : "None";
  } else if (has("BlockDiagonal")) {
    d["layout"] = "BMHK with batch 1 holding concatenated sequences (block-diagonal bias)";
    d["npu_input_layout"] = "TND";
    d["npu_head_num"] = paren(q) + ".shape[2]";
    d["npu_actual_seq_qlen"] = paren(bias) + ".q_seqinfo.seqstart_py[1:]";
    d["npu_actual_seq_kvlen"] = paren(bias) + ".k_seqinfo.seqstart_py[1:]";
    add(d, "npu_notes", "squeeze the batch dimension of q/k/v (1, total_tokens, heads, dim) for TND");
    if (has("Local")) {
      d["npu_sparse_mode"] = "4";
      d["npu_atten_mask"] = causalMask(q);
      add(d, "npu_notes", "local attention: set pre_tockens/next_tockens from the mask's window");
    } else if (has("Causal")) {
      d["npu_sparse_mode"] = "3";
      d["npu_atten_mask"] = causalMask(q);
      d["causal"] = "True (" + bias_class + ")";
      d["causal_alignment"] =
          has("BottomRight") ? "bottom-right" : "top-left per block (same as bottom-right for square blocks)";
    } else {
      d["npu_sparse_mode"] = "0";
      d["npu_atten_mask"] = "None";
    }
  } else if (has("LowerTriangular") || has("LocalAttention")) {
    const bool bottom_right = has("BottomRight");
    d["causal"] = "True (" + bias_class + ")";
    d["causal_alignment"] = bottom_right ? "bottom-right" : "top-left";
    d["npu_atten_mask"] = causalMask(q);
    if (has("Local")) {
      d["npu_sparse_mode"] = "4";
      add(d, "npu_notes", "local attention: set pre_tockens/next_tockens from the mask's window");
    } else {
      d["npu_sparse_mode"] = bottom_right ? "3" : "2";
    }
    if (has("TensorBias"))
      add(d, "npu_notes", "the tensor added to the causal mask becomes pse (an additive bias)");
  } else {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] =
        "~" + paren(bias) + " (boolean mask) or None with pse=" + bias + " (additive float bias)";
    d["mask_polarity"] = "inverted: npu_fusion_attention's atten_mask is True where attention is NOT allowed";
    add(d, "npu_notes",
        "a tensor attn_bias is added to the scores in xformers: pass an additive float bias as pse");
  }
  if (d.count("op") && !isNone(d["op"])) add(d, "npu_notes", "op= selects an xformers CUDA kernel: drop it");
  mapScaleAndDropout(d, q, true);
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
}

void mapSdpa(Details& d) {
  const std::string q = valueOr(d, "q", "query");
  d["layout"] = "BNSD";
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "false";
  d["npu_input_layout"] = "BNSD";
  d["npu_head_num"] = paren(q) + ".shape[1]";
  const std::string mask = valueOr(d, "attn_mask", "None");
  if (!isNone(mask)) {
    d["npu_atten_mask"] = "~" + paren(mask);
    d["npu_sparse_mode"] = "0";
    d["mask_polarity"] =
        "inverted: SDPA's boolean attn_mask is True where attention IS allowed, npu_fusion_attention's "
        "atten_mask "
        "is True where it is NOT; a float (additive) attn_mask goes to pse instead";
  } else {
    mapMasking(d, q, "2", "top-left (SDPA is_causal)");
    d.erase("window_size");
  }
  mapScaleAndDropout(d, q, true);
  if (d.count("enable_gqa") && d["enable_gqa"] != "False")
    add(d, "npu_notes", "GQA is native in npu_fusion_attention (query heads a multiple of key/value heads)");
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
}

}  // namespace migrate_attention
