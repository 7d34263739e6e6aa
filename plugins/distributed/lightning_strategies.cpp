// DIST-033: a Lightning DDP / FSDP / model-parallel strategy built without process_group_backend.
// Lightning picks the backend from the accelerator ("nccl" for CUDA, "gloo" for anything else), so
// on an NPU such a strategy starts gloo.

#include <string>
#include <string_view>

#include "distributed_checks.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

/// Whether `resolved` names one of the strategies that take process_group_backend, in any of the
/// packages Lightning has shipped them in (`lightning.pytorch.strategies.FSDPStrategy`,
/// `pytorch_lightning.strategies.ddp.DDPStrategy`, `lightning.fabric.strategies.FSDPStrategy`, …).
bool isBackendChoosingStrategy(std::string_view resolved) {
  static constexpr std::string_view kPackages[] = {
      "lightning.pytorch.strategies.", "lightning.fabric.strategies.", "pytorch_lightning.strategies.",
      "lightning_fabric.strategies."};
  static constexpr std::string_view kClasses[] = {"DDPStrategy", "FSDPStrategy", "ModelParallelStrategy",
                                                  "DDPSpawnStrategy", "DDPShardedStrategy"};
  bool in_package = false;
  for (std::string_view p : kPackages) in_package = in_package || resolved.substr(0, p.size()) == p;
  if (!in_package) return false;
  const std::string_view last = resolved.substr(resolved.rfind('.') + 1);
  for (std::string_view c : kClasses)
    if (last == c) return true;
  return false;
}

}  // namespace

void checkLightningStrategies(const Module& module, const RuleTable& rules, FindingSink& sink) {
  for (const CallFact& call : module.calls()) {
    if (!isBackendChoosingStrategy(call.callee_resolved) || module.isProjectModule(call.callee_resolved))
      continue;
    bool has_backend = false;
    for (const ArgumentFact& a : call.args) has_backend = has_backend || a.keyword == "process_group_backend";
    // `Strategy(**kwargs)` may carry the backend: the argument facts leave splats out, the text has them.
    const bool has_splat = module.text(call.range).find("**") != std::string_view::npos;
    if (has_backend || has_splat) continue;
    sink.report(findingFrom(*rules.lightning_strategy, std::string(module.path()), call.name_range,
                            call.callee_written, call.callee_resolved));
  }
}

}  // namespace distributed
