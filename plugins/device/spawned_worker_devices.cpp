// DEV-095: a spawned worker's process index used as a device (see the header).

#include "spawned_worker_devices.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "device_uses.hpp"
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
        const std::string shown = deviceUse(module, c, a, param);
        if (shown.empty()) continue;
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
