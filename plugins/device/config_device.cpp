// The device layer in YAML and JSON configuration files (Hydra, OmegaConf, Lightning CLI, RL
// configs): a device setting `device: cuda` / `cuda:0` (DEV-023, the rule of the same string in
// Python, where it is assigned to a device name), a Lightning accelerator `accelerator: gpu`
// (DEV-049), the Lightning 1.x device count `gpus: 1` and `accelerator: auto` among a trainer's
// settings (DEV-060: the first selects the CUDA accelerator, the second never an NPU) and a
// trainer's `device: gpu` (DEV-080, Composer's CUDA device) and a value that runs nvidia-smi
// (an OmegaConf `${eval:…check_output('nvidia-smi …')}` resolver or a command string, DEV-040).
// The program passes these values on to torch, Lightning or Composer, so the finding stands where
// the value is written, as it does for a Python constant; a device string gets DEV-023's rename
// there.

#include "config_device.hpp"

#include <string>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/config_values.hpp"

namespace device {

using namespace migrate::sdk;

void checkConfigFiles(const WorkspaceView& workspace, const ConfigRules& rules, FindingSink& sink) {
  // The names DEV-023's `assign_to` reads as a device (`device`, `train_device`, `device_type`).
  static const RE2 kDeviceKey(R"((?i)(\w*_)?(dev|devices?)(_(type|name|str))?)",
                              plugin_support::bytePattern());
  static const RE2 kAcceleratorKey(R"((?i)(\w*_)?accelerator)", plugin_support::bytePattern());
  static const RE2 kCuda(R"((?i)cuda(:\d*)?)", plugin_support::bytePattern());
  static const RE2 kGpu(R"((?i)gpu|cuda)", plugin_support::bytePattern());
  // Settings of a trainer (`trainer:`, `pl_trainer:`, `trainer.params`): Lightning's and Composer's.
  static const RE2 kTrainer(R"((?i)(.*\.)?\w*trainer(\.\w+)?)", plugin_support::bytePattern());
  // A file that holds a trainer's settings at its top level: a Hydra config group
  // (`configs/trainer/ddp.yaml`) or a file named for it (`default_trainer.yaml`).
  static const RE2 kTrainerFile(R"((?i)(.*/)?\w*trainer\w*/[^/]*|(.*/)?\w*trainer\w*\.[^./]+)",
                                plugin_support::bytePattern());
  // Lightning 1.x `gpus`: a count, -1 (all) or a list of indices; 0 keeps the CPU.
  static const RE2 kGpuCount(R"(-1|[1-9]\d*|\d+(\s*,\s*\d+)+)", plugin_support::bytePattern());
  // nvidia-smi where a command starts, also inside a quoted string of an expression value.
  static const RE2 kSmi(R"((?:^\s*|[;&|(`'"]\s*|/)nvidia-smi(?:\s|$|['")]))", plugin_support::bytePattern());
  auto full = [](const RE2& re, const std::string& s) {
    return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
  };
  for (const FileEntry& file : workspace.files()) {
    if (!plugin_support::isConfigFile(file.path, file.size)) continue;
    const auto text = workspace.read(file.path);
    if (!text ||
        (text->find("cuda") == std::string::npos && text->find("gpu") == std::string::npos &&
         text->find("accelerator") == std::string::npos && text->find("nvidia-smi") == std::string::npos))
      continue;
    // yaml-cpp is slow on JSON's long flow collections: read a JSON file only when a key and value
    // of the kinds above are written in it.
    static const RE2 kJsonCandidate(
        R"re((?i)"(\w*_)?(dev|devices?)(_(type|name|str))?"\s*:\s*\[?\s*"(cuda|gpu")|"\w*accelerator"\s*:\s*"(gpu|cuda|auto)|"gpus"\s*:\s*[-1-9"])re",
        plugin_support::bytePattern());
    if (plugin_support::isJsonFile(file.path) && !RE2::PartialMatch(*text, kJsonCandidate)) continue;
    std::string error;
    const auto values = plugin_support::configValues(*text, error);
    if (!error.empty()) {
      // A JSON file yaml-cpp refuses (tab indentation) is no configuration error of the project.
      if (!plugin_support::isJsonFile(file.path))
        sink.diagnose({Severity::Info, "config-unparsed", file.path, 0, "not read as YAML: " + error});
      continue;
    }
    const LineIndex index(*text);
    const bool trainer_file = full(kTrainerFile, file.path);
    for (const auto& v : values) {
      // Among a trainer's settings: under a `trainer` key, or at the top of a trainer's file.
      const bool trainer = full(kTrainer, v.parents) || (v.parents.empty() && trainer_file);
      const RuleInfo* rule = nullptr;
      if (rules.device_string && full(kDeviceKey, v.key) && full(kCuda, v.value))
        rule = rules.device_string;
      else if (rules.accelerator && full(kAcceleratorKey, v.key) && full(kGpu, v.value))
        rule = rules.accelerator;
      else if (rules.auto_accelerator && trainer &&
               ((v.key == "gpus" && full(kGpuCount, v.value)) ||
                (v.key == "accelerator" && v.value == "auto")))
        rule = rules.auto_accelerator;
      else if (rules.trainer_device && v.key == "device" && v.value == "gpu" && trainer)
        rule = rules.trainer_device;
      else if (rules.smi && RE2::PartialMatch(v.value, kSmi))
        rule = rules.smi;
      if (!rule) continue;
      // DEV-060 names the trainer ({api}) and how its accelerator is chosen ({value}).
      const bool chosen = rule == rules.auto_accelerator;
      const std::string trainer_name =
          "the Lightning Trainer of " + (v.parents.empty() ? file.path : v.parents);
      const std::string how = v.key == "gpus" ? "chosen by gpus: " + v.value + " (CUDA devices)" : "\"auto\"";
      Finding f = findingFrom(*rule, file.path, index.range(v.begin, v.end), chosen ? trainer_name : v.value,
                              {}, {{"value", chosen ? how : v.value}});
      f.details = {{"file_kind", "config"}, {"key", v.key}};
      // DEV-023's rename, as in Python: `cuda:0` → `npu:0`. The accelerator needs more than a name.
      if (const long at = plugin_support::wordIn(*text, v, "cuda"); rule == rules.device_string && at >= 0)
        f.edits.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + 4), "npu"});
      sink.report(std::move(f));
    }
  }
}

}  // namespace device
