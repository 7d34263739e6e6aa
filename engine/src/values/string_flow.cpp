// Strings followed through the plain names they are assigned to (string_flow.hpp).

#include "values/string_flow.hpp"

#include <algorithm>
#include <cctype>

namespace migrate::values {
namespace {

bool plainName(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

/// The parameter names of `def name(a, b: int = 1, *args, c, **kw):` in order, `*args` and
/// `**kw` left out (a bare `*` too).
std::vector<std::string> parameters(std::string_view def) {
  std::vector<std::string> out;
  std::size_t i = def.find('(');
  if (i == std::string_view::npos) return out;
  int depth = 0;
  bool name_done = false;  // the current parameter's name is read (an annotation or default follows)
  std::string name;
  auto finish = [&] {
    if (!name.empty() && name[0] != '*') out.push_back(name);
    name.clear();
    name_done = false;
  };
  for (++i; i < def.size(); ++i) {
    const char c = def[i];
    if (c == '"' || c == '\'') {  // a default's literal
      const std::size_t close = def.find(c, i + 1);
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (depth > 0) continue;
    if (c == ',') {
      finish();
    } else if (c == ':' || c == '=') {
      name_done = true;
    } else if (!name_done && (c == '*' || c == '_' || std::isalnum(static_cast<unsigned char>(c)))) {
      name += c;
    } else if (!name_done && !name.empty() && (c == ' ' || c == '\n' || c == '\t')) {
      name_done = true;
    }
  }
  finish();
  return out;
}

}  // namespace

StringFlow::StringFlow(const sdk::Module& module) {
  for (const auto& d : module.definitions()) {
    if (d.kind != sdk::DefinitionFact::Kind::Function) continue;
    functions_.emplace_back(d.range.start_byte, d.range.end_byte);
    if (d.top_level) local_functions_[d.name] = {d.range.start_byte, parameters(module.text(d.range))};
  }
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

void StringFlow::placeUses(const sdk::StringFact& str, const std::string& name, std::uint32_t scope,
                           std::uint32_t after, std::vector<sdk::StringFact>& out) const {
  auto it = uses_.find(name);
  if (it == uses_.end()) return;
  for (const Use& use : it->second) {
    if (scope != kModule && use.scope != scope) continue;
    if (scope != kModule && use.call->range.start_byte < after) continue;
    sdk::StringFact placed = str;
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
}

std::vector<sdk::StringFact> StringFlow::reached(const sdk::StringFact& str) const {
  std::vector<sdk::StringFact> out;
  if (str.context == sdk::StringContext::Assignment) {
    placeUses(str, str.name, scopeOf(str.range.start_byte), str.range.start_byte, out);
  } else if ((str.context == sdk::StringContext::PositionalArg ||
              str.context == sdk::StringContext::KeywordArg) &&
             str.method.empty()) {
    // An argument of a function this module defines: the parameter it binds, inside that function.
    auto fn = local_functions_.find(str.callee);
    if (fn == local_functions_.end()) return out;
    const auto& params = fn->second.params;
    std::string param;
    if (str.context == sdk::StringContext::KeywordArg) {
      if (std::find(params.begin(), params.end(), str.name) != params.end()) param = str.name;
    } else if (str.arg_index >= 0 && static_cast<std::size_t>(str.arg_index) < params.size()) {
      param = params[static_cast<std::size_t>(str.arg_index)];
    }
    if (!param.empty()) placeUses(str, param, fn->second.scope, 0, out);
  }
  return out;
}

}  // namespace migrate::values
