// DIST-039: a Gloo process group for a process that trains on the accelerator (see
// distributed_checks.hpp).

#include <string>
#include <string_view>

#include "distributed_checks.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/definitions.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

/// The first place in `text` (code lines only) that puts the model or its tensors on the
/// accelerator: `.cuda(`, `torch.cuda.set_device(`, `device_ids=` of a DDP wrap, a "cuda" device.
std::string acceleratorUse(std::string_view text) {
  static const RE2 kUse(
      R"((\.cuda\(|\bcuda\.set_device\(|\bdevice_ids\s*=|['"]cuda(?::\d+)?['"]|\bf['"]cuda:))",
      plugin_support::bytePattern());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string_view::npos) stop = text.size();
    const std::string_view line = text.substr(start, stop - start);
    start = stop + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::string use;
    if (RE2::PartialMatch(line, kUse, &use)) return use;
  }
  return {};
}

}  // namespace

void checkGlooDeviceGroups(const Module& module, const RuleTable& rules, FindingSink& sink) {
  if (module.source().find("gloo") == std::string_view::npos) return;
  for (const CallFact& call : module.calls()) {
    if (!isInitProcessGroup(call)) continue;
    const ArgumentFact* backend = nullptr;
    for (const ArgumentFact& a : call.args)
      if (a.keyword == "backend" || a.index == 0) backend = &a;
    if (!backend || backend->kind != ValueKind::String || backend->text != "gloo") continue;
    // Another init_process_group in the same function: the branches choose (Windows takes Gloo).
    const DefinitionFact* scope =
        plugin_support::innermostDefinition(module, call.range, DefinitionFact::Kind::Function);
    bool alternatives = false;
    for (const CallFact& other : module.calls())
      if (&other != &call && isInitProcessGroup(other) &&
          plugin_support::innermostDefinition(module, other.range, DefinitionFact::Kind::Function) == scope)
        alternatives = true;
    if (alternatives) continue;
    const std::uint32_t end =
        scope ? scope->range.end_byte : static_cast<std::uint32_t>(module.source().size());
    if (end <= call.range.end_byte) continue;
    const std::string use =
        acceleratorUse(module.source().substr(call.range.end_byte, end - call.range.end_byte));
    if (use.empty()) continue;
    Finding f = findingFrom(*rules.gloo_device_group, std::string(module.path()), backend->range,
                            call.callee_written, call.callee_resolved, {{"value", use}});
    f.details = {{"backend", "gloo"}, {"accelerator_use", use}};
    sink.report(std::move(f));
  }
}

}  // namespace distributed
