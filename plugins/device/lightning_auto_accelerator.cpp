// DEV-060: Lightning's Trainer / Fabric left to choose its accelerator (see the header).

#include "lightning_auto_accelerator.hpp"

#include <re2/re2.h>

#include <string>
#include <string_view>

#include "plugin_support/byte_regex.hpp"
#include "plugin_support/definitions.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// The last name of `resolved` when it is in a package Lightning has shipped in (`lightning.`,
/// `pytorch_lightning.`, `lightning_fabric.`), else "".
std::string_view lightningClass(std::string_view resolved) {
  static constexpr std::string_view kPackages[] = {"lightning.", "pytorch_lightning.", "lightning_fabric."};
  for (std::string_view p : kPackages)
    if (resolved.substr(0, p.size()) == p) return resolved.substr(resolved.rfind('.') + 1);
  return {};
}

/// Whether `resolved` is Lightning's Trainer or Fabric class, in any package it has shipped in
/// (`lightning.Trainer`, `lightning.pytorch.trainer.trainer.Trainer`, `pytorch_lightning.Trainer`,
/// `lightning.fabric.Fabric`, `lightning_fabric.Fabric`, …).
bool isTrainerOrFabric(std::string_view resolved) {
  const std::string_view last = lightningClass(resolved);
  return last == "Trainer" || last == "Fabric";
}

/// `LightningCLI(Model, DataModule, …)`: it builds its Trainer from the command line and config
/// files, whose `trainer.accelerator` defaults to "auto" unless `trainer_defaults` says otherwise.
bool isLightningCli(std::string_view resolved) {
  return lightningClass(resolved) == "LightningCLI";
}

/// `Trainer.from_argparse_args(args, …)` (Lightning 1.x): the command line's namespace decides,
/// and its `accelerator` defaults to None, Lightning's automatic choice.
bool isFromArgparse(std::string_view resolved) {
  static constexpr std::string_view kSuffix = ".from_argparse_args";
  if (resolved.size() <= kSuffix.size() || resolved.substr(resolved.size() - kSuffix.size()) != kSuffix)
    return false;
  return isTrainerOrFabric(resolved.substr(0, resolved.size() - kSuffix.size()));
}

bool isAuto(const ArgumentFact& a) {
  return a.kind == ValueKind::String && !a.fstring && a.text == "auto";
}

/// Lightning < 1.5 took the distributed mode as `accelerator=` ("ddp", "dp", "horovod", …), or
/// None: no device is chosen, so `gpus=` decides (`accelerator="ddp" if gpus > 1 else None`).
bool isLegacyStrategy(const ArgumentFact& a) {
  static const RE2 kStrategy(R"(["'](?:ddp\w*|dp|horovod)["'])", plugin_support::bytePattern());
  static const RE2 kChoice(
      R"(\s*(?:["'](?:ddp\w*|dp|horovod)["']|None)\s+if\s+.+\s+else\s+(?:["'](?:ddp\w*|dp|horovod)["']|None)\s*)",
      plugin_support::bytePattern());
  if (a.kind == ValueKind::None) return true;
  if (a.kind == ValueKind::String) return !a.fstring && RE2::FullMatch("\"" + a.text + "\"", kStrategy);
  return RE2::FullMatch(a.text, kChoice);
}

/// `def __init__(self, accelerator="auto")` … `Fabric(accelerator=accelerator)`: the string "auto"
/// bound to `name` in the function around `call` (a parameter's default or an assignment), or null.
const StringFact* autoBoundInScope(const Module& module, const CallFact& call, const std::string& name) {
  const DefinitionFact* scope =
      plugin_support::innermostDefinition(module, call.range, DefinitionFact::Kind::Function);
  if (!scope) return nullptr;
  for (const StringFact& s : module.strings())
    if (s.context == StringContext::Assignment && s.name == name && s.value == "auto" && !s.fstring &&
        scope->range.start_byte <= s.range.start_byte && s.range.end_byte <= call.range.start_byte)
      return &s;
  return nullptr;
}

}  // namespace

void checkLightningAutoAccelerator(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  for (const CallFact& call : module.calls()) {
    if (isLightningCli(call.callee_resolved) && !module.isProjectModule(call.callee_resolved)) {
      bool defaults = false;  // trainer_defaults= (or **kwargs) may choose the accelerator
      for (const ArgumentFact& a : call.args) defaults = defaults || a.keyword == "trainer_defaults";
      if (!defaults && module.text(call.range).find("**") == std::string_view::npos)
        sink.report(findingFrom(
            rule, std::string(module.path()), call.name_range, call.callee_written, call.callee_resolved,
            {{"value", "from the command line and config files (their default is automatic)"}}));
      continue;
    }
    const bool from_argparse = isFromArgparse(call.callee_resolved);
    if (!(from_argparse || isTrainerOrFabric(call.callee_resolved)) ||
        module.isProjectModule(call.callee_resolved))
      continue;
    bool chosen = false;  // an accelerator given some other way than "auto"
    const ArgumentFact* automatic = nullptr;
    const StringFact* bound_auto = nullptr;  // a name whose value in this function is "auto"
    const ArgumentFact* gpus = nullptr;      // Lightning 1.x `gpus=N`: the CUDA accelerator
    for (const ArgumentFact& a : call.args) {
      // Positional: old signatures take the accelerator first (from_argparse_args: the namespace).
      if (a.index >= 0 && !from_argparse) chosen = true;
      if (a.keyword == "gpus" && a.text != "0" && a.text != "None" && a.text != "[]") gpus = &a;
      if (a.keyword != "accelerator") continue;
      if (isLegacyStrategy(a)) continue;  // no device: as if not given
      if (isAuto(a))
        automatic = &a;
      else if (const StringFact* s =
                   a.kind == ValueKind::Name ? autoBoundInScope(module, call, a.text) : nullptr)
        bound_auto = s;
      else
        chosen = true;
    }
    if (bound_auto && !chosen) {
      auto finding = findingFrom(rule, std::string(module.path()), bound_auto->range, call.callee_written,
                                 call.callee_resolved,
                                 {{"value", "\"auto\" (the default of " + bound_auto->name + ")"}});
      sink.report(std::move(finding));
      continue;
    }
    // Without an accelerator, Lightning 1.x takes `gpus=` as a request for CUDA devices: the
    // argument is the place to change.
    if (gpus && !chosen) {
      sink.report(findingFrom(rule, std::string(module.path()), gpus->range, call.callee_written,
                              call.callee_resolved,
                              {{"value", "chosen by gpus=" + gpus->text + " (CUDA devices)"}}));
      continue;
    }
    // `Trainer(**config)` may carry the accelerator: the argument facts leave splats out, the text
    // has them. from_argparse_args's keywords only add to the namespace's choice.
    if (chosen || (!from_argparse && module.text(call.range).find("**") != std::string_view::npos)) continue;
    const char* how = from_argparse ? "from the command line (its default is automatic)"
                      : automatic   ? "\"auto\""
                                    : "not given";
    // A written `accelerator="auto"` is the place to change; otherwise the call, where one goes.
    auto finding =
        findingFrom(rule, std::string(module.path()), automatic ? automatic->range : call.name_range,
                    call.callee_written, call.callee_resolved, {{"value", how}});
    sink.report(std::move(finding));
  }
}

}  // namespace device
