#include "rules/rule_set.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

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

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool argMatches(const ArgConstraint& c, const sdk::CallFact& call) {
  for (const auto& a : call.args) {
    const bool same = c.keyword.empty() ? a.index == c.index : a.keyword == c.keyword;
    if (!same) continue;
    if (c.kind && a.kind != *c.kind) return false;
    if (c.value && !c.value->search(a.text)) return false;
    return true;
  }
  return false;
}

}  // namespace

RuleSet::RuleSet(std::vector<Rule> rules) : rules_(std::move(rules)) {
  for (const Rule& r : rules_) {
    switch (r.kind) {
      case Rule::Kind::Api:
        for (const ApiEntry& e : r.apis) (e.prefix ? api_prefix_ : api_exact_)[e.name].push_back({&r, &e});
        break;
      case Rule::Kind::Import:
        for (const auto& n : r.names) imports_[n].push_back(&r);
        break;
      case Rule::Kind::Method:
        for (const auto& n : r.names) methods_[n].push_back(&r);
        break;
      case Rule::Kind::Attribute:
        for (const auto& n : r.names) attributes_[n].push_back(&r);
        break;
      case Rule::Kind::Keyword:
        for (const auto& n : r.names) keywords_[n].push_back(&r);
        break;
      case Rule::Kind::String:
        strings_.push_back(&r);
        break;
      case Rule::Kind::Custom:
        break;  // the plugin's code reports these
    }
  }
}

void RuleSet::match(const sdk::Module& module, sdk::FindingSink& sink) const {
  if (!api_exact_.empty() || !api_prefix_.empty()) matchReferences(module, sink);
  if (!imports_.empty()) matchImports(module, sink);
  if (!methods_.empty() || !keywords_.empty()) matchCalls(module, sink);
  if (!attributes_.empty()) matchAttributes(module, sink);
  if (!strings_.empty()) matchStrings(module, sink);
}

void RuleSet::matchReferences(const sdk::Module& module, sdk::FindingSink& sink) const {
  const auto& calls = module.calls();
  for (const sdk::ReferenceFact& ref : module.references()) {
    if (ref.resolved.empty() || module.isProjectModule(ref.resolved)) continue;
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
    const sdk::CallFact* call = ref.call >= 0 ? &calls[static_cast<std::size_t>(ref.call)] : nullptr;
    for (const ApiHit& hit : *hits) {
      const Rule& rule = *hit.rule;
      if (rule.calls_only && !call) continue;
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
      Finding f = makeFinding(rule, module, ref.range, s);
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
    if (imp.level > 0 || module.isProjectModule(name)) continue;  // the project's own modules
    std::vector<const Rule*> matched;
    for (std::string prefix = name;;) {
      if (auto it = imports_.find(prefix); it != imports_.end())
        for (const Rule* r : it->second)
          if (std::find(matched.begin(), matched.end(), r) == matched.end()) matched.push_back(r);
      const auto dot = prefix.rfind('.');
      if (dot == std::string::npos) break;
      prefix.resize(dot);
    }
    for (const Rule* rule : matched) {
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
      if (auto it = methods_.find(call.method); it != methods_.end()) {
        for (const Rule* rule : it->second) {
          if (rule->args && !argMatches(*rule->args, call)) continue;
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

bool positionMatches(const StringPosition& p, const sdk::StringFact& s) {
  using K = StringPosition::Kind;
  using C = sdk::StringContext;
  switch (p.kind) {
    case K::Keyword:
      return s.context == C::KeywordArg && contains(p.names, s.name) &&
             (p.callees.empty() || contains(p.callees, s.callee) ||
              (s.method_on_value && contains(p.callees, s.method)));
    case K::ArgOf:
      return s.context == C::PositionalArg && contains(p.names, s.callee);
    case K::MethodArgOf:
      return s.context == C::PositionalArg && s.method_on_value && contains(p.names, s.method);
    case K::Compare:
      return s.context == C::Compare;
    case K::AssignTo:
      return s.context == C::Assignment && p.target && p.target->search(s.name);
    case K::SubscriptOf:
      return s.context == C::Subscript && contains(p.names, s.callee);
    case K::Returned:
      return s.context == C::Return;
  }
  return false;
}

}  // namespace

void RuleSet::matchStrings(const sdk::Module& module, sdk::FindingSink& sink) const {
  // The same literal ("cuda", "cpu", …) recurs many times in a file: each rule's regex runs once
  // per distinct value. 0 = not yet evaluated, 1 = no match, 2 = match.
  std::unordered_map<std::string_view, std::vector<unsigned char>> memo;
  for (const sdk::StringFact& str : module.strings()) {
    if (str.context == sdk::StringContext::Docstring) continue;
    std::vector<unsigned char>* known = nullptr;
    for (std::size_t i = 0; i < strings_.size(); ++i) {
      const Rule* rule = strings_[i];
      if (rule->fstring && *rule->fstring != str.fstring) continue;
      // Positions first: a few comparisons, where the regex is the expensive part.
      const bool placed = rule->where.empty()
                              ? str.context != sdk::StringContext::Message
                              : std::any_of(rule->where.begin(), rule->where.end(),
                                            [&](const auto& p) { return positionMatches(p, str); });
      if (!placed) continue;
      if (!known) {
        known = &memo[str.value];
        known->resize(strings_.size(), 0);
      }
      if ((*known)[i] == 0) (*known)[i] = rule->string_regex->search(str.value) ? 2 : 1;
      if ((*known)[i] != 2) continue;
      Subject s{std::string(module.text(str.range)), {}, str.value, nullptr};
      Finding f = makeFinding(*rule, module, str.range, s);
      if (rule->fix == Rule::Fix::Rename) renameEdit(module, str.range, *rule, false, f);
      sink.report(std::move(f));
    }
  }
}

}  // namespace migrate::rules
