#include "rules/rule_set.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "rules/dict_keywords.hpp"
#include "values/string_flow.hpp"

namespace migrate::rules {
namespace {

using sdk::Finding;
using sdk::SourceRange;

/// What a finding's placeholders expand to.
struct Subject {
  std::string written;
  std::string resolved;
  std::string value;
  const ApiEntry* entry = nullptr;
};

/// A finding of `rule` with the placeholders {api}, {written}, {value}, {npu}, {note} filled in.
Finding makeFinding(const Rule& rule, const sdk::Module& module, const SourceRange& range, const Subject& s) {
  std::map<std::string, std::string> vars{{"written", s.written}, {"value", s.value}};
  vars["npu"] = s.entry ? s.entry->npu : std::string();
  vars["note"] = s.entry && !s.entry->note.empty() ? " " + s.entry->note : std::string();
  return sdk::findingFrom(rule.info(), std::string(module.path()), range, s.written, s.resolved,
                          std::move(vars));
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Edit replacing the first whole-word `from` inside `range` (when `whole_word`), or the first
/// occurrence inside the literal's content (strings).
bool renameEdit(const sdk::Module& module, const SourceRange& range, const Rule& rule, bool whole_word,
                Finding& f) {
  const std::string_view text = module.text(range);
  std::size_t pos = 0;
  std::size_t skip = 0;
  if (!whole_word) {
    // Skip the string prefix and opening quote(s).
    while (skip < text.size() && text[skip] != '"' && text[skip] != '\'') ++skip;
    const char q = skip < text.size() ? text[skip] : '"';
    while (skip < text.size() && text[skip] == q) ++skip;
  }
  while ((pos = text.find(rule.fix_from, skip)) != std::string_view::npos) {
    const std::size_t end = pos + rule.fix_from.size();
    const bool ok = !whole_word || ((pos == 0 || !isIdentChar(text[pos - 1])) &&
                                    (end >= text.size() || !isIdentChar(text[end])));
    if (ok) {
      f.edits.push_back({range.start_byte + static_cast<std::uint32_t>(pos),
                         range.start_byte + static_cast<std::uint32_t>(end), rule.fix_to});
      return true;
    }
    skip = pos + 1;
  }
  return false;
}

/// Whether the text before `at` is `{"cuda": ` or `, 'cuda:0': ` (also `"gpu"`, `"nccl"`): the value
/// of a per-device table entry (`{"cuda": torch.cuda.empty_cache, "xpu": …}`), used only on that
/// device. The value stands on the key's line; the key follows `{` or `,` (newlines between).
bool platformTableEntry(std::string_view src, std::uint32_t at) {
  std::size_t i = at;
  auto skip = [&](bool newlines) {
    while (i > 0 && (src[i - 1] == ' ' || src[i - 1] == '\t' ||
                     (newlines && (src[i - 1] == '\n' || src[i - 1] == '\r'))))
      --i;
  };
  skip(false);
  if (i == 0 || src[i - 1] != ':') return false;
  --i;
  skip(false);
  if (i == 0 || (src[i - 1] != '"' && src[i - 1] != '\'')) return false;
  const char quote = src[--i];
  const std::size_t end = i;
  while (i > 0 && src[i - 1] != quote && src[i - 1] != '\n') --i;
  if (i == 0 || src[i - 1] != quote) return false;
  std::string_view key = src.substr(i, end - i);
  --i;
  skip(true);
  if (i == 0 || (src[i - 1] != '{' && src[i - 1] != ',')) return false;
  if (key.substr(0, 5) == "cuda:") key = key.substr(0, 4);
  return key == "cuda" || key == "gpu" || key == "nccl";
}

/// Whether `call` (`self.cuda(…)` inside a class, `Quantizer.cuda(…)`) calls a method that one of
/// the module's own classes defines under that name (hqq's `HQQLinear.cuda(self, device)`): the
/// project's method, not the library's of the same name.
bool ownMethodCall(const sdk::Module& module, const sdk::CallFact& call) {
  const std::string& written = call.callee_written;
  const auto dot = written.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string receiver = written.substr(0, dot);
  if (receiver.find('.') != std::string::npos) return false;  // `self.model.cuda()`: another object's
  const auto& defs = module.definitions();
  for (const sdk::DefinitionFact& d : defs) {
    if (d.kind != sdk::DefinitionFact::Kind::Function || d.name != call.method) continue;
    const auto cls_end = d.qualified_name.rfind('.');
    if (cls_end == std::string::npos) continue;
    const std::string cls = d.qualified_name.substr(0, cls_end);
    const auto cls_dot = cls.rfind('.');
    if (receiver == (cls_dot == std::string::npos ? cls : cls.substr(cls_dot + 1))) return true;
    if (receiver != "self" && receiver != "cls") continue;
    for (const sdk::DefinitionFact& c : defs)
      if (c.kind == sdk::DefinitionFact::Kind::Class && c.qualified_name == cls &&
          call.range.start_byte >= c.range.start_byte && call.range.end_byte <= c.range.end_byte)
        return true;
  }
  return false;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// Whether an import of the module binds `name` (`from pkg.memory import gpu`).
bool importedName(const sdk::Module& module, const std::string& name) {
  return std::any_of(module.imports().begin(), module.imports().end(),
                     [&](const sdk::ImportFact& imp) { return imp.bound == name; });
}

/// A `kind: name` argument matches a name of this file: an imported one holds a value another
/// module sets, and the finding belongs there (its fix site).
bool argMatches(const ArgConstraint& c, const sdk::CallFact& call, const sdk::Module& module) {
  for (const auto& a : call.args) {
    const bool same = a.keyword.empty() ? c.index >= 0 && a.index == c.index : a.keyword == c.keyword;
    if (!same) continue;
    if (c.absent) return false;
    if (c.kind && a.kind != *c.kind) return false;
    if (c.value && !c.value->search(a.text)) return false;
    if (c.kind == sdk::ValueKind::Name && importedName(module, a.text)) return false;
    return true;
  }
  return (c.absent || c.or_absent) && !call.splat;
}

/// A finding whose rule constrains an argument the call passes (`create_block_mask(…,
/// _compile=True)`) spans from the reference through that argument, which may stand lines below.
SourceRange throughArgument(const SourceRange& ref, const ArgConstraint& c, const sdk::CallFact& call) {
  if (c.absent) return ref;
  for (const auto& a : call.args) {
    const bool same = a.keyword.empty() ? c.index >= 0 && a.index == c.index : a.keyword == c.keyword;
    if (!same || a.range.end_byte <= ref.end_byte) continue;
    SourceRange r = ref;
    r.end_line = a.range.end_line;
    r.end_column = a.range.end_column;
    r.end_byte = a.range.end_byte;
    return r;
  }
  return ref;
}

}  // namespace

RuleSet::RuleSet(std::vector<Rule> rules) : rules_(std::move(rules)) {
  for (const Rule& r : rules_) {
    switch (r.kind) {
      case Rule::Kind::Api:
        for (const ApiEntry& e : r.apis) (e.prefix ? api_prefix_ : api_exact_)[e.name].push_back({&r, &e});
        own_repository_api_ = own_repository_api_ || r.own_repository;
        break;
      case Rule::Kind::Import:
        for (const auto& n : r.names) imports_[n].push_back(&r);
        own_repository_import_ = own_repository_import_ || r.own_repository;
        break;
      case Rule::Kind::Method:
        for (const auto& n : r.names) methods_[n].push_back(&r);
        break;
      case Rule::Kind::Attribute:
        for (const auto& n : r.names) attributes_[n].push_back(&r);
        break;
      case Rule::Kind::Keyword:
        for (const auto& n : r.names) keywords_[n].push_back(&r);
        if (r.dict_keys)
          for (const auto& n : r.names) dict_keywords_[n].push_back(&r);
        break;
      case Rule::Kind::String:
        strings_.push_back(&r);
        break;
      case Rule::Kind::Custom:
        break;  // the plugin's code reports these
    }
  }
  std::vector<const Pattern*> patterns;
  for (const Rule* r : strings_) patterns.push_back(r->string_regex ? &*r->string_regex : nullptr);
  string_patterns_ = PatternSet(patterns);
}

void RuleSet::match(const sdk::Module& module, sdk::FindingSink& sink) const {
  if (!api_exact_.empty() || !api_prefix_.empty()) matchReferences(module, sink);
  if (!imports_.empty()) matchImports(module, sink);
  if (!methods_.empty() || !keywords_.empty()) matchCalls(module, sink);
  if (!attributes_.empty()) matchAttributes(module, sink);
  if (!strings_.empty()) matchStrings(module, sink);
  if (!dict_keywords_.empty()) matchDictKeywords(module, sink);
}

void RuleSet::matchDictKeywords(const sdk::Module& module, sdk::FindingSink& sink) const {
  for (const sdk::StringFact& str : module.strings()) {
    if (str.fstring) continue;
    auto it = dict_keywords_.find(str.value);
    if (it == dict_keywords_.end()) continue;
    const auto value = dictKeywordValue(module.source(), str);
    if (!value) continue;
    for (const Rule* rule : it->second) {
      if (rule->keyword_value && !rule->keyword_value->search(*value)) continue;
      Subject s{
          std::string(module.text(str.range)) + ": " + std::string(*value), {}, std::string(*value), nullptr};
      sink.report(makeFinding(*rule, module, str.range, s));
    }
  }
}

void RuleSet::matchReferences(const sdk::Module& module, sdk::FindingSink& sink) const {
  const auto& calls = module.calls();
  for (const sdk::ReferenceFact& ref : module.references()) {
    if (ref.resolved.empty()) continue;
    // The project's own names match only rules that ask for it (own_repository).
    const bool own = module.isProjectModule(ref.resolved);
    if (own && !own_repository_api_) continue;
    const std::vector<ApiHit>* hits = nullptr;
    if (auto it = api_exact_.find(ref.resolved); it != api_exact_.end()) {
      hits = &it->second;
    } else {
      std::string prefix = ref.resolved;
      for (auto dot = prefix.rfind('.'); dot != std::string::npos; dot = prefix.rfind('.')) {
        prefix.resize(dot);
        if (auto p = api_prefix_.find(prefix); p != api_prefix_.end()) {
          hits = &p->second;
          break;
        }
      }
    }
    if (!hits) continue;
    if (ref.call < 0 && platformTableEntry(module.source(), ref.range.start_byte)) continue;
    const sdk::CallFact* call = ref.call >= 0 ? &calls[static_cast<std::size_t>(ref.call)] : nullptr;
    for (const ApiHit& hit : *hits) {
      const Rule& rule = *hit.rule;
      if (own && !rule.own_repository) continue;
      if (rule.calls_only && !call) continue;
      if (rule.args && (!call || !argMatches(*rule.args, *call, module))) continue;
      if (std::any_of(rule.api_except.begin(), rule.api_except.end(), [&](const std::string& e) {
            return ref.resolved == e || ref.resolved.compare(0, e.size() + 1, e + ".") == 0;
          }))
        continue;
      if (rule.role == Rule::Role::Decorator && ref.role != sdk::ReferenceFact::Role::Decorator) continue;
      if (rule.role == Rule::Role::BaseClass && ref.role != sdk::ReferenceFact::Role::BaseClass) continue;
      if (!rule.result_use.empty() || !rule.result_attributes.empty()) {
        if (!call) continue;
        auto wanted = [&](sdk::ResultUse u) {
          return std::find(rule.result_use.begin(), rule.result_use.end(), u) != rule.result_use.end();
        };
        bool used = wanted(call->result_use);
        if (!used && !call->assigned_to.empty()) {
          for (const auto& u : module.nameUses())
            if (u.name == call->assigned_to && wanted(u.use) && u.range.start_byte > call->range.end_byte) {
              used = true;
              break;
            }
        }
        if (!used && !rule.result_attributes.empty()) {
          if (call->result_use == sdk::ResultUse::Attribute)
            used = contains(rule.result_attributes, call->result_attribute);
          if (!used && !call->assigned_to.empty()) {
            for (const auto& a : module.attributes())
              if (a.receiver_written == call->assigned_to && contains(rule.result_attributes, a.name) &&
                  a.range.start_byte > call->range.end_byte) {
                used = true;
                break;
              }
          }
        }
        if (!used) continue;
      }
      Subject s{ref.written, ref.resolved, {}, hit.entry};
      Finding f =
          makeFinding(rule, module, rule.args ? throughArgument(ref.range, *rule.args, *call) : ref.range, s);
      if (rule.fix == Rule::Fix::ReplaceApi && !hit.entry->npu.empty() && !hit.entry->prefix &&
          ref.written == ref.resolved && module.text(ref.range) == ref.written) {
        f.edits.push_back({ref.range.start_byte, ref.range.end_byte, hit.entry->npu});
      } else if (rule.fix == Rule::Fix::Rename && module.text(ref.range) == ref.written) {
        renameEdit(module, ref.range, rule, true, f);
      }
      sink.report(std::move(f));
    }
  }
}

void RuleSet::matchImports(const sdk::Module& module, sdk::FindingSink& sink) const {
  std::vector<std::pair<const Rule*, std::uint32_t>> reported;
  for (const sdk::ImportFact& imp : module.imports()) {
    // `import a.b` imports a.b; `from a import b` imports a.b (or module a with name b).
    std::string name = imp.star || imp.name.empty() ? imp.module : imp.target;
    if (imp.level > 0) continue;                    // relative: the project's own structure
    const bool own = module.isProjectModule(name);  // matched only by own_repository rules
    if (own && !own_repository_import_) continue;
    std::vector<const Rule*> matched;
    for (std::string prefix = name;;) {
      if (auto it = imports_.find(prefix); it != imports_.end())
        for (const Rule* r : it->second)
          if (std::find(matched.begin(), matched.end(), r) == matched.end()) matched.push_back(r);
      const auto dot = prefix.rfind('.');
      if (dot == std::string::npos) break;
      prefix.resize(dot);
    }
    const bool binds_root_only =
        !imp.star && imp.name.empty() && imp.alias.empty() && imp.bound != imp.module;
    for (const Rule* rule : matched) {
      if (own && !rule->own_repository) continue;
      if (binds_root_only && !rule->submodule_import) continue;  // `import torch.cuda` binds `torch`
      // One finding per statement and rule: `from m import a, b` is one place to change.
      const auto key = std::make_pair(rule, imp.range.start_byte);
      if (std::find(reported.begin(), reported.end(), key) != reported.end()) continue;
      reported.push_back(key);
      Subject s{name, name, name, nullptr};
      Finding f = makeFinding(*rule, module, imp.range, s);
      if (rule->fix == Rule::Fix::Rename) renameEdit(module, imp.range, *rule, true, f);
      sink.report(std::move(f));
    }
  }
}

void RuleSet::matchCalls(const sdk::Module& module, sdk::FindingSink& sink) const {
  for (const sdk::CallFact& call : module.calls()) {
    if (!call.method.empty() && !call.receiver_is_module) {
      if (auto it = methods_.find(call.method); it != methods_.end() && !ownMethodCall(module, call)) {
        for (const Rule* rule : it->second) {
          if (rule->args && !argMatches(*rule->args, call, module)) continue;
          SourceRange range = call.name_range;
          range.end_line = call.range.end_line;
          range.end_column = call.range.end_column;
          range.end_byte = call.range.end_byte;
          const std::string written = call.callee_written.empty() ? "." + call.method : call.callee_written;
          Subject s{written, {}, {}, nullptr};
          Finding f = makeFinding(*rule, module, range, s);
          if (rule->fix == Rule::Fix::Rename) renameEdit(module, call.name_range, *rule, true, f);
          sink.report(std::move(f));
        }
      }
    }
    if (keywords_.empty()) continue;
    for (const sdk::ArgumentFact& arg : call.args) {
      if (arg.keyword.empty()) continue;
      auto it = keywords_.find(arg.keyword);
      if (it == keywords_.end()) continue;
      for (const Rule* rule : it->second) {
        if (rule->keyword_value && !rule->keyword_value->search(arg.text)) continue;
        if (!rule->keyword_callees.empty() && !contains(rule->keyword_callees, call.callee_resolved) &&
            !contains(rule->keyword_callees, call.callee_written) &&
            !(call.receiver_is_module == false && contains(rule->keyword_callees, call.method)))
          continue;
        Subject s{arg.keyword + "=" + std::string(module.text(arg.range)), call.callee_resolved, arg.text,
                  nullptr};
        Finding f = makeFinding(*rule, module, arg.range, s);
        if (rule->fix == Rule::Fix::Rename)
          renameEdit(module, arg.range, *rule, arg.kind != sdk::ValueKind::String, f);
        sink.report(std::move(f));
      }
    }
  }
}

void RuleSet::matchAttributes(const sdk::Module& module, sdk::FindingSink& sink) const {
  for (const sdk::AttributeFact& attr : module.attributes()) {
    auto it = attributes_.find(attr.name);
    if (it == attributes_.end()) continue;
    for (const Rule* rule : it->second) {
      const std::string written =
          attr.receiver_written.empty() ? "." + attr.name : attr.receiver_written + "." + attr.name;
      Subject s{written, {}, {}, nullptr};
      Finding f = makeFinding(*rule, module, attr.range, s);
      if (rule->fix == Rule::Fix::Rename) renameEdit(module, attr.range, *rule, true, f);
      sink.report(std::move(f));
    }
  }
}

namespace {

bool placeMatches(const StringPosition& p, const sdk::StringFact& s) {
  using K = StringPosition::Kind;
  using C = sdk::StringContext;
  switch (p.kind) {
    case K::Keyword:
      return s.context == C::KeywordArg && contains(p.names, s.name) &&
             (p.callees.empty() || contains(p.callees, s.callee) ||
              (s.method_on_value && contains(p.callees, s.method)));
    case K::ArgOf:  // "*": any call of a function or class (a method on a value is method_arg_of's)
      return s.context == C::PositionalArg &&
             (contains(p.names, s.callee) ||
              (contains(p.names, "*") && !s.method_on_value && !contains(p.except, s.callee)));
    case K::MethodArgOf:
      return s.context == C::PositionalArg && s.method_on_value && contains(p.names, s.method);
    case K::Compare:
      return s.context == C::Compare && !(p.kept_only && s.branch_test);
    case K::AssignTo:
      return s.context == C::Assignment && p.target && p.target->search(s.name);
    case K::SubscriptOf:  // "*": a subscript of any value (`props["warpSize"]`)
      return s.context == C::Subscript && (contains(p.names, s.callee) || contains(p.names, "*"));
    case K::Returned:
      return s.context == C::Return;
  }
  return false;
}

bool positionMatches(const StringPosition& p, const sdk::StringFact& s) {
  return placeMatches(p, s) && (!p.index || s.arg_index == *p.index) &&
         (!p.value || p.value->search(s.value));
}

/// Where a string literal stands among alternatives: the other entries of its list/dict/tuple
/// display and the other branches of its if/elif chain (`not_beside`). Read from the source text
/// once per file, and only for files where a `not_beside` rule matched a string.
class PlatformAlternatives {
 public:
  explicit PlatformAlternatives(const sdk::Module& module) : module_(module), src_(module.source()) {
    displays();
  }

  /// True when an alternative of `str` holds a string literal matching `pattern`.
  bool beside(const sdk::StringFact& str, const Pattern& pattern) const {
    // The innermost display around the literal.
    const std::pair<std::uint32_t, std::uint32_t>* inner = nullptr;
    for (const auto& d : displays_)
      if (d.first < str.range.start_byte && str.range.end_byte <= d.second &&
          (!inner || d.first > inner->first))
        inner = &d;
    if (inner && (holds(inner->first, inner->second, str, pattern) || rowBeside(inner->first, str, pattern)))
      return true;
    const auto chain = ifChain(str.range.start_byte);
    if (chain && holds(chain->first, chain->second, str, pattern)) return true;
    return str.context == sdk::StringContext::Return && returnedBeside(str, pattern);
  }

 private:
  /// A returned string whose function also returns a matching one (`return "cuda"` … `return
  /// "npu"` in a platform probe): the other returns are its alternatives.
  bool returnedBeside(const sdk::StringFact& str, const Pattern& pattern) const {
    const sdk::DefinitionFact* fn = nullptr;  // the innermost function around the string
    for (const auto& d : module_.definitions())
      if (d.kind == sdk::DefinitionFact::Kind::Function && d.range.start_byte <= str.range.start_byte &&
          str.range.end_byte <= d.range.end_byte && (!fn || d.range.start_byte > fn->range.start_byte))
        fn = &d;
    if (!fn) return false;
    for (const sdk::StringFact& s : module_.strings())
      if (&s != &str && s.context == sdk::StringContext::Return &&
          fn->range.start_byte <= s.range.start_byte && s.range.end_byte <= fn->range.end_byte &&
          pattern.search(s.value))
        return true;
    return false;
  }

  /// Whether the display opening at `open` is the value of one row of a table written as
  /// consecutive one-line assignments (`CUDA = ("cuda", "GPU", "nccl")` beside `NPU = ("npu",
  /// "NPU", "hccl")` in a device enum) and another row holds a matching literal.
  bool rowBeside(std::uint32_t open, const sdk::StringFact& self, const Pattern& pattern) const {
    auto rowAt = [&](std::size_t begin, std::size_t& bracket) {
      const Line l = lineAt(begin);
      std::size_t i = 0;
      while (i < l.text.size() && identChar(l.text[i])) ++i;
      if (i == 0 || std::isdigit(static_cast<unsigned char>(l.text[0]))) return false;
      while (i < l.text.size() && l.text[i] == ' ') ++i;
      if (i + 1 >= l.text.size() || l.text[i] != '=' || l.text[i + 1] == '=') return false;
      ++i;
      while (i < l.text.size() && l.text[i] == ' ') ++i;
      if (i >= l.text.size() || (l.text[i] != '(' && l.text[i] != '[' && l.text[i] != '{')) return false;
      bracket = l.begin + l.indent + i;
      return true;
    };
    const std::size_t nl = open == 0 ? std::string_view::npos : src_.rfind('\n', open - 1);
    const std::size_t own_begin = nl == std::string_view::npos ? 0 : nl + 1;
    std::size_t bracket = 0;
    if (!rowAt(own_begin, bracket) || bracket != open) return false;
    const std::size_t indent = lineAt(own_begin).indent;
    auto search = [&](bool up) {
      for (std::size_t at = up ? previous(own_begin) : src_.find('\n', own_begin);
           at != std::string_view::npos && at < src_.size();) {
        if (!up) ++at;  // past the newline
        const Line l = lineAt(at);
        if (!blank(l)) {
          std::size_t b = 0;
          if (l.indent != indent || !rowAt(at, b)) return false;
          if (holds(static_cast<std::uint32_t>(l.begin), static_cast<std::uint32_t>(l.end), self, pattern))
            return true;
        }
        at = up ? previous(at) : src_.find('\n', at);
      }
      return false;
    };
    return search(true) || search(false);
  }

  bool holds(std::uint32_t begin, std::uint32_t end, const sdk::StringFact& self,
             const Pattern& pattern) const {
    for (const sdk::StringFact& s : module_.strings()) {
      if (&s == &self || s.range.start_byte < begin || s.range.end_byte > end) continue;
      if (s.context == sdk::StringContext::Docstring || s.context == sdk::StringContext::Message) continue;
      if (pattern.search(s.value)) return true;
    }
    return false;
  }

  static bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  /// Bracket pairs that are displays: `[`/`{`/`(` not directly after a name, call or subscript.
  void displays() {
    std::vector<std::pair<std::uint32_t, bool>> open;
    char before = '\n';  // last significant character
    for (std::size_t i = 0; i < src_.size(); ++i) {
      const char c = src_[i];
      if (c == '#') {
        while (i < src_.size() && src_[i] != '\n') ++i;
        continue;
      }
      if (c == '"' || c == '\'') {
        const bool triple = i + 2 < src_.size() && src_[i + 1] == c && src_[i + 2] == c;
        std::size_t j = i + (triple ? 3 : 1);
        while (j < src_.size()) {
          if (src_[j] == '\\') {
            j += 2;
            continue;
          }
          if (src_[j] == c && (!triple || (j + 2 < src_.size() && src_[j + 1] == c && src_[j + 2] == c)))
            break;
          if (!triple && src_[j] == '\n') break;
          ++j;
        }
        i = std::min(src_.size(), j + (triple ? 3 : 1)) - 1;
        before = c;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        // After a name, a call or a subscript the bracket calls or subscripts; after a keyword
        // (`in [...]`, `return (...)`) it opens a display.
        const bool after_value = (identChar(before) && !keywordBefore(i)) || before == ')' || before == ']' ||
                                 before == '"' || before == '\'';
        const bool display = c == '{' || !after_value;
        open.emplace_back(static_cast<std::uint32_t>(i), display);
      } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
        const auto [start, display] = open.back();
        open.pop_back();
        if (display) displays_.emplace_back(start, static_cast<std::uint32_t>(i + 1));
      }
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') before = c;
    }
  }

  /// True when the word that ends right before `at` (spaces skipped) is a Python keyword.
  bool keywordBefore(std::size_t at) const {
    std::size_t e = at;
    while (e > 0 && (src_[e - 1] == ' ' || src_[e - 1] == '\t')) --e;
    std::size_t b = e;
    while (b > 0 && identChar(src_[b - 1])) --b;
    static const std::set<std::string_view> kKeywords = {"in",    "not",    "and",  "or",     "is",
                                                         "if",    "else",   "elif", "return", "yield",
                                                         "await", "assert", "for",  "while",  "lambda"};
    return kKeywords.count(src_.substr(b, e - b)) > 0;
  }

  struct Line {
    std::size_t begin, end;  // [begin, end) without the newline
    std::size_t indent;
    std::string_view text;  // stripped of the indentation
  };

  Line lineAt(std::size_t begin) const {
    std::size_t end = src_.find('\n', begin);
    if (end == std::string_view::npos) end = src_.size();
    std::size_t i = begin;
    while (i < end && (src_[i] == ' ' || src_[i] == '\t')) ++i;
    return {begin, end, i - begin, src_.substr(i, end - i)};
  }
  static bool blank(const Line& l) { return l.text.empty() || l.text[0] == '#' || l.text[0] == '\r'; }
  static bool startsWord(std::string_view t, std::string_view w) {
    return t.substr(0, w.size()) == w && (t.size() == w.size() || !identChar(t[w.size()]));
  }
  static bool branchHeader(const Line& l) {
    return startsWord(l.text, "if") || startsWord(l.text, "elif") || startsWord(l.text, "else");
  }
  /// Start of the line before the one starting at `begin`; npos before the first line.
  std::size_t previous(std::size_t begin) const {
    if (begin == 0) return std::string_view::npos;
    const auto nl = begin >= 2 ? src_.rfind('\n', begin - 2) : std::string_view::npos;
    return nl == std::string_view::npos ? 0 : nl + 1;
  }

  /// The byte range of the if/elif/else chain (consecutive `if`s at one indentation included)
  /// whose header or branch body holds `offset` directly.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> ifChain(std::uint32_t offset) const {
    const auto nl = offset == 0 ? std::string_view::npos : src_.rfind('\n', offset - 1);
    Line at = lineAt(nl == std::string_view::npos ? 0 : nl + 1);
    Line header = at;
    if (!branchHeader(at)) {
      bool found = false;
      for (auto b = previous(at.begin); b != std::string_view::npos; b = previous(b)) {
        const Line l = lineAt(b);
        if (blank(l) || l.indent >= at.indent) continue;
        found = branchHeader(l);
        header = l;
        break;
      }
      if (!found) return std::nullopt;
    }
    const std::size_t indent = header.indent;
    std::size_t first = header.begin;
    for (auto b = previous(header.begin); b != std::string_view::npos; b = previous(b)) {
      const Line l = lineAt(b);
      if (!blank(l) && l.indent < indent) break;
      if (!blank(l) && l.indent == indent) {
        if (!branchHeader(l)) break;
        first = l.begin;
      }
    }
    std::size_t last = header.end;
    for (std::size_t b = header.end + 1; b < src_.size();) {
      const Line l = lineAt(b);
      if (!blank(l) && l.indent < indent) break;
      if (!blank(l) && l.indent == indent && !branchHeader(l)) break;
      last = l.end;
      b = l.end + 1;
    }
    return std::make_pair(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last));
  }

  const sdk::Module& module_;
  std::string_view src_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> displays_;
};

}  // namespace

void RuleSet::matchStrings(const sdk::Module& module, sdk::FindingSink& sink) const {
  // The same literal ("cuda", "cpu", …) recurs many times in a file: the rules' regexes run once
  // per distinct value, first all together as a set (most literals can match none of them), then
  // each that may match. 0 = not yet evaluated, 1 = no match, 2 = match.
  std::unordered_map<std::string_view, std::vector<unsigned char>> memo;
  std::unique_ptr<PlatformAlternatives> platforms;  // built on the first not_beside candidate
  std::unique_ptr<values::StringFlow> flow;         // built on the first string that may flow
  for (const sdk::StringFact& str : module.strings()) {
    if (str.context == sdk::StringContext::Docstring) continue;
    auto [entry, first] = memo.try_emplace(str.value);
    std::vector<unsigned char>& known = entry->second;
    if (first) known = string_patterns_.mayMatch(str.value);
    std::optional<std::vector<sdk::StringFact>> reached;  // where the string goes next (values/)
    for (std::size_t i = 0; i < strings_.size(); ++i) {
      if (known[i] == 1) continue;
      const Rule* rule = strings_[i];
      if (rule->fstring && *rule->fstring != str.fstring) continue;
      auto at = [&](const sdk::StringFact& place) {
        return std::any_of(rule->where.begin(), rule->where.end(),
                           [&](const auto& p) { return positionMatches(p, place); });
      };
      // Positions before the rule's own regex: a few comparisons, where the regex is the
      // expensive part.
      const bool placed = rule->where.empty() ? str.context != sdk::StringContext::Message : at(str);
      const bool may_flow =
          !placed && !rule->where.empty() &&
          (str.context == sdk::StringContext::Assignment ||
           str.context == sdk::StringContext::PositionalArg || str.context == sdk::StringContext::KeywordArg);
      if (!placed && !may_flow) continue;
      if (known[i] == 0) known[i] = rule->string_regex->search(str.value) ? 2 : 1;
      if (known[i] != 2) continue;
      if (may_flow) {
        if (!reached) {
          if (!flow) flow = std::make_unique<values::StringFlow>(module);
          reached = flow->reached(str);
        }
        if (!std::any_of(reached->begin(), reached->end(), at)) continue;
      }
      if (rule->not_beside) {
        if (!platforms) platforms = std::make_unique<PlatformAlternatives>(module);
        if (platforms->beside(str, *rule->not_beside)) continue;
      }
      Subject s{std::string(module.text(str.range)), {}, str.value, nullptr};
      Finding f = makeFinding(*rule, module, str.range, s);
      if (rule->fix == Rule::Fix::Rename) renameEdit(module, str.range, *rule, false, f);
      sink.report(std::move(f));
    }
  }
}

}  // namespace migrate::rules
