// DEV-095: a spawned worker's process index used as a device (see the header).

#include "spawned_worker_devices.hpp"

#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

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

/// The first parameter of the function `name` defined in `text` (the definition's source), past
/// `self` / `cls`; empty when there is none or it is `*args`.
std::string firstParameter(std::string_view text, const std::string& name) {
  std::size_t at = 0;
  for (;;) {
    at = text.find("def " + name, at);
    if (at == std::string_view::npos) return {};
    const std::size_t end = at + 4 + name.size();
    if (end < text.size() && !identifierChar(text[end])) break;
    at = end;
  }
  std::size_t i = text.find('(', at);
  for (int param = 0; i != std::string_view::npos && param < 2; ++param) {
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    std::size_t e = i;
    while (e < text.size() && identifierChar(text[e])) ++e;
    const std::string word(text.substr(i, e - i));
    if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0]))) return {};
    if (word != "self" && word != "cls") return word;
    i = text.find(',', e);
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
    const std::string param = firstParameter(body, d.name);
    if (param.empty()) continue;
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
        if (form.empty() || reportedByNameRule(form, param)) continue;
        const std::string shown = form == "device=" ? "device=" + param
                                  : form == ".to"   ? ".to(" + param + ")"
                                                    : "torch.device(" + param + ")";
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
