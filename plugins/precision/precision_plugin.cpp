// The precision plugin: float64/complex128, bf16/fp16, autocast, norm-layer upcasts, TF32 flags,
// dtype asserts, GradScaler. Rules are data (rules/*.yaml); the rules marked `custom` there are
// reported by this file, because they depend on where a dtype stands (a comparison is not a use,
// a tensor built on the CPU may stay float64), on the enclosing class or function (norm layers,
// RoPE helpers), or on a value followed through a variable (numpy arrays turned into tensors).
// See README.md for one entry per rule id and the details keys.

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "migrate/sdk/plugin.hpp"
#include "migrate/sdk/text_position.hpp"
#include "precision_embedded_rules.hpp"
#include "python_tokens.hpp"

namespace {

using namespace migrate::sdk;
using precision::Token;
using precision::Tokens;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/float64.yaml",          // PREC-001..005
    "rules/half_precision.yaml",   // PREC-006..010
    "rules/mixed_precision.yaml",  // PREC-011..013
    "rules/numerics.yaml",         // PREC-014..017
};

// ---- dtypes ------------------------------------------------------------------------------------

enum class Dtype { None, Float64, Complex128, BFloat16, Float16, Float32, Complex64 };

Dtype torchDtype(std::string_view resolved) {
  // The legacy CPU tensor types (torch.DoubleTensor, torch.HalfTensor) build CPU tensors and are not
  // listed; their torch.cuda counterparts are device tensors.
  static const std::unordered_map<std::string_view, Dtype> kNames{
      {"torch.float64", Dtype::Float64},
      {"torch.double", Dtype::Float64},
      {"torch.cuda.DoubleTensor", Dtype::Float64},
      {"torch.complex128", Dtype::Complex128},
      {"torch.cdouble", Dtype::Complex128},
      {"torch.bfloat16", Dtype::BFloat16},
      {"torch.cuda.BFloat16Tensor", Dtype::BFloat16},
      {"torch.float16", Dtype::Float16},
      {"torch.half", Dtype::Float16},
      {"torch.cuda.HalfTensor", Dtype::Float16},
      {"torch.float32", Dtype::Float32},
      {"torch.float", Dtype::Float32},
      {"torch.FloatTensor", Dtype::Float32},
      {"torch.complex64", Dtype::Complex64},
      {"torch.cfloat", Dtype::Complex64},
  };
  auto it = kNames.find(resolved);
  return it == kNames.end() ? Dtype::None : it->second;
}

const char* dtypeName(Dtype d) {
  switch (d) {
    case Dtype::Float64:
      return "float64";
    case Dtype::Complex128:
      return "complex128";
    case Dtype::BFloat16:
      return "bfloat16";
    case Dtype::Float16:
      return "float16";
    case Dtype::Float32:
      return "float32";
    case Dtype::Complex64:
      return "complex64";
    case Dtype::None:
      break;
  }
  return "";
}

bool isWide(Dtype d) {
  return d == Dtype::Float64 || d == Dtype::Complex128;
}

std::uint64_t key(const SourceRange& r) {
  return (std::uint64_t{r.start_byte} << 32) | r.end_byte;
}

// ---- norm-layer names --------------------------------------------------------------------------

/// "rms", "layer", "group", "batch", "instance" or "other" when a class name names a norm layer
/// (RMSNorm, LlamaRMSNorm, FP32LayerNorm, GroupNorm32, QKNorm); "" otherwise (Normalize,
/// GradNormClipper).
std::string normKindOfClass(const std::string& name) {
  if (name.find("Grad") != std::string::npos || name.find("Clip") != std::string::npos) return "";
  bool found = false;
  for (std::size_t p = name.find("Norm"); p != std::string::npos; p = name.find("Norm", p + 4)) {
    if (name.compare(p + 4, 2, "al") == 0) continue;  // Normal, Normalize, Normalization
    found = true;
  }
  if (!found) return "";
  if (name.find("RMS") != std::string::npos || name.find("Rms") != std::string::npos) return "rms";
  for (const auto& [word, kind] : {std::pair{"Layer", "layer"}, std::pair{"Group", "group"},
                                   std::pair{"Batch", "batch"}, std::pair{"Instance", "instance"}})
    if (name.find(word) != std::string::npos) return kind;
  return "other";
}

/// The same for a function name made of norm words only (rms_norm, _norm, layer_norm_fp32,
/// l2norm); "" for clip_grad_norm_, normalize, compute_norm.
std::string normKindOfFunction(const std::string& name) {
  static const std::set<std::string> kNormWords{"norm",      "rmsnorm",   "layernorm",
                                                "groupnorm", "batchnorm", "instancenorm",
                                                "qknorm",    "l2norm",    "adanorm"};
  static const std::set<std::string> kOtherWords{
      "",       "rms",    "layer", "group",   "batch", "instance", "qk",    "q",      "k",         "l2",
      "ada",    "fp32",   "apply", "forward", "fused", "naive",    "torch", "manual", "reference", "ref",
      "simple", "custom", "impl",  "fn",      "func",  "1d",       "2d",    "3d",     "adaptive"};
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  bool has_norm = false;
  std::string kind = "other";
  std::size_t b = 0;
  while (true) {
    const std::size_t e = lower.find('_', b);
    const std::string word = lower.substr(b, e == std::string::npos ? std::string::npos : e - b);
    const bool digits = !word.empty() && std::all_of(word.begin(), word.end(), ::isdigit);
    if (kNormWords.count(word)) {
      has_norm = true;
      if (word != "norm" && word != "qknorm" && word != "l2norm" && word != "adanorm")
        kind = word.substr(0, word.size() - 4);
    } else if (!kOtherWords.count(word) && !digits) {
      return "";
    }
    if (word == "rms" || word == "layer" || word == "group" || word == "batch" || word == "instance")
      kind = word;
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return has_norm ? kind : "";
}

// ---- the per-file view ---------------------------------------------------------------------------

/// Indexes of one module's facts that several checks share.
class FileView {
 public:
  explicit FileView(const Module& m) : m_(m), tokens_(m.source()), lines_(m.source()) {
    const auto& calls = m.calls();
    for (std::size_t c = 0; c < calls.size(); ++c) {
      call_at_[key(calls[c].range)] = static_cast<int>(c);
      call_by_end_.emplace(calls[c].range.end_byte, static_cast<int>(c));
      call_by_start_.emplace(calls[c].range.start_byte, static_cast<int>(c));
      for (std::size_t a = 0; a < calls[c].args.size(); ++a)
        arg_at_.emplace(key(calls[c].args[a].range),
                        std::make_pair(static_cast<int>(c), static_cast<int>(a)));
    }
    for (const ReferenceFact& r : m.references()) ref_at_.emplace(key(r.range), &r);
    findCpuBlocks();
  }

  /// Inside `with torch.device("cpu"):` (everything created there stays on the CPU).
  bool inCpuBlock(std::uint32_t byte) const {
    for (const auto& [b, e] : cpu_blocks_)
      if (b <= byte && byte < e) return true;
    return false;
  }

  const Module& module() const { return m_; }
  const Tokens& tokens() const { return tokens_; }
  SourceRange range(std::uint32_t begin, std::uint32_t end) const { return lines_.range(begin, end); }
  std::string_view text(const SourceRange& r) const { return m_.text(r); }
  std::string_view text(std::uint32_t b, std::uint32_t e) const { return m_.source().substr(b, e - b); }

  /// The call of which `r` is exactly one argument, and that argument.
  std::pair<const CallFact*, const ArgumentFact*> argumentAt(const SourceRange& r) const {
    auto it = arg_at_.find(key(r));
    if (it == arg_at_.end()) return {nullptr, nullptr};
    const CallFact& c = m_.calls()[static_cast<std::size_t>(it->second.first)];
    return {&c, &c.args[static_cast<std::size_t>(it->second.second)]};
  }
  const CallFact* callAt(const SourceRange& r) const {
    auto it = call_at_.find(key(r));
    return it == call_at_.end() ? nullptr : &m_.calls()[static_cast<std::size_t>(it->second)];
  }
  /// The call a method call is made on (`np.linspace(…)` in `np.linspace(…).round().copy()` is the
  /// receiver of round, which is the receiver of copy), through subscripts; nullptr when none.
  const CallFact* receiverCall(const CallFact& c) const {
    const CallFact* best = nullptr;
    auto [lo, hi] = call_by_start_.equal_range(c.range.start_byte);
    for (auto it = lo; it != hi; ++it) {
      const CallFact& x = m_.calls()[static_cast<std::size_t>(it->second)];
      if (x.range.end_byte < c.name_range.start_byte && (!best || x.range.end_byte > best->range.end_byte))
        best = &x;
    }
    return best;
  }
  const ReferenceFact* referenceAt(const SourceRange& r) const {
    auto it = ref_at_.find(key(r));
    return it == ref_at_.end() ? nullptr : it->second;
  }
  /// The torch dtype an argument names (`torch.float32`, an alias of it), if any.
  Dtype dtypeOfArgument(const ArgumentFact& a) const {
    const ReferenceFact* r = referenceAt(a.range);
    return r ? torchDtype(r->resolved) : Dtype::None;
  }

  /// Definitions containing `byte`, outermost first.
  std::vector<const DefinitionFact*> enclosing(std::uint32_t byte) const {
    std::vector<const DefinitionFact*> out;
    for (const DefinitionFact& d : m_.definitions())
      if (d.range.start_byte <= byte && byte < d.range.end_byte) out.push_back(&d);
    std::sort(out.begin(), out.end(),
              [](const auto* a, const auto* b) { return a->range.start_byte < b->range.start_byte; });
    return out;
  }
  /// The innermost function containing `byte`; nullptr at module or class level.
  const DefinitionFact* innermostFunction(std::uint32_t byte) const {
    const auto chain = enclosing(byte);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      if ((*it)->kind == DefinitionFact::Kind::Function) return *it;
    return nullptr;
  }

  /// Source text of a method call's receiver (`x.cpu()` in `x.cpu().double()`).
  std::string_view receiverText(const CallFact& c) const {
    if (c.method.empty() || c.name_range.start_byte <= c.range.start_byte) return {};
    return text(c.range.start_byte, c.name_range.start_byte);
  }
  /// Source text following a call on the same line (`.float() / 255` after `torch.from_numpy(a)`).
  std::string_view textAfter(const SourceRange& r, std::size_t max = 160) const {
    const std::string_view src = m_.source();
    std::size_t e = r.end_byte;
    while (e < src.size() && e - r.end_byte < max && src[e] != '\n') ++e;
    return src.substr(r.end_byte, e - r.end_byte);
  }

  // ---- token-level positions ----

  /// Inside a string literal (an f-string's replacement field).
  bool inString(std::uint32_t byte) const {
    const int i = tokens_.firstAtOrAfter(byte + 1) - 1;
    return i >= 0 && tokens_[static_cast<std::size_t>(i)].kind == Token::Kind::String &&
           tokens_[static_cast<std::size_t>(i)].start < byte &&
           byte < tokens_[static_cast<std::size_t>(i)].end;
  }

  bool isComparisonToken(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= tokens_.size()) return false;
    if (tokens_.is(i, "==") || tokens_.is(i, "!=") || tokens_.is(i, "is") || tokens_.is(i, "not"))
      return true;
    if (tokens_.is(i, "in")) return !isForIn(i);
    return false;
  }

  /// `in` of a for statement or comprehension (iteration, not a membership test).
  bool isForIn(int in) const {
    const int level = tokens_[static_cast<std::size_t>(in)].enclosing;
    for (int k = in - 1; k >= 0; --k) {
      const Token& t = tokens_[static_cast<std::size_t>(k)];
      if (t.kind == Token::Kind::Newline) return false;
      if (t.enclosing != level) {
        if (k == level) return false;  // reached the opening bracket
        continue;
      }
      if (tokens_.is(k, "for")) return true;
      if (t.kind == Token::Kind::Name || tokens_.is(k, ",") || t.kind == Token::Kind::Close) continue;
      return false;
    }
    return false;
  }

  /// How the expression at `r` stands: "compare" (operand of ==, !=, is, in; also an element of a
  /// tuple/list that is such an operand), "dict_key", "subscript", or "" for anything else.
  std::string position(const SourceRange& r) const {
    const int first = tokens_.firstAtOrAfter(r.start_byte);
    const int last = tokens_.lastEndingAtOrBefore(r.end_byte);
    if (first < 0 || last < first || static_cast<std::size_t>(last) >= tokens_.size()) return "";
    const int prev = first - 1;
    const int next = last + 1;
    if (isComparisonToken(prev) || isComparisonToken(next)) return "compare";
    const int open = tokens_[static_cast<std::size_t>(first)].enclosing;
    if (open < 0) return "";
    const std::string_view bracket = tokens_.text(static_cast<std::size_t>(open));
    if (bracket == "{" && tokens_.is(next, ":")) return "dict_key";
    const bool display = isDisplay(open);
    if (bracket == "[" && !display) return "subscript";
    if (display) {
      // An element of a display: `x.dtype in (torch.float16, torch.bfloat16)`.
      if (isComparisonToken(open - 1)) return "compare";
      const int close = tokens_[static_cast<std::size_t>(open)].match;
      if (close >= 0 && isComparisonToken(close + 1)) return "compare";
    }
    return "";
  }

  /// Whether the bracket token `open` starts a tuple/list/set/dict display rather than a call's
  /// arguments or a subscript.
  bool isDisplay(int open) const {
    const int before = open - 1;
    if (before < 0) return true;
    const Token& b = tokens_[static_cast<std::size_t>(before)];
    if (b.kind == Token::Kind::Close || b.kind == Token::Kind::String) return false;
    return !(b.kind == Token::Kind::Name && !isKeyword(tokens_.text(static_cast<std::size_t>(before))));
  }

  /// The call whose argument list holds the expression at `r`, looking through enclosing
  /// displays (`f(x, (torch.float16, torch.bfloat16))` → f).
  const CallFact* enclosingCall(const SourceRange& r) const {
    const int first = tokens_.firstAtOrAfter(r.start_byte);
    if (first < 0 || static_cast<std::size_t>(first) >= tokens_.size()) return nullptr;
    int open = tokens_[static_cast<std::size_t>(first)].enclosing;
    while (open >= 0 && isDisplay(open)) open = tokens_[static_cast<std::size_t>(open)].enclosing;
    if (open < 0 || !tokens_.is(open, "(")) return nullptr;
    const int close = tokens_[static_cast<std::size_t>(open)].match;
    if (close < 0) return nullptr;
    auto [lo, hi] = call_by_end_.equal_range(tokens_[static_cast<std::size_t>(close)].end);
    for (auto it = lo; it != hi; ++it) {
      const CallFact& c = m_.calls()[static_cast<std::size_t>(it->second)];
      if (c.range.start_byte < tokens_[static_cast<std::size_t>(open)].start) return &c;
    }
    return nullptr;
  }

  /// `NAME = (a, b, …)`: the name a display holding the expression at `r` is assigned to.
  std::string displayAssignedTo(const SourceRange& r) const {
    const int first = tokens_.firstAtOrAfter(r.start_byte);
    if (first < 0 || static_cast<std::size_t>(first) >= tokens_.size()) return "";
    const int open = tokens_[static_cast<std::size_t>(first)].enclosing;
    if (open < 2 || !isDisplay(open) || tokens_[static_cast<std::size_t>(open)].enclosing != -1) return "";
    if (isDict(open)) return "";  // `x in DICT` tests the keys, not the dtypes stored as values
    if (!tokens_.is(open - 1, "=") || tokens_[static_cast<std::size_t>(open - 2)].kind != Token::Kind::Name)
      return "";
    if (open >= 3 && tokens_[static_cast<std::size_t>(open - 3)].kind != Token::Kind::Newline) return "";
    return std::string(tokens_.text(static_cast<std::size_t>(open - 2)));
  }

  /// A `{` display with a top-level `key: value`.
  bool isDict(int open) const {
    if (!tokens_.is(open, "{")) return false;
    const int close = tokens_[static_cast<std::size_t>(open)].match;
    for (int k = open + 1; k < close; ++k)
      if (tokens_[static_cast<std::size_t>(k)].enclosing == open && tokens_.is(k, ":")) return true;
    return false;
  }

  /// The innermost display (tuple/list/set/dict) holding the expression at `r`: its bracket
  /// tokens, or {-1, -1}.
  std::pair<int, int> enclosingDisplay(const SourceRange& r) const {
    const int first = tokens_.firstAtOrAfter(r.start_byte);
    if (first < 0 || static_cast<std::size_t>(first) >= tokens_.size()) return {-1, -1};
    const int open = tokens_[static_cast<std::size_t>(first)].enclosing;
    if (open < 0 || !isDisplay(open)) return {-1, -1};
    return {open, tokens_[static_cast<std::size_t>(open)].match};
  }

  void findCpuBlocks() {
    const std::string_view src = m_.source();
    for (const CallFact& c : m_.calls()) {
      if (c.callee_resolved != "torch.device" || c.args.empty() || c.args[0].index != 0 ||
          c.args[0].kind != ValueKind::String || c.args[0].text != "cpu")
        continue;
      std::size_t line = src.rfind('\n', c.range.start_byte == 0 ? 0 : c.range.start_byte - 1);
      line = line == std::string_view::npos ? 0 : line + 1;
      std::size_t indent = line;
      while (indent < src.size() && (src[indent] == ' ' || src[indent] == '\t')) ++indent;
      if (src.substr(indent, 5) != "with ") continue;
      const std::size_t depth = indent - line;
      std::size_t pos = src.find('\n', c.range.end_byte);
      std::size_t end = src.size();
      while (pos != std::string_view::npos && pos + 1 < src.size()) {
        const std::size_t next = pos + 1;
        std::size_t i = next;
        while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
        const bool blank = i >= src.size() || src[i] == '\n' || src[i] == '\r' || src[i] == '#';
        if (!blank && i - next <= depth) {
          end = next;
          break;
        }
        pos = src.find('\n', next);
      }
      cpu_blocks_.emplace_back(c.range.end_byte, static_cast<std::uint32_t>(end));
    }
  }

  static bool isKeyword(std::string_view w) {
    static const std::set<std::string_view> kKeywords{"in",     "not",    "is",    "and",    "or",   "if",
                                                      "else",   "return", "yield", "assert", "for",  "while",
                                                      "lambda", "await",  "elif",  "del",    "from", "with"};
    return kKeywords.count(w) != 0;
  }

 private:
  const Module& m_;
  Tokens tokens_;
  LineIndex lines_;
  std::unordered_map<std::uint64_t, int> call_at_;
  std::unordered_multimap<std::uint32_t, int> call_by_end_;
  std::unordered_multimap<std::uint32_t, int> call_by_start_;
  std::unordered_map<std::uint64_t, std::pair<int, int>> arg_at_;
  std::unordered_map<std::uint64_t, const ReferenceFact*> ref_at_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cpu_blocks_;
};

bool isCpuString(const ArgumentFact& a) {
  static const std::regex kCpu(R"(^torch\.device\(\s*["']cpu["']\s*\)$)");
  return (a.kind == ValueKind::String && a.text == "cpu") || std::regex_match(a.text, kCpu);
}

/// A call that builds or converts on the CPU: `device="cpu"`, `.to("cpu", …)`, `x.cpu().to(…)`.
bool onCpu(const FileView& v, const CallFact& c) {
  for (const ArgumentFact& a : c.args) {
    if (a.keyword == "device" && isCpuString(a)) return true;
    if (c.method == "to" && a.index == 0 && isCpuString(a)) return true;
  }
  const std::string_view recv = v.receiverText(c);
  return recv.find(".cpu()") != std::string_view::npos || recv.find(".numpy()") != std::string_view::npos;
}

bool isAutocast(std::string_view resolved) {
  return resolved == "torch.autocast" || resolved == "torch.amp.autocast" ||
         resolved == "torch.cuda.amp.autocast" || resolved == "torch.amp.autocast_mode.autocast" ||
         resolved == "torch.npu.amp.autocast" || resolved == "torch_npu.npu.amp.autocast" ||
         resolved == "torch.cpu.amp.autocast";
}

// ---- the plugin --------------------------------------------------------------------------------

class PrecisionPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {
        "precision",
        "0.1.0",
        "precision",
        "float64/complex128, bf16/fp16, autocast, norm-layer upcasts, TF32 flags, dtype asserts, GradScaler",
        {}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    for (const char* id : {"PREC-001", "PREC-002", "PREC-004", "PREC-005", "PREC-006", "PREC-010", "PREC-011",
                           "PREC-014", "PREC-015"}) {
      const RuleInfo* r = context.rule(id);
      if (!r)
        throw std::runtime_error(std::string("precision: rule ") + id + " is missing from the rule files");
      rules_[id] = r;
    }
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    if (rules_.empty()) return;
    const FileView view(module);
    dtypeReferences(view, sink);
    castMethods(view, sink);
    pythonFloatDtype(view, sink);
    numpyFloat64(view, sink);
    complexRope(view, sink);
    autocastRegions(view, sink);
    normUpcasts(view, sink);
    dtypeAsserts(view, sink);
  }

 private:
  const RuleInfo& rule(const char* id) const { return *rules_.at(id); }

  /// The rule reporting a dtype's use.
  const RuleInfo* ruleFor(Dtype d) const {
    switch (d) {
      case Dtype::Float64:
        return &rule("PREC-001");
      case Dtype::Complex128:
        return &rule("PREC-002");
      case Dtype::BFloat16:
        return &rule("PREC-006");
      case Dtype::Float16:
        return &rule("PREC-010");
      default:
        return nullptr;
    }
  }

  static std::string replacementFor(Dtype d) {
    switch (d) {
      case Dtype::Float64:
        return "torch.float32";
      case Dtype::Complex128:
        return "torch.complex64";
      case Dtype::BFloat16:
        return "torch.bfloat16 on Atlas A2 or later; torch.float16 on earlier products (310P)";
      case Dtype::Float16:
        return "torch.float16 (unchanged)";
      default:
        return "";
    }
  }

  /// `torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32`: the dtype is
  /// only chosen when it is already in use, so this selects nothing new.
  static bool mirrorsCondition(const FileView& v, const ReferenceFact& ref) {
    const Tokens& t = v.tokens();
    const int last = t.lastEndingAtOrBefore(ref.range.end_byte);
    if (!t.is(last + 1, "if")) return false;
    const int level = t[static_cast<std::size_t>(last + 1)].enclosing;
    int k = last + 2;
    while (static_cast<std::size_t>(k) < t.size() &&
           t[static_cast<std::size_t>(k)].kind != Token::Kind::Newline &&
           !(t[static_cast<std::size_t>(k)].enclosing == level && t.is(k, "else")))
      ++k;
    if (static_cast<std::size_t>(k) >= t.size()) return false;
    const std::uint32_t begin = t[static_cast<std::size_t>(last + 1)].end;
    const std::uint32_t end = t[static_cast<std::size_t>(k)].start;
    for (const ReferenceFact& r : v.module().references())
      if (r.range.start_byte >= begin && r.range.end_byte <= end && r.resolved == ref.resolved &&
          v.position(r.range) == "compare")
        return true;
    return false;
  }

  /// A dtype conversion table (`{np.dtype("float16"): torch.float16, …, np.dtype("int64"): torch.int64}`,
  /// `{"HalfTensor": torch.half, …}`): a dict naming five or more torch dtypes maps types, it
  /// selects none of them.
  static bool inConversionTable(const FileView& v, const SourceRange& r) {
    const auto [open, close] = v.enclosingDisplay(r);
    if (open < 0 || close < 0 || !v.isDict(open)) return false;
    const std::uint32_t begin = v.tokens()[static_cast<std::size_t>(open)].start;
    const std::uint32_t end = v.tokens()[static_cast<std::size_t>(close)].end;
    static const std::set<std::string> kOtherDtypes{
        "torch.int8",   "torch.int16",  "torch.int32",         "torch.int64",       "torch.uint8",
        "torch.bool",   "torch.long",   "torch.int",           "torch.short",       "torch.uint16",
        "torch.uint32", "torch.uint64", "torch.float8_e4m3fn", "torch.float8_e5m2", "torch.complex32",
        "torch.chalf",  "torch.qint8",  "torch.quint8"};
    std::set<std::string> named;
    for (const ReferenceFact& x : v.module().references())
      if (x.range.start_byte >= begin && x.range.end_byte <= end &&
          (torchDtype(x.resolved) != Dtype::None || kOtherDtypes.count(x.resolved)))
        named.insert(x.resolved);
    return named.size() >= 5;
  }

  /// A project helper that picks a dtype the device supports, e.g. diffusers'
  /// `maybe_adjust_dtype_for_device(torch.float64, device)` (float32 on mps/npu): the float64 passed
  /// to it is already handled.
  static bool isDeviceDtypeHelper(const CallFact& c) {
    static const std::regex kHelper(
        R"((?:^|_)(?:adjust|downcast|fallback|safe|supported|compatible)\w*dtype|dtype\w*(?:for_device|_adjust|_supported|_safe|_compatible))",
        std::regex::icase);
    std::string name = c.method.empty() ? c.callee_written : c.method;
    const auto dot = name.rfind('.');
    if (dot != std::string::npos) name = name.substr(dot + 1);
    return std::regex_search(name, kHelper);
  }

  /// unittest's assertEqual / assertIs / assertIn and their negations.
  static bool isUnittestAssert(const CallFact& c) {
    static const std::set<std::string> kAsserts{"assertEqual", "assertEquals", "assertNotEqual", "assertIs",
                                                "assertIsNot", "assertIn",     "assertNotIn"};
    return !c.receiver_is_module && kAsserts.count(c.method) != 0;
  }

  /// A plain name that the file compares (`x in NAME`, `NAME == y`).
  static bool comparedName(const FileView& v, const std::string& name) {
    for (const NameUseFact& u : v.module().nameUses())
      if (u.name == name && u.use == ResultUse::Compare) return true;
    return false;
  }

  /// A method call as written (`x.to(torch.float32)`), shortened when long.
  static std::string callText(const FileView& v, const CallFact& c) {
    std::string text(v.text(c.range));
    text.erase(std::remove_if(text.begin(), text.end(), [](char ch) { return ch == '\n' || ch == '\r'; }),
               text.end());
    if (text.size() <= 80) return text;
    return (c.callee_written.empty() ? "." + c.method : c.callee_written) + "(…)";
  }

  static std::string describeCall(const CallFact& c) {
    if (!c.callee_resolved.empty()) return c.callee_resolved;
    if (!c.method.empty()) return "." + c.method;
    return c.callee_written;
  }

  /// Where a dtype reference makes or selects that dtype ("keyword:dtype", "argument:…",
  /// "default_dtype", "expression", …), or "" when it only reads one (a comparison, a lookup key,
  /// finfo, an autocast dtype left to PREC-011, float64 kept on the CPU).
  static std::string useContext(const FileView& v, const ReferenceFact& ref, Dtype d) {
    if (v.inString(ref.range.start_byte)) return "";  // f"{torch.float64}" formats a name
    if (!v.position(ref.range).empty()) return "";    // compare, dict_key, subscript
    if (const CallFact* outer = v.enclosingCall(ref.range);
        outer && (isUnittestAssert(*outer) || (isWide(d) && isDeviceDtypeHelper(*outer))))
      return "";
    if (mirrorsCondition(v, ref) || inConversionTable(v, ref.range)) return "";
    if (const std::string name = v.displayAssignedTo(ref.range); !name.empty() && comparedName(v, name))
      return "";  // `_HALF = (torch.float16, torch.bfloat16)` used as `x.dtype in _HALF`
    if (isWide(d) && v.inCpuBlock(ref.range.start_byte)) return "";
    std::string context = ref.call >= 0 ? "call" : "expression";
    const auto [call, arg] = v.argumentAt(ref.range);
    if (call) {
      if (call->callee_resolved == "torch.finfo" || call->callee_resolved == "torch.iinfo" ||
          call->callee_written == "isinstance" || call->callee_written == "issubclass")
        return "";
      if (isAutocast(call->callee_resolved) && (arg->keyword == "dtype" || arg->index == 1))
        return "";                                  // PREC-011 reports the autocast region with its dtype
      if (isWide(d) && onCpu(v, *call)) return "";  // float64 kept on the CPU is fine
      context = arg->keyword.empty() ? "argument:" + describeCall(*call) : "keyword:" + arg->keyword;
      if (call->callee_resolved == "torch.set_default_dtype" ||
          call->callee_resolved == "torch.set_default_tensor_type")
        context = "default_dtype";
    }
    return context;
  }

  // PREC-001/002/006/010: references to torch dtypes that make or select them.
  void dtypeReferences(const FileView& v, FindingSink& sink) const {
    for (const ReferenceFact& ref : v.module().references()) {
      const Dtype d = torchDtype(ref.resolved);
      const RuleInfo* r = ruleFor(d);
      if (!r) continue;
      const std::string context = useContext(v, ref, d);
      if (context.empty()) continue;
      const std::string note =
          context == "default_dtype"
              ? " It changes the default of every floating-point tensor created afterwards."
              : "";
      Finding f = findingFrom(*r, std::string(v.module().path()), ref.range, ref.written, ref.resolved,
                              {{"npu", replacementFor(d)}, {"note", note}});
      f.details["dtype"] = dtypeName(d);
      f.details["context"] = context;
      if (isWide(d)) f.details["target_dtype"] = replacementFor(d);
      sink.report(std::move(f));
    }
  }

  // PREC-001/002/006/010: .double(), .cdouble(), .bfloat16(), .half() casts.
  void castMethods(const FileView& v, FindingSink& sink) const {
    static const std::map<std::string, std::pair<Dtype, std::string>> kCasts{
        {"double", {Dtype::Float64, ".float()"}},
        {"cdouble", {Dtype::Complex128, ".cfloat()"}},
        {"bfloat16",
         {Dtype::BFloat16, ".bfloat16() on Atlas A2 or later; .half() on earlier products (310P)"}},
        {"half", {Dtype::Float16, ".half() (unchanged)"}}};
    std::set<std::string> own_methods;  // a class of this file defines a method of that name
    for (const DefinitionFact& d : v.module().definitions())
      if (d.kind == DefinitionFact::Kind::Function && d.qualified_name != d.name) own_methods.insert(d.name);
    for (const CallFact& c : v.module().calls()) {
      if (c.method.empty() || c.receiver_is_module) continue;
      auto it = kCasts.find(c.method);
      if (it == kCasts.end()) continue;
      bool plain = true;
      for (const ArgumentFact& a : c.args)
        if (a.keyword != "memory_format") plain = false;
      if (!plain) continue;
      const std::string_view recv = v.receiverText(c);
      if (own_methods.count(c.method) && (recv == "self." || recv == "cls.")) continue;
      const Dtype d = it->second.first;
      if (isWide(d)) {
        if (onCpu(v, c) || v.inCpuBlock(c.range.start_byte)) continue;
        const std::string_view after = v.textAfter(c.range);
        if (after.rfind(".numpy()", 0) == 0 || after.rfind(".tolist()", 0) == 0) continue;  // a CPU tensor
      }
      SourceRange range = c.name_range;
      range.end_line = c.range.end_line;
      range.end_column = c.range.end_column;
      range.end_byte = c.range.end_byte;
      const std::string written = callText(v, c);
      Finding f =
          findingFrom(*ruleFor(d), std::string(v.module().path()), range, written, "torch.Tensor." + c.method,
                      {{"api", written}, {"npu", it->second.second}, {"note", ""}});
      f.details["dtype"] = dtypeName(d);
      f.details["context"] = "method:" + c.method;
      if (isWide(d)) f.details["target_dtype"] = replacementFor(d);
      sink.report(std::move(f));
    }
  }

  // PREC-001/002: dtype=float / dtype=complex in torch calls (Python's float is float64 there).
  void pythonFloatDtype(const FileView& v, FindingSink& sink) const {
    static const std::set<std::string> kTensorMethods{"to",       "new_zeros",  "new_ones", "new_empty",
                                                      "new_full", "new_tensor", "type"};
    for (const CallFact& c : v.module().calls()) {
      const bool torch_call = c.callee_resolved.rfind("torch.", 0) == 0;
      const bool tensor_method = !c.method.empty() && !c.receiver_is_module && kTensorMethods.count(c.method);
      if (!torch_call && !tensor_method) continue;
      for (const ArgumentFact& a : c.args) {
        if (a.keyword != "dtype" || a.kind != ValueKind::Name) continue;
        if (a.text != "float" && a.text != "complex") continue;
        const Dtype d = a.text == "float" ? Dtype::Float64 : Dtype::Complex128;
        if (onCpu(v, c) || v.inCpuBlock(c.range.start_byte)) continue;
        Finding f = findingFrom(
            *ruleFor(d), std::string(v.module().path()), a.range, "dtype=" + a.text, "",
            {{"npu", d == Dtype::Float64 ? "dtype=torch.float32" : "dtype=torch.complex64"},
             {"note", " (Python's " + a.text + " means torch." +
                          (d == Dtype::Float64 ? "float64" : "complex128") + " as a torch dtype)"}});
        f.details["dtype"] = dtypeName(d);
        f.details["context"] = "keyword:dtype";
        f.details["target_dtype"] = replacementFor(d);
        sink.report(std::move(f));
      }
    }
  }

  /// Why a numpy call yields a float64 array, or "" when it does not (or nobody can tell).
  std::string numpyFloat64Reason(const FileView& v, const CallFact& c) const {
    auto isF64 = [&](const ArgumentFact& a) {
      if (a.kind == ValueKind::String)
        return a.text == "float64" || a.text == "double" || a.text == "f8" || a.text == "<f8" ||
               a.text == "d";
      if (a.kind != ValueKind::Name) return false;
      if (a.text == "float") return true;
      const ReferenceFact* r = v.referenceAt(a.range);
      return r && (r->resolved == "numpy.float64" || r->resolved == "numpy.double" ||
                   r->resolved == "numpy.float_");
    };
    if (c.method == "astype" && !c.receiver_is_module) {
      for (const ArgumentFact& a : c.args)
        if ((a.index == 0 || a.keyword == "dtype") && isF64(a)) return "astype(" + a.text + ")";
      return "";
    }
    // Methods that keep the dtype: follow them to the array they are called on.
    static const std::set<std::string> kKeepDtype{"copy",   "round",       "clip",      "reshape", "flatten",
                                                  "ravel",  "squeeze",     "transpose", "cumsum",  "cumprod",
                                                  "repeat", "expand_dims", "__neg__"};
    if (!c.receiver_is_module && kKeepDtype.count(c.method)) {
      const CallFact* inner = v.receiverCall(c);
      return inner ? numpyFloat64Reason(v, *inner) : "";
    }
    if (c.callee_resolved.rfind("numpy.", 0) != 0) return "";
    const std::string fn = c.callee_resolved.substr(6);
    for (const ArgumentFact& a : c.args)
      if (a.keyword == "dtype") return isF64(a) ? fn + "(dtype=" + a.text + ")" : "";
    static const std::set<std::string> kDefaultFloat64{"zeros",
                                                       "ones",
                                                       "empty",
                                                       "full",
                                                       "linspace",
                                                       "logspace",
                                                       "geomspace",
                                                       "eye",
                                                       "identity",
                                                       "random.rand",
                                                       "random.randn",
                                                       "random.random",
                                                       "random.random_sample",
                                                       "random.uniform",
                                                       "random.normal",
                                                       "random.standard_normal",
                                                       "loadtxt",
                                                       "genfromtxt"};
    if (fn == "zeros" || fn == "ones" || fn == "empty") {
      for (const ArgumentFact& a : c.args)
        if (a.index == 1) return isF64(a) ? fn + "(…, " + a.text + ")" : "";
    }
    if (fn == "full") {  // the fill value decides
      for (const ArgumentFact& a : c.args)
        if (a.index == 2) return isF64(a) ? fn + "(…, " + a.text + ")" : "";
      for (const ArgumentFact& a : c.args)
        if (a.index == 1) return a.kind == ValueKind::Float ? fn + "(…, " + a.text + ")" : "";
      return "";
    }
    if (fn == "arange") {
      for (const ArgumentFact& a : c.args)
        if (a.index >= 0 && a.kind == ValueKind::Float) return "arange with a float argument";
      return "";
    }
    return kDefaultFloat64.count(fn) ? fn + " (float64 by default)" : "";
  }

  // PREC-004: a float64 numpy array turned into a tensor without a dtype.
  void numpyFloat64(const FileView& v, FindingSink& sink) const {
    static const std::set<std::string> kConverters{"torch.from_numpy", "torch.tensor", "torch.as_tensor",
                                                   "torch.asarray"};
    static const std::regex kCastAfter(
        R"(^\s*\.\s*(float|half|bfloat16|int|long|short|bool|byte|char)\s*\(|^\s*\.\s*(to|type)\s*\([^)]*(float32|float16|bfloat16|torch\.float\b|torch\.half|dtype\s*=))");
    const auto& calls = v.module().calls();
    for (const CallFact& c : calls) {
      if (!kConverters.count(c.callee_resolved)) continue;
      const ArgumentFact* data = nullptr;
      bool has_dtype = false;
      for (const ArgumentFact& a : c.args) {
        if (a.index == 0) data = &a;
        if (a.keyword == "dtype" || (a.index == 1 && c.callee_resolved != "torch.from_numpy"))
          has_dtype = true;
      }
      if (!data || has_dtype) continue;
      const std::string after(v.textAfter(c.range));
      if (std::regex_search(after, kCastAfter)) continue;
      std::string reason;
      std::string variable;
      if (const CallFact* inner = v.callAt(data->range)) {
        reason = numpyFloat64Reason(v, *inner);
      } else if (data->kind == ValueKind::Name && data->text.find('.') == std::string::npos) {
        variable = data->text;
        const DefinitionFact* scope = v.innermostFunction(c.range.start_byte);
        const CallFact* source = nullptr;
        for (const CallFact& s : calls)
          if (s.assigned_to == variable && s.range.end_byte <= c.range.start_byte &&
              v.innermostFunction(s.range.start_byte) == scope &&
              (!source || s.range.start_byte > source->range.start_byte))
            source = &s;
        if (source && !reassignedBetween(v, variable, source->range.end_byte, c.range.start_byte))
          reason = numpyFloat64Reason(v, *source);
      }
      if (reason.empty()) continue;
      Finding f = findingFrom(rule("PREC-004"), std::string(v.module().path()), c.range, c.callee_written,
                              c.callee_resolved, {{"value", reason}});
      f.details["dtype"] = "float64";
      f.details["numpy_source"] = reason;
      if (!variable.empty()) f.details["variable"] = variable;
      f.details["target_dtype"] = "torch.float32";
      sink.report(std::move(f));
    }
  }

  /// `name = …` (a plain assignment of `name`) between two offsets.
  static bool reassignedBetween(const FileView& v, const std::string& name, std::uint32_t from,
                                std::uint32_t to) {
    const Tokens& t = v.tokens();
    for (int i = t.firstAtOrAfter(from); i >= 0 && static_cast<std::size_t>(i) + 1 < t.size(); ++i) {
      if (t[static_cast<std::size_t>(i)].start >= to) break;
      if (t[static_cast<std::size_t>(i)].kind == Token::Kind::Name &&
          t.text(static_cast<std::size_t>(i)) == name && t.is(i + 1, "=") && !t.is(i - 1, "."))
        return true;
    }
    return false;
  }

  /// Whether a float64/complex128 value is made inside [begin, end): a dtype reference outside a
  /// comparison, `.double()`, or `dtype=float`.
  bool float64Within(const FileView& v, std::uint32_t begin, std::uint32_t end) const {
    for (const ReferenceFact& r : v.module().references())
      if (r.range.start_byte >= begin && r.range.end_byte <= end && isWide(torchDtype(r.resolved)) &&
          !useContext(v, r, torchDtype(r.resolved)).empty())
        return true;
    for (const CallFact& c : v.module().calls()) {
      if (c.range.start_byte < begin || c.range.end_byte > end) continue;
      if (!c.receiver_is_module && (c.method == "double" || c.method == "cdouble") && !onCpu(v, c) &&
          !v.inCpuBlock(c.range.start_byte))
        return true;
      for (const ArgumentFact& a : c.args)
        if (a.keyword == "dtype" && a.kind == ValueKind::Name && (a.text == "float" || a.text == "complex"))
          return true;
    }
    return false;
  }

  // PREC-005: complex RoPE (torch.polar / torch.view_as_complex), complex128 when fed float64.
  void complexRope(const FileView& v, FindingSink& sink) const {
    for (const ReferenceFact& ref : v.module().references()) {
      if (ref.call < 0) continue;
      if (ref.resolved != "torch.polar" && ref.resolved != "torch.view_as_complex") continue;
      const CallFact& c = v.module().calls()[static_cast<std::size_t>(ref.call)];
      const DefinitionFact* fn = v.innermostFunction(c.range.start_byte);
      static const std::regex kToComplex64(R"(^\s*\.\s*(to\s*\([^)]*(complex64|cfloat)|cfloat\s*\())");
      const bool narrowed = std::regex_search(std::string(v.textAfter(c.range)), kToComplex64);
      bool wide = false;
      if (fn) {
        wide = !narrowed && float64Within(v, fn->range.start_byte, fn->range.end_byte);
      } else if (!narrowed) {
        // Module level: the statement around the call.
        const Tokens& t = v.tokens();
        int b = t.firstAtOrAfter(c.range.start_byte);
        while (b > 0 && t[static_cast<std::size_t>(b - 1)].kind != Token::Kind::Newline) --b;
        int e = t.firstAtOrAfter(c.range.end_byte);
        while (static_cast<std::size_t>(e) < t.size() &&
               t[static_cast<std::size_t>(e)].kind != Token::Kind::Newline)
          ++e;
        const std::uint32_t begin =
            static_cast<std::size_t>(b) < t.size() ? t[static_cast<std::size_t>(b)].start : 0;
        const std::uint32_t end =
            static_cast<std::size_t>(e) < t.size() ? t[static_cast<std::size_t>(e)].end : c.range.end_byte;
        wide = float64Within(v, begin, end);
      }
      const std::string note =
          wide ? " Its inputs are float64 here, so the table is complex128, which the AI cores do not run "
                 "efficiently: build it in float32 (complex64) at least."
               : "";
      Finding f = findingFrom(rule("PREC-005"), std::string(v.module().path()), ref.range, ref.written,
                              ref.resolved, {{"note", note}});
      if (wide) f.severity = Severity::Warning;
      f.details["float64_inputs"] = wide ? "true" : "false";
      if (fn) f.details["function"] = fn->qualified_name;
      f.details["complex_dtype"] = wide ? "complex128" : "complex64";
      sink.report(std::move(f));
    }
  }

  // PREC-011: autocast regions and the dtype they run in.
  void autocastRegions(const FileView& v, FindingSink& sink) const {
    for (const ReferenceFact& ref : v.module().references()) {
      if (ref.call < 0 || !isAutocast(ref.resolved)) continue;
      if (ref.resolved.find("npu") != std::string::npos) continue;  // already an NPU region
      const CallFact& c = v.module().calls()[static_cast<std::size_t>(ref.call)];
      const bool generic = ref.resolved == "torch.autocast" || ref.resolved == "torch.amp.autocast" ||
                           ref.resolved == "torch.amp.autocast_mode.autocast";
      std::string device = generic ? "" : (ref.resolved.find(".cpu.") != std::string::npos ? "cpu" : "cuda");
      std::string dtype;
      const ArgumentFact* dtype_arg = nullptr;
      bool disabled = false;
      for (const ArgumentFact& a : c.args) {
        if (generic && (a.keyword == "device_type" || a.index == 0))
          device = a.kind == ValueKind::String ? a.text : "<" + a.text + ">";
        if (a.keyword == "dtype" || a.index == 1) dtype_arg = &a;
        if ((a.keyword == "enabled" || (!generic && a.index == 0)) && a.kind == ValueKind::Bool &&
            a.text == "False")
          disabled = true;
      }
      if (device == "cpu" || disabled) continue;
      std::string note;
      const std::string_view call_text = v.text(c.range);
      const bool splat =
          call_text.find("**", ref.range.end_byte - c.range.start_byte) != std::string_view::npos;
      if (!dtype_arg && splat) {
        dtype = "<from **kwargs>";
        note =
            " The dtype comes from keyword arguments: if it can be bfloat16, the target must be Atlas A2 or "
            "later (310P needs float16); without one the NPU region uses float16.";
      } else if (!dtype_arg) {
        dtype = "default";
        note =
            " No dtype is given: the NPU region casts to float16 (the NPU autocast default); say so "
            "explicitly and keep a GradScaler for float16 training.";
      } else {
        const Dtype d = v.dtypeOfArgument(*dtype_arg);
        dtype = d == Dtype::None ? dtype_arg->text : dtypeName(d);
        if (d == Dtype::BFloat16)
          note =
              " bfloat16 autocast needs Atlas A2 or later; on earlier products (310P) use float16 with a "
              "GradScaler.";
        else if (d == Dtype::Float16)
          note = " float16 runs on every Ascend product; keep the GradScaler for training.";
        else if (d == Dtype::Float32 || d == Dtype::Float64)
          continue;  // a full-precision region: nothing precision-specific to change
        else if (d == Dtype::None)
          note = " The dtype comes from '" + dtype_arg->text +
                 "': if it can be bfloat16, the target must be Atlas A2 or later (310P needs float16).";
      }
      std::string shown = dtype;
      if (dtype == "default")
        shown = "the default dtype (float16 on the NPU)";
      else if (dtype_arg && v.dtypeOfArgument(*dtype_arg) == Dtype::None)
        shown = "the dtype held by '" + dtype_arg->text + "'";
      Finding f = findingFrom(rule("PREC-011"), std::string(v.module().path()), ref.range, ref.written,
                              ref.resolved, {{"note", note}, {"value", shown}});
      f.details["dtype"] = dtype;
      f.details["device_type"] = device.empty() ? "<missing>" : device;
      sink.report(std::move(f));
    }
  }

  // PREC-014: .float() / .to(torch.float32) inside a norm layer; one finding per function.
  void normUpcasts(const FileView& v, FindingSink& sink) const {
    struct Group {
      const CallFact* first = nullptr;
      int count = 0;
      std::string kind;
      std::string scope;
    };
    std::map<std::uint32_t, Group> groups;  // by the enclosing function's start (or the call's line)
    for (const CallFact& c : v.module().calls()) {
      if (c.method.empty() || c.receiver_is_module) continue;
      bool upcast = false;
      if (c.method == "float") {
        upcast = c.args.empty();
      } else if (c.method == "to" || c.method == "type") {
        for (const ArgumentFact& a : c.args)
          if ((a.index >= 0 || a.keyword == "dtype") && v.dtypeOfArgument(a) == Dtype::Float32) upcast = true;
      }
      if (!upcast) continue;
      std::string kind;
      std::string scope;
      for (const DefinitionFact* d : v.enclosing(c.range.start_byte)) {
        const std::string k =
            d->kind == DefinitionFact::Kind::Class ? normKindOfClass(d->name) : normKindOfFunction(d->name);
        if (!k.empty() && (kind.empty() || kind == "other")) {
          kind = k;
          scope = d->qualified_name;
        }
      }
      if (kind.empty()) continue;
      const DefinitionFact* fn = v.innermostFunction(c.range.start_byte);
      Group& g = groups[fn ? fn->range.start_byte : c.range.start_byte];
      ++g.count;
      if (!g.first || c.range.start_byte < g.first->range.start_byte) g.first = &c;
      g.kind = kind;
      g.scope = fn ? fn->qualified_name : scope;
    }
    for (const auto& [at, g] : groups) {
      (void)at;
      const CallFact& c = *g.first;
      std::string npu;
      std::string note;
      if (g.kind == "rms") {
        npu = "torch_npu.npu_rms_norm(x, weight, epsilon)[0]";
        note =
            " torch_npu.npu_rms_norm computes the whole RMSNorm in one fused kernel (it returns (y, rstd): "
            "take [0]).";
      } else if (g.kind == "layer" || g.kind == "group" || g.kind == "batch" || g.kind == "instance") {
        npu = "the native " + g.kind + " norm on the input dtype (drop the upcast), or keep it";
        note = " The NPU " + g.kind + " norm kernels accept bfloat16/float16 input directly.";
      } else {
        npu = "keep (correct, slower), or torch_npu.npu_rms_norm when this is an RMS norm";
      }
      if (g.count > 1) note += " (" + std::to_string(g.count) + " upcasts in " + g.scope + ".)";
      SourceRange range = c.name_range;
      range.end_line = c.range.end_line;
      range.end_column = c.range.end_column;
      range.end_byte = c.range.end_byte;
      const std::string written = callText(v, c);
      Finding f = findingFrom(rule("PREC-014"), std::string(v.module().path()), range, written,
                              "torch.Tensor." + c.method, {{"api", written}, {"npu", npu}, {"note", note}});
      f.details["norm_kind"] = g.kind;
      f.details["scope"] = g.scope;
      f.details["upcasts"] = std::to_string(g.count);
      sink.report(std::move(f));
    }
  }

  // PREC-015: assert statements (and unittest assertEqual/assertIn/...) on a floating-point dtype.
  void dtypeAsserts(const FileView& v, FindingSink& sink) const {
    const Tokens& t = v.tokens();
    // `HALF = (torch.float16, torch.bfloat16)` … `assert x.dtype in HALF`: the dtypes behind a name.
    std::map<std::string, std::set<std::string>> named;
    for (const ReferenceFact& r : v.module().references())
      if (const Dtype d = torchDtype(r.resolved); d != Dtype::None)
        if (const std::string name = v.displayAssignedTo(r.range); !name.empty())
          named[name].insert(dtypeName(d));
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].kind != Token::Kind::Name || t.text(i) != "assert") continue;
      // The condition ends at the message comma or at the end of the statement.
      std::size_t end = i + 1;
      while (end < t.size() && t[end].kind != Token::Kind::Newline &&
             !(t[end].enclosing == t[i].enclosing &&
               (t.is(static_cast<int>(end), ",") || t.is(static_cast<int>(end), ";"))))
        ++end;
      if (end <= i + 1) continue;
      bool reads_dtype = false;
      for (std::size_t k = i + 1; k < end; ++k)
        if (t[k].kind == Token::Kind::Name && t.text(k).find("dtype") != std::string_view::npos)
          reads_dtype = true;
      if (!reads_dtype) continue;
      std::set<std::string> via_names;
      for (std::size_t k = i + 1; k < end; ++k)
        if (t[k].kind == Token::Kind::Name && !t.is(static_cast<int>(k) - 1, "."))
          if (auto it = named.find(std::string(t.text(k))); it != named.end())
            via_names.insert(it->second.begin(), it->second.end());
      std::string condition(v.text(t[i + 1].start, t[end - 1].end));
      reportAssert(v, t[i].start, t[end - 1].end, "assert " + condition, via_names, sink);
    }
    for (const CallFact& c : v.module().calls()) {
      if (!isUnittestAssert(c)) continue;
      bool reads_dtype = false;
      for (const ArgumentFact& a : c.args)
        if (a.index >= 0 && v.text(a.range).find("dtype") != std::string_view::npos) reads_dtype = true;
      if (reads_dtype)
        reportAssert(v, c.range.start_byte, c.range.end_byte, std::string(v.text(c.range)), {}, sink);
    }
  }

  /// Reports the assert spanning [begin, stop) when it names a floating-point torch dtype.
  void reportAssert(const FileView& v, std::uint32_t begin, std::uint32_t stop, std::string api,
                    std::set<std::string> dtypes, FindingSink& sink) const {
    bool wide = dtypes.count("float64") || dtypes.count("complex128");
    for (const ReferenceFact& r : v.module().references()) {
      if (r.range.start_byte < begin || r.range.end_byte > stop) continue;
      const Dtype d = torchDtype(r.resolved);
      if (d == Dtype::None) continue;
      dtypes.insert(dtypeName(d));
      wide = wide || isWide(d);
    }
    if (dtypes.empty()) return;
    std::string list;
    std::string spoken;
    for (const auto& d : dtypes) {
      spoken += (list.empty() ? "" : " or ") + d;
      list += (list.empty() ? "" : ",") + d;
    }
    std::string note;
    if (wide)
      note =
          " It asserts float64/complex128, which the migration moves to float32/complex64: the assert "
          "fails once that is done.";
    else if (dtypes.count("bfloat16") && !dtypes.count("float16"))
      note = " It requires bfloat16, which needs Atlas A2 or later (310P runs float16).";
    else if (dtypes.count("float32") && dtypes.size() == 1)
      note =
          " It requires float32: it fails where NPU autocast (float16 by default) or a bf16/fp16 port "
          "hands this code a lower-precision tensor.";
    std::string compact;  // the statement on one line, runs of blanks collapsed
    for (char ch : api) {
      const bool blank = ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
      if (blank && (compact.empty() || compact.back() == ' ' || compact.back() == '(')) continue;
      compact += blank ? ' ' : ch;
    }
    api = compact;
    Finding f = findingFrom(rule("PREC-015"), std::string(v.module().path()), v.range(begin, stop), api, "",
                            {{"note", note}, {"value", spoken}});
    if (wide) f.severity = Severity::Warning;
    f.details["asserted_dtypes"] = list;
    sink.report(std::move(f));
  }

  std::map<std::string, const RuleInfo*> rules_;
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(PrecisionPlugin)
