// Strings followed through the plain names they are assigned to (string_flow.hpp).

#include "values/string_flow.hpp"

namespace migrate::values {
namespace {

bool plainName(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

}  // namespace

StringFlow::StringFlow(const sdk::Module& module) {
  for (const auto& d : module.definitions())
    if (d.kind == sdk::DefinitionFact::Kind::Function)
      functions_.emplace_back(d.range.start_byte, d.range.end_byte);
  for (const auto& call : module.calls())
    for (const auto& arg : call.args)
      if (arg.kind == sdk::ValueKind::Name && plainName(arg.text))
        uses_[arg.text].push_back({&call, &arg, scopeOf(call.range.start_byte)});
}

std::uint32_t StringFlow::scopeOf(std::uint32_t byte) const {
  // The innermost function is the one that starts last among those holding the byte.
  std::uint32_t scope = kModule;
  for (const auto& [begin, end] : functions_)
    if (begin <= byte && byte < end && (scope == kModule || begin > scope)) scope = begin;
  return scope;
}

std::vector<sdk::StringFact> StringFlow::reached(const sdk::StringFact& assigned) const {
  std::vector<sdk::StringFact> out;
  if (assigned.context != sdk::StringContext::Assignment) return out;
  auto it = uses_.find(assigned.name);
  if (it == uses_.end()) return out;
  const std::uint32_t scope = scopeOf(assigned.range.start_byte);
  for (const Use& use : it->second) {
    if (scope != kModule && use.scope != scope) continue;
    if (use.call->range.start_byte < assigned.range.start_byte && scope != kModule) continue;
    sdk::StringFact placed = assigned;
    const sdk::CallFact& call = *use.call;
    placed.callee = call.callee_resolved.empty() ? call.callee_written : call.callee_resolved;
    placed.method = call.method;
    placed.method_on_value = !call.method.empty() && !call.receiver_is_module;
    if (use.arg->keyword.empty()) {
      placed.context = sdk::StringContext::PositionalArg;
      placed.arg_index = use.arg->index;
      placed.name.clear();
    } else {
      placed.context = sdk::StringContext::KeywordArg;
      placed.name = use.arg->keyword;
    }
    out.push_back(std::move(placed));
  }
  return out;
}

}  // namespace migrate::values
