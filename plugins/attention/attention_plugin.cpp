// The attention plugin: flash-attn (FA2, FA1 names, FA3, FA4), xformers, SDPA, flex attention,
// other CUDA-only attention kernels, and hand-written attention, with the arguments that decide
// the NPU mapping. Rules are data (rules/*.yaml); this file reports the `custom` ones: attention
// calls with their recorded arguments (and whether the import they come from is guarded), the
// other names of the attention libraries (with the assignment-target and guard filtering the
// engine's `api` matching lacks), and hand-written softmax(q @ k^T) @ v. Import statements of the
// libraries are the deps domain's findings (DEP-012, DEP-013). Findings npu_ops.py can serve get
// edits that switch the file's imports to npu_ops (npu_ops_rewrite.cpp); emit asks for the
// npu_ops sections and lists manual work (attention_emit.cpp). See README.md for one entry per rule id.

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attention_embedded_rules.hpp"
#include "attention_emit.hpp"
#include "backend_defaults.hpp"
#include "config_attention.hpp"
#include "handwritten.hpp"
#include "kernels.hpp"
#include "migrate/sdk/plugin.hpp"
#include "npu_ops_rewrite.hpp"
#include "source_text.hpp"

namespace {

using namespace migrate::sdk;
using migrate_attention::Details;
using migrate_attention::KernelKind;
using migrate_attention::KernelSpec;
using migrate_attention::RewriteCandidate;
using migrate_attention::SourceText;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/flash_attn.yaml",     // ATT-001..013
    "rules/xformers.yaml",       // ATT-014..017
    "rules/sdpa.yaml",           // ATT-018..020
    "rules/transformers.yaml",   // ATT-021..023
    "rules/other_kernels.yaml",  // ATT-024, ATT-026 … ATT-029
    "rules/handwritten.yaml",    // ATT-025
};

/// The rules this file reports (`match: {custom: ...}`).
constexpr const char* kCustomRules[] = {"ATT-001", "ATT-002", "ATT-003", "ATT-004", "ATT-005", "ATT-006",
                                        "ATT-007", "ATT-008", "ATT-009", "ATT-010", "ATT-011", "ATT-012",
                                        "ATT-013", "ATT-014", "ATT-015", "ATT-016", "ATT-018", "ATT-020",
                                        "ATT-024", "ATT-025", "ATT-027"};

bool endsWithWord(const std::string& s, std::string_view word) {
  if (s.size() < word.size() || s.compare(s.size() - word.size(), word.size(), word) != 0) return false;
  const std::size_t at = s.size() - word.size();
  return at == 0 || !(std::isalnum(static_cast<unsigned char>(s[at - 1])) || s[at - 1] == '_');
}

bool startsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string rootName(const std::string& chain) {
  return chain.substr(0, chain.find('.'));
}

/// A finding of the file being analysed, before the npu_ops rewrite gives it its edits.
struct Pending {
  Finding finding;
  std::string root;  ///< the local name its API is reached through
  const CallFact* call = nullptr;
  const KernelSpec* spec = nullptr;
};

std::string compactMask(const std::string& mask) {
  return startsWith(mask, "torch.triu(") ? "triu(ones(2048, 2048, dtype=bool), 1)" : mask;
}

std::string get(const Details& d, const char* key, const std::string& fallback = {}) {
  auto it = d.find(key);
  return it == d.end() ? fallback : it->second;
}

/// One-line NPU call for the message, from the recorded details.
std::string mapping(const Details& d) {
  if (get(d, "call") != "true") return get(d, "npu_op") + " (map the arguments at each call site)";
  std::string m;
  if (d.count("npu_split")) m += get(d, "npu_split") + "; ";
  // The tensors as the call passed them (packed inputs are split into q, k, v first).
  const bool packed_qkv = d.count("qkv") != 0;
  const bool packed_kv = packed_qkv || d.count("kv") != 0;
  const std::string q = packed_qkv ? "q" : get(d, "q", "q");
  const std::string k = packed_kv ? "k" : get(d, "k", "k");
  const std::string v = packed_kv ? "v" : get(d, "v", "v");
  const std::string op = get(d, "npu_op");
  if (op == "torch_npu.npu_fused_infer_attention_score") {
    m += op + "(" + q + ", " + get(d, "k_cache", "k_cache") + ", " + get(d, "v_cache", "v_cache") +
         ", num_heads=" + get(d, "npu_num_heads") +
         ", num_key_value_heads=" + get(d, "npu_num_key_value_heads") + ", input_layout=\"" +
         get(d, "npu_input_layout") + "\", scale=" + get(d, "npu_scale");
    if (d.count("npu_actual_seq_lengths_kv"))
      m += ", actual_seq_lengths_kv=" + get(d, "npu_actual_seq_lengths_kv");
    if (d.count("npu_block_table"))
      m += ", block_table=" + get(d, "npu_block_table") + ", block_size=" + get(d, "npu_block_size");
    m += ", sparse_mode=" + get(d, "npu_sparse_mode", "0");
    if (get(d, "npu_atten_mask", "None") != "None")
      m += ", atten_mask=" + compactMask(get(d, "npu_atten_mask"));
    return m + ")[0]";
  }
  m += op + "(" + q + ", " + k + ", " + v + ", head_num=" + get(d, "npu_head_num") + ", input_layout=\"" +
       get(d, "npu_input_layout") + "\", scale=" + get(d, "npu_scale") +
       ", keep_prob=" + get(d, "keep_prob", "1.0") + ", sparse_mode=" + get(d, "npu_sparse_mode", "0");
  if (get(d, "npu_atten_mask", "None") != "None")
    m += ", atten_mask=" + compactMask(get(d, "npu_atten_mask"));
  if (d.count("npu_pre_tockens"))
    m += ", pre_tockens=" + get(d, "npu_pre_tockens") + ", next_tockens=" + get(d, "npu_next_tockens");
  if (d.count("npu_actual_seq_qlen"))
    m += ", actual_seq_qlen=" + get(d, "npu_actual_seq_qlen") +
         ", actual_seq_kvlen=" + get(d, "npu_actual_seq_kvlen");
  return m + ")[0]";
}

/// Extra sentences for the message: what does not carry over, mask polarity, notes.
std::string note(const Details& d) {
  std::string n;
  if (d.count("npu_unsupported")) n += " Not available on NPU: " + get(d, "npu_unsupported") + ".";
  if (d.count("mask_polarity")) n += " Mask polarity is " + get(d, "mask_polarity") + ".";
  if (d.count("npu_notes")) n += " Note: " + get(d, "npu_notes") + ".";
  if (d.count("kwargs_splat") || d.count("args_splat"))
    n += " Some arguments are passed through *args/**kwargs: check them by hand.";
  return n;
}

class AttentionPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"attention",
            "0.1.0",
            "attention",
            "flash-attn, xformers, SDPA and hand-written attention, with the arguments that decide the NPU "
            "mapping",
            {}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    for (const char* id : kCustomRules) rules_[id] = &context.requireRule(id);
    configs_ = {context.rule("ATT-021"), context.rule("ATT-022")};
  }

  /// The attention selection written in YAML and JSON configuration files (config_attention.hpp).
  void analyzeRepository(const WorkspaceView& workspace, FindingSink& sink) const override {
    migrate_attention::checkConfigFiles(workspace, configs_, sink);
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    const SourceText src(module.source());
    const std::string file(module.path());
    std::vector<Pending> found;

    const auto& calls = module.calls();
    const auto& refs = module.references();
    // `fn = flash_attn_func`, `self.attn_fn = F.scaled_dot_product_attention`, `a, b = f, g`: calls
    // through such an alias are calls of the kernel.
    const std::map<std::string, std::vector<std::size_t>> aliases = kernelAliases(module, src);
    std::vector<char> alias_used(refs.size(), 0);
    std::vector<char> is_kernel_call(calls.size(), 0);
    // Calls whose reference resolves by itself (through imports): the references' loop below
    // reports their library names.
    std::vector<char> reported_by_reference(calls.size(), 0);
    for (const ReferenceFact& ref : refs)
      if (ref.call >= 0 && !ref.resolved.empty())
        reported_by_reference[static_cast<std::size_t>(ref.call)] = 1;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> xformers_args;  // byte spans of MEA arguments
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const CallFact& call = calls[i];
      std::string resolved = call.callee_resolved;
      // The engine resolves a plain alias itself (values::NameBindings); the alias's right sides
      // are then this call's, not uses of their own.
      if (auto alias = aliases.find(call.callee_written); alias != aliases.end() && !resolved.empty())
        for (std::size_t r : alias->second) alias_used[r] = 1;
      if (resolved.empty()) {
        auto alias = aliases.find(call.callee_written);
        if (alias == aliases.end()) continue;
        resolved = refs[alias->second.front()].resolved;
        for (std::size_t r : alias->second) alias_used[r] = 1;
        if (!migrate_attention::findKernel(resolved)) {
          // A call through an alias of another library name (`pad_input = _pad_input`).
          if (const auto* rule = migrate_attention::findNameRule(resolved)) {
            std::map<std::string, std::string> vars{
                {"npu", std::string(rule->npu)},
                {"note", rule->note.empty() ? "" : " " + std::string(rule->note)}};
            Details d{{"call", "true"}, {"alias_of", resolved}};
            d["import_guard"] = importGuard(module, src, call.callee_written, aliases);
            report(found, std::string(rule->rule_id), file, call.range, call.callee_written, resolved,
                   std::move(vars), std::move(d), rootName(refs[alias->second.front()].written));
          }
          continue;
        }
      }
      // Inside the library's own repository (xformers in xformers) its names are the project's.
      if (module.isProjectModule(resolved)) continue;
      const KernelSpec* spec = migrate_attention::findKernel(resolved);
      if (!spec) {
        // `ops = torch.ops.flash_attn_3` … `ops.fwd(q, k, v)`: a call into a compiled extension
        // (ATT-007) through a module alias the engine followed (values::NameBindings). Other
        // library names through aliases are values (`v = xformers.__version__; v.startswith(…)`).
        const auto* rule = reported_by_reference[i] ? nullptr : migrate_attention::findNameRule(resolved);
        if (rule && rule->rule_id == "ATT-007")
          report(found, std::string(rule->rule_id), file, call.range, call.callee_written, resolved,
                 {{"npu", std::string(rule->npu)},
                  {"note", rule->note.empty() ? "" : " " + std::string(rule->note)}},
                 Details{{"call", "true"}, {"alias_of", resolved}}, rootName(call.callee_written));
        continue;
      }
      const auto alias = aliases.find(call.callee_written);
      const std::string root =
          rootName(alias == aliases.end() ? call.callee_written : refs[alias->second.front()].written);
      is_kernel_call[i] = 1;
      std::string bias_class;
      if (spec->kind == KernelKind::Xformers) {
        xformers_args.emplace_back(call.name_range.end_byte, call.range.end_byte);
        bias_class = biasClassOf(module, call, i);
      }
      Details d = migrate_attention::describeCall(*spec, module, call, bias_class);
      d["import_guard"] = importGuard(module, src, call.callee_written, aliases);
      auto vars = kernelVars(d);
      report(found, std::string(spec->rule_id), file, call.range, call.callee_written, resolved,
             std::move(vars), std::move(d), root, &call, spec);
    }

    for (std::size_t r = 0; r < refs.size(); ++r) {
      const ReferenceFact& ref = refs[r];
      if (ref.resolved.empty() || alias_used[r] || module.isProjectModule(ref.resolved)) continue;
      if (ref.call >= 0 && is_kernel_call[static_cast<std::size_t>(ref.call)]) continue;
      if (migrate_attention::isLibraryModule(ref.resolved)) continue;
      if (!isUseSite(module, src, ref)) continue;
      if (const KernelSpec* spec = migrate_attention::findKernel(ref.resolved)) {
        Details d = migrate_attention::describeReference(*spec);
        auto vars = kernelVars(d);
        report(found, std::string(spec->rule_id), file, ref.range, ref.written, ref.resolved, std::move(vars),
               std::move(d), rootName(ref.written));
        continue;
      }
      const bool inside_mea = std::any_of(xformers_args.begin(), xformers_args.end(), [&](const auto& span) {
        return ref.range.start_byte >= span.first && ref.range.end_byte <= span.second;
      });
      if (inside_mea && ref.resolved.rfind("xformers.", 0) == 0) continue;  // recorded in the call's details
      if (const std::string bias = migrate_attention::xformersBiasClass(ref.resolved); !bias.empty()) {
        Details d{{"attn_bias_class", bias},
                  {"library", "xformers"},
                  {"import_guard", importGuard(module, src, ref.written, {})}};
        const std::size_t at = ref.resolved.find(bias);
        const std::string rest = ref.resolved.substr(at + bias.size());
        if (!rest.empty()) d["bias_method"] = rest.substr(1);
        const std::string npu = biasMapping(bias);
        d["npu_mapping"] = npu;
        std::map<std::string, std::string> vars{{"class", bias}, {"npu", npu}};
        report(found, "ATT-015", file, ref.range, ref.written, ref.resolved, std::move(vars), std::move(d),
               rootName(ref.written));
        continue;
      }
      if (const auto* rule = migrate_attention::findNameRule(ref.resolved)) {
        // `DATA_PARAMS["cu_seqlens_q"]`: a value of the library read, not its kernel run.
        if (ref.call < 0 && ref.range.end_byte < module.source().size() &&
            module.source()[ref.range.end_byte] == '[')
          continue;
        Details d{{"call", ref.call >= 0 ? "true" : "false"},
                  {"import_guard", importGuard(module, src, ref.written, {})}};
        std::map<std::string, std::string> vars{
            {"npu", std::string(rule->npu)},
            {"note", rule->note.empty() ? "" : " " + std::string(rule->note)}};
        report(found, std::string(rule->rule_id), file, ref.range, ref.written, ref.resolved, std::move(vars),
               std::move(d), rootName(ref.written));
      }
    }

    for (const auto& h : migrate_attention::findHandwrittenAttention(module, src)) {
      Details d{
          {"scores", h.scores},
          {"qk_product", h.qk},
          {"layout", "BNSD (usual for hand-written attention: check the transposes)"},
          {"npu_op", "torch.nn.functional.scaled_dot_product_attention or torch_npu.npu_fusion_attention"},
          {"npu_required", "false"}};
      if (!h.weights.empty()) d["weights"] = h.weights;
      if (!h.function.empty()) d["function"] = h.function;
      std::map<std::string, std::string> vars{{"qk", h.qk}, {"scores", h.scores}};
      report(found, "ATT-025", file, h.range, h.written, h.resolved, std::move(vars), std::move(d), {});
    }

    // A default that selects the branch running one of those kernels (ATT-027).
    std::vector<migrate_attention::KernelLine> kernel_lines;
    for (const Pending& p : found) {
      const std::string& id = p.finding.rule_id;
      const bool cuda_only = p.spec ? p.spec->library != "torch" : id != "ATT-020" && id != "ATT-025";
      if (cuda_only) kernel_lines.push_back({p.finding.range.line, p.finding.resolved_api});
    }
    for (const auto& d : migrate_attention::findBackendDefaults(module, src, kernel_lines)) {
      Details details{{"parameter", d.name},
                      {"value", d.value->value},
                      {"branch_line", std::to_string(d.branch_line)},
                      {"kernel", d.kernel}};
      std::map<std::string, std::string> vars{
          {"name", d.name}, {"value", d.value->value}, {"kernel", d.kernel}};
      report(found, "ATT-027", file, d.value->range, d.value->value, {}, std::move(vars), std::move(details),
             {});
    }

    std::vector<RewriteCandidate> candidates;
    for (Pending& p : found) candidates.push_back({&p.finding, p.root, p.call, p.spec});
    migrate_attention::planNpuOpsRewrites(module, candidates);
    for (Pending& p : found) sink.report(std::move(p.finding));
  }

  void emit(EmitContext& context) const override { migrate_attention::emitAttention(context); }

 private:
  /// Adds a finding of rule `id` to `found`; `root` is the local name the API is reached through.
  void report(std::vector<Pending>& found, const std::string& id, const std::string& file,
              const SourceRange& range, const std::string& written, const std::string& resolved,
              std::map<std::string, std::string> vars, Details details, std::string root,
              const CallFact* call = nullptr, const KernelSpec* spec = nullptr) const {
    auto it = rules_.find(id);
    if (it == rules_.end()) return;
    Finding f = findingFrom(*it->second, file, range, written, resolved, std::move(vars));
    f.details = std::move(details);
    found.push_back({std::move(f), std::move(root), call, spec});
  }

  static std::map<std::string, std::string> kernelVars(const Details& d) {
    std::map<std::string, std::string> vars(d.begin(), d.end());
    vars["npu"] = get(d, "npu_op");
    vars["mapping"] = mapping(d);
    vars["note"] = note(d);
    return vars;
  }

  static std::string biasMapping(const std::string& bias) {
    const auto has = [&](std::string_view part) { return bias.find(part) != std::string::npos; };
    if (has("Paged") || has("PaddedKeys") || has("Gappy"))
      return "torch_npu.npu_fused_infer_attention_score with actual_seq_lengths_kv (and block_table when "
             "paged)";
    if (has("BlockDiagonal"))
      return std::string(
                 "input_layout=\"TND\" with actual_seq_qlen/actual_seq_kvlen = cumulative sequence lengths "
                 "without the leading 0") +
             (has("Causal") ? ", sparse_mode=3 and a 2048x2048 causal atten_mask" : ", sparse_mode=0");
    if (has("LowerTriangular") || has("LocalAttention"))
      return std::string(
                 "atten_mask = torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1) with "
                 "sparse_mode=") +
             (has("Local")         ? "4 (band: pre_tockens/next_tockens from the window)"
              : has("BottomRight") ? "3"
                                   : "2");
    return "atten_mask (boolean, True = masked out) or pse (additive float bias)";
  }

  /// How the import that binds the root of `written` is guarded: "try", "if", "none", or "" when
  /// no import binds it (an alias is followed to the name it was assigned from).
  static std::string importGuard(const Module& module, const SourceText& src, const std::string& written,
                                 const std::map<std::string, std::vector<std::size_t>>& aliases) {
    std::string chain = written;
    if (auto alias = aliases.find(written); alias != aliases.end())
      chain = module.references()[alias->second.front()].written;
    const std::string root = chain.substr(0, chain.find('.'));
    const ImportFact* binding = nullptr;
    for (const ImportFact& imp : module.imports())
      if (imp.bound == root) binding = &imp;
    if (!binding) return {};
    const std::string guard = src.guardOf(binding->range.line);
    return guard.empty() ? "none" : guard;
  }

  /// Names assigned an attention API without calling it (`fn = flash_attn_func`,
  /// `self.fn = F.scaled_dot_product_attention`, `f, g = _f, _g`), mapped to the indices of those references.
  static std::map<std::string, std::vector<std::size_t>> kernelAliases(const Module& module,
                                                                       const SourceText& src) {
    std::map<std::string, std::vector<std::size_t>> aliases;
    std::set<std::string> defined;
    for (const DefinitionFact& d : module.definitions())
      if (d.top_level) defined.insert(d.name);
    const auto& refs = module.references();
    for (std::size_t r = 0; r < refs.size(); ++r) {
      const ReferenceFact& ref = refs[r];
      if (ref.call >= 0 || ref.resolved.empty()) continue;
      if (!migrate_attention::findKernel(ref.resolved) && !migrate_attention::findNameRule(ref.resolved))
        continue;
      const std::string_view line = migrate_attention::stripComment(src.line(ref.range.line));
      const std::size_t eq = migrate_attention::assignmentEquals(line);
      const std::size_t col = ref.range.start_byte - src.lineStart(ref.range.line);
      if (eq == std::string_view::npos || eq == 0 || col < eq) continue;
      if (std::string_view("+-*/%&|^@").find(line[eq - 1]) != std::string_view::npos) continue;  // `x += f`
      const auto lhs = migrate_attention::splitTopLevel(line.substr(0, eq));
      const auto rhs = migrate_attention::splitTopLevel(line.substr(eq + 1));
      if (lhs.size() != rhs.size()) continue;
      for (std::size_t i = 0; i < lhs.size(); ++i) {
        if (rhs[i] != ref.written) continue;
        const std::string& name = lhs[i];
        const bool dotted_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        });
        if (dotted_name && !defined.count(name)) aliases[name].push_back(r);
      }
    }
    return aliases;
  }

  /// The xformers bias class passed as attn_bias: written inline, or assigned to the name passed.
  static std::string biasClassOf(const Module& module, const CallFact& call, std::size_t call_index) {
    const ArgumentFact* bias = nullptr;
    for (const ArgumentFact& a : call.args)
      if (a.keyword == "attn_bias" || (a.keyword.empty() && a.index == 3)) bias = &a;
    if (!bias) return {};
    for (const ReferenceFact& r : module.references())
      if (r.range.start_byte >= bias->range.start_byte && r.range.end_byte <= bias->range.end_byte)
        if (auto cls = migrate_attention::xformersBiasClass(r.resolved); !cls.empty()) return cls;
    if (bias->kind != ValueKind::Name) return {};
    // `attn_bias = fmha.BlockDiagonalMask.from_seqlens(...)` earlier in the file.
    const auto& calls = module.calls();
    for (std::size_t j = call_index; j-- > 0;) {
      const CallFact& c = calls[j];
      if (c.assigned_to != bias->text) continue;
      if (auto cls = migrate_attention::xformersBiasClass(c.callee_resolved); !cls.empty()) return cls;
      break;
    }
    return {};
  }

  /// Whether a reference is a use of the name: not an assignment target (`flash_attn_func = None`
  /// in an except branch), not a type annotation, and, when not called, not a mere availability test.
  static bool isUseSite(const Module& module, const SourceText& src, const ReferenceFact& ref) {
    const std::string_view line = src.line(ref.range.line);
    const std::size_t col = ref.range.start_byte - src.lineStart(ref.range.line);
    const std::size_t end =
        std::min<std::size_t>(line.size(), col + (ref.range.end_byte - ref.range.start_byte));
    const std::string before = migrate_attention::trim(line.substr(0, std::min(col, line.size())));
    const std::string after = migrate_attention::trim(migrate_attention::stripComment(line.substr(end)));
    bool in_call_args = false;
    for (const CallFact& c : module.calls())
      if (c.name_range.end_byte <= ref.range.start_byte && ref.range.end_byte <= c.range.end_byte &&
          c.range.start_byte <= ref.range.start_byte) {
        in_call_args = true;
        break;
      }
    if (!in_call_args) {
      if (migrate_attention::leftOfAssignment(line, col)) return false;
      // `a = b = None`: a middle target of a chained assignment.
      if (after.size() >= 1 && after[0] == '=' && (after.size() < 2 || after[1] != '=')) return false;
    }
    // Annotations: `x: BlockDiagonalMask`, `-> LowerTriangularMask`, `Optional[...]`.
    if (!before.empty()) {
      const char last = before.back();
      if (last == ':' && before.size() >= 2) {
        const char prev = before[before.size() - 2];
        if (std::isalnum(static_cast<unsigned char>(prev)) || prev == '_' || prev == ')' || prev == ']') {
          if (!endsWithWord(before.substr(0, before.size() - 1), "else") &&
              !endsWithWord(before.substr(0, before.size() - 1), "lambda") &&
              !startsWith(migrate_attention::trim(line), "lambda"))
            return false;
        }
      }
      if (before.size() >= 2 && before.compare(before.size() - 2, 2, "->") == 0) return false;
      for (std::string_view typing : {"Optional[", "Union[", "List[", "Tuple[", "Type[", "Sequence["})
        if (before.size() >= typing.size() &&
            before.compare(before.size() - typing.size(), typing.size(), typing) == 0)
          return false;
    }
    if (ref.call >= 0) return true;
    // Availability tests of a possibly-None fallback: `if flash_attn_func is None`, `x if flash_attn_func
    // else y`.
    for (std::string_view test : {"is None", "is not None", "== None", "!= None"})
      if (startsWith(after, test)) return false;
    for (std::string_view word : {"if", "elif", "while", "assert", "not", "and", "or"}) {
      if (!endsWithWord(before, word)) continue;
      if (after.empty() || after[0] == ':' || after[0] == ',' || after[0] == ')' ||
          startsWith(after, "and ") || startsWith(after, "or ") || startsWith(after, "else"))
        return false;
    }
    // Introspection, not a use: callable(f), inspect.signature(f).parameters, getfullargspec(f).
    for (std::string_view probe : {"callable(", "signature(", "getfullargspec(", "getargspec("})
      if (before.size() >= probe.size() &&
          before.compare(before.size() - probe.size(), probe.size(), probe) == 0)
        return false;
    return true;
  }

  std::map<std::string, const RuleInfo*> rules_;
  migrate_attention::ConfigRules configs_;  ///< set by configure(); disabled rules are null
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(AttentionPlugin)
