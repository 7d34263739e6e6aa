// How a call uses a plain name as its device (see the header).

#include "device_uses.hpp"

#include <cctype>

#include "plugin_support/byte_regex.hpp"
#include "plugin_support/python_text.hpp"

namespace device {

using namespace migrate::sdk;

namespace {

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

/// The parameters a positional argument can bind to in the function `name` defined in `text` (the
/// definition's source): past `self` / `cls`, up to a bare `*` or `*args`. Empty when `text` holds
/// no such definition.
std::vector<std::string> positionalParameters(std::string_view text, const std::string& name) {
  std::size_t at = 0;
  for (;;) {
    at = text.find("def " + name, at);
    if (at == std::string_view::npos) return {};
    const std::size_t end = at + 4 + name.size();
    if (end < text.size() && !identifierChar(text[end])) break;
    at = end;
  }
  const std::size_t open = text.find('(', at);
  if (open == std::string_view::npos) return {};
  const std::size_t close = plugin_support::closingBracket(text, open);
  if (close >= text.size()) return {};
  std::vector<std::string> out;
  bool first = true;
  std::size_t i = open + 1;
  while (i < close) {
    while (i < close && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= close || text[i] == '*') break;
    std::size_t e = i;
    while (e < close && identifierChar(text[e])) ++e;
    const std::string word(text.substr(i, e - i));
    if (word.empty() && text[i] != '/') return out;  // not a parameter list this reader knows
    if (!word.empty() && !(first && (word == "self" || word == "cls"))) out.push_back(word);
    first = false;
    // On to the next top-level comma: past annotations and defaults with brackets or strings.
    for (i = e; i < close && text[i] != ','; ++i) {
      const char c = text[i];
      if (c == '(' || c == '[' || c == '{')
        i = plugin_support::closingBracket(text, i);
      else if (c == '"' || c == '\'')
        i = plugin_support::stringEnd(text, i, false);
    }
    ++i;
  }
  return out;
}

namespace {

/// A parameter named for a device (`device`, `dev`, `target_device`).
bool deviceParameter(const std::string& name) {
  static const RE2 kDevice(R"((?i)^(device|dev|\w+_device)$)", plugin_support::bytePattern());
  return RE2::FullMatch(name, kDevice);
}

/// The device parameter of a function or method of this module that `call` passes `arg` to by
/// position (`self.to_device(x, gpu)` with `def to_device(self, data, device)`); empty otherwise.
std::string boundDeviceParameter(const Module& module, const CallFact& call, const ArgumentFact& arg) {
  if (arg.index < 0 || call.splat) return {};
  const std::string& callee = call.callee_written;
  const bool method = callee.rfind("self.", 0) == 0 && callee.find('.', 5) == std::string::npos;
  if (!method && (callee.empty() || callee.find('.') != std::string::npos)) return {};
  const std::string name = method ? callee.substr(5) : callee;
  for (const DefinitionFact& d : module.definitions()) {
    if (d.kind != DefinitionFact::Kind::Function || d.name != name) continue;
    const std::vector<std::string> params = positionalParameters(module.text(d.range), name);
    const auto index = static_cast<std::size_t>(arg.index);
    return index < params.size() && deviceParameter(params[index]) ? params[index] : std::string();
  }
  return {};
}

/// The rank-like names each form's own rule reports (DEV-019, DEV-062, DEV-067), so that a line
/// gets one finding.
bool reportedByNameRule(std::string_view form, const std::string& name) {
  static const RE2 kTo(R"((?i)^(local_?rank|rank|gpu|gpu_?id|device_?id|device_?index)$)",
                       plugin_support::bytePattern());
  static const RE2 kDevice(R"((?i)^(local_?rank|rank|gpu|gpu_?id|device_?id|device_?index|local_?id)$)",
                           plugin_support::bytePattern());
  static const RE2 kKeyword(R"((?i)^(local_?rank|rank|gpu_?id|local_?gpu)$)", plugin_support::bytePattern());
  if (form == ".to") return RE2::FullMatch(name, kTo);
  if (form == "torch.device") return RE2::FullMatch(name, kDevice);
  return RE2::FullMatch(name, kKeyword);
}

}  // namespace

std::string deviceUse(const Module& module, const CallFact& call, const ArgumentFact& arg,
                      const std::string& name) {
  if (arg.kind != ValueKind::Name || arg.text != name) return {};
  std::string_view form;
  if (arg.keyword == "device")
    form = "device=";
  else if (arg.index == 0 && call.method == "to")
    form = ".to";
  else if (arg.index == 0 && call.callee_resolved == "torch.device")
    form = "torch.device";
  if (!form.empty()) {
    if (reportedByNameRule(form, name)) return {};
    return form == "device=" ? "device=" + name
           : form == ".to"   ? ".to(" + name + ")"
                             : "torch.device(" + name + ")";
  }
  const std::string bound = boundDeviceParameter(module, call, arg);
  if (bound.empty()) return {};
  // A bare-name call with a rank-like argument is DEV-088's, which reads every module.
  if (call.callee_written.find('.') == std::string::npos && reportedByNameRule(".to", name)) return {};
  return call.callee_written + "(…, " + name + ") as its " + bound;
}

}  // namespace device
