// DEV-095: a spawned worker's process index used as a device (see the header).

#include "spawned_worker_devices.hpp"

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/python_text.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

bool isSpawner(const std::string& resolved) {
  static const std::set<std::string, std::less<>> kSpawners = {
      "torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn",
      "torch.multiprocessing.start_processes", "torch.multiprocessing.spawn.start_processes"};
  return kSpawners.count(resolved) != 0;
}

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The names of the functions the module's spawn calls start: `worker`, `mp_worker` of
/// `self.mp_worker`.
std::set<std::string> spawnedFunctions(const Module& module) {
  std::set<std::string> out;
  for (const CallFact& c : module.calls()) {
    if (!isSpawner(c.callee_resolved)) continue;
    for (const ArgumentFact& a : c.args) {
      if ((a.index != 0 && a.keyword != "fn") || a.kind != ValueKind::Name) continue;
      out.insert(a.text.substr(a.text.rfind('.') + 1));
    }
  }
  return out;
}

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

void checkSpawnedWorkerDevices(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  if (module.source().find("spawn") == std::string_view::npos &&
      module.source().find("start_processes") == std::string_view::npos)
    return;
  const std::set<std::string> workers = spawnedFunctions(module);
  if (workers.empty()) return;
  const LineIndex lines(module.source());
  for (const DefinitionFact& d : module.definitions()) {
    if (d.kind != DefinitionFact::Kind::Function || workers.count(d.name) == 0) continue;
    const std::string_view body = module.text(d.range);
    const std::vector<std::string> params = positionalParameters(body, d.name);
    if (params.empty()) continue;
    const std::string& param = params.front();
    // `gpu = torch.device(f"cuda:{gpu}")` or any other rebinding: not the integer any more.
    const RE2 rebinding("(?m)^[ \\t]*" + param + "[ \\t]*(?::[^=\\n]+)?=[^=]", plugin_support::bytePattern());
    if (RE2::PartialMatch(body, rebinding)) continue;
    for (const CallFact& c : module.calls()) {
      if (c.range.start_byte < d.range.start_byte || c.range.end_byte > d.range.end_byte) continue;
      for (const ArgumentFact& a : c.args) {
        if (a.kind != ValueKind::Name || a.text != param) continue;
        std::string_view form;
        if (a.keyword == "device")
          form = "device=";
        else if (a.index == 0 && c.method == "to")
          form = ".to";
        else if (a.index == 0 && c.callee_resolved == "torch.device")
          form = "torch.device";
        std::string shown;
        if (!form.empty()) {
          if (reportedByNameRule(form, param)) continue;
          shown = form == "device=" ? "device=" + param
                  : form == ".to"   ? ".to(" + param + ")"
                                    : "torch.device(" + param + ")";
        } else if (const std::string bound = boundDeviceParameter(module, c, a); !bound.empty()) {
          // A bare-name call with a rank-like argument is DEV-088's, which reads every module.
          if (c.callee_written.find('.') == std::string::npos && reportedByNameRule(".to", param)) continue;
          shown = c.callee_written + "(…, " + param + ") as its " + bound;
        } else {
          continue;
        }
        auto f =
            findingFrom(rule, std::string(module.path()), lines.range(a.range.start_byte, a.range.end_byte),
                        c.callee_written, c.callee_resolved, {{"value", shown}, {"worker", d.name}});
        f.details = {{"worker", d.name}, {"parameter", param}};
        sink.report(std::move(f));
      }
    }
  }
}

}  // namespace device
