// DEV-060: Lightning's Trainer / Fabric left to choose its accelerator (see the header).

#include "lightning_auto_accelerator.hpp"

#include <string>
#include <string_view>

namespace device {
namespace {

using namespace migrate::sdk;

/// Whether `resolved` is Lightning's Trainer or Fabric class, in any package it has shipped in
/// (`lightning.Trainer`, `lightning.pytorch.trainer.trainer.Trainer`, `pytorch_lightning.Trainer`,
/// `lightning.fabric.Fabric`, `lightning_fabric.Fabric`, …).
bool isTrainerOrFabric(std::string_view resolved) {
  static constexpr std::string_view kPackages[] = {"lightning.", "pytorch_lightning.", "lightning_fabric."};
  bool in_package = false;
  for (std::string_view p : kPackages) in_package = in_package || resolved.substr(0, p.size()) == p;
  if (!in_package) return false;
  const std::string_view last = resolved.substr(resolved.rfind('.') + 1);
  return last == "Trainer" || last == "Fabric";
}

bool isAuto(const ArgumentFact& a) {
  return a.kind == ValueKind::String && !a.fstring && a.text == "auto";
}

}  // namespace

void checkLightningAutoAccelerator(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  for (const CallFact& call : module.calls()) {
    if (!isTrainerOrFabric(call.callee_resolved) || module.isProjectModule(call.callee_resolved)) continue;
    bool chosen = false;  // an accelerator given some other way than "auto"
    bool automatic = false;
    for (const ArgumentFact& a : call.args) {
      if (a.index >= 0) chosen = true;  // positional: old signatures take the accelerator first
      if (a.keyword != "accelerator") continue;
      (isAuto(a) ? automatic : chosen) = true;
    }
    // `Trainer(**config)` may carry the accelerator: the argument facts leave splats out, the text has them.
    if (chosen || module.text(call.range).find("**") != std::string_view::npos) continue;
    auto finding = findingFrom(rule, std::string(module.path()), call.name_range, call.callee_written,
                               call.callee_resolved, {{"value", automatic ? "\"auto\"" : "not given"}});
    sink.report(std::move(finding));
  }
}

}  // namespace device
