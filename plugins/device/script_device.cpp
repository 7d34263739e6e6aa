// The device layer in shell launch scripts (*.sh, *.bash, Makefiles, the installation guide's shell
// blocks): CUDA runtime variables set or read
// there (DEV-037, DEV-038, DEV-039, DEV-053, the rules that report them in Python strings; the
// first three renamed to the NPU runtime's names, as their rules' fixes do in Python), and
// torch.cuda queries of inline Python (`GPUS=$(python -c 'import torch;
// print(torch.cuda.device_count())')`, DEV-001), and torchrun told to count CUDA devices
// (`--nproc_per_node=gpu`, DEV-079), and a CUDA device passed as a command's option
// (`--device cuda:0`, DEV-023, renamed to npu as in Python), and nvidia-smi run as a command
// (`n_gpu=$(nvidia-smi -L | wc -l)`, DEV-040; a test for the command's presence, `command -v
// nvidia-smi`, is a probe whose false answer is right on an NPU host, unless the script stops when
// it fails: `have_cmd nvidia-smi || die …`). Comments and echo/printf lines are prose.

#include "script_device.hpp"

#include <cctype>
#include <set>
#include <string>

#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/container_recipe.hpp"
#include "migrate/sdk/install_guide.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/shell_text.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// The rule of a CUDA runtime variable the NPU runtime ignores, or nullptr.
const RuleInfo* variableRule(std::string_view name, const ScriptRules& rules) {
  static const RE2 kRuntime(
      R"(CUBLAS(LT)?_[A-Z0-9_]+|CUDNN_[A-Z0-9_]+|NVIDIA_TF32_OVERRIDE|CUDA_(MODULE_LOADING|DEVICE_MAX_CONNECTIONS|DEVICE_ORDER|CACHE_[A-Z_]+|FORCE_PTX_JIT|DISABLE_PTX_JIT|AUTO_BOOST|SCALE_LAUNCH_QUEUES|MPS_[A-Z_]+))",
      plugin_support::bytePattern());
  if (name == "CUDA_VISIBLE_DEVICES") return rules.visible_devices;
  if (name == "PYTORCH_CUDA_ALLOC_CONF") return rules.alloc_conf;
  if (name == "CUDA_LAUNCH_BLOCKING") return rules.launch_blocking;
  if (RE2::FullMatch(re2::StringPiece(name.data(), name.size()), kRuntime)) return rules.runtime_variable;
  return nullptr;
}

/// The NPU runtime's name for a CUDA variable that has one (the renames of DEV-037 … 039), or "".
std::string npuName(std::string_view name) {
  if (name == "CUDA_VISIBLE_DEVICES") return "ASCEND_RT_VISIBLE_DEVICES";
  if (name == "PYTORCH_CUDA_ALLOC_CONF") return "PYTORCH_NPU_ALLOC_CONF";
  if (name == "CUDA_LAUNCH_BLOCKING") return "ASCEND_LAUNCH_BLOCKING";
  return {};
}

void scanScript(const std::string& path, const std::string& text, const ScriptRules& rules,
                FindingSink& sink) {
  // A setting (`export NAME=…`, `NAME=… command`) or an expansion (`$NAME`, `${NAME}`).
  static const RE2 kVariable(R"((?:^|[\s;&|(])(?:export\s+)?([A-Z][A-Z0-9_]*)=|\$\{?([A-Z][A-Z0-9_]*))",
                             plugin_support::bytePattern());
  static const RE2 kInlinePython(R"(\bpython[0-9.]*\s+-c\s)", plugin_support::bytePattern());
  // DEV-001's queries: the count and availability checks launch scripts size their runs with.
  static const RE2 kCudaQuery(
      R"(\btorch\.cuda\.(device_count|is_available|current_device|get_device_name|get_device_properties)\b)",
      plugin_support::bytePattern());
  // torchrun's node size taken from torch.cuda (run.py's determine_local_world_size).
  static const RE2 kNprocByCuda(
      R"((?:\btorchrun\b|\btorch\.distributed\.(?:run|launch)\b).*?(--nproc[_-]per[_-]node[= ]+["']?(?:gpu|auto)\b))",
      plugin_support::bytePattern());
  // A device option given a CUDA device (`--device cuda:0`, `--device=cuda`, `--map-location "cuda"`,
  // `--device "cuda:$i"`).
  static const RE2 kDeviceOption(
      R"((?:^|\s)--(?:[\w-]*[_-])?(?:device(?:[_-]?map)?|map[_-]location)(?:=|\s+)["']?(cuda(?::(?:\d+|\$\{?\w+\}?))?)["']?(?:\s|$))",
      plugin_support::bytePattern());
  // nvidia-smi where a command starts (line start, after `;`, `&&`, `|`, `$(`, a backtick, a path,
  // make's `$(shell …)`, or a command prefix held in a variable: `${CONDA_RUN} nvidia-smi`).
  static const RE2 kSmi(R"((?:^\s*(?:\$\{?\w+\}?\s+)?|[;&|(`]\s*|/|\(shell\s+)(nvidia-smi[^;&|)`]*))",
                        plugin_support::bytePattern());
  // A presence test of nvidia-smi whose failure ends the script (`have_cmd nvidia-smi || die …`,
  // `command -v nvidia-smi >/dev/null || { echo …; exit 1; }`): the script requires it, so an NPU
  // host stops there. Without such an ending the test is a probe (above).
  static const RE2 kSmiRequired(
      R"(((?:^\s*|[;&(]\s*)(?:!\s*)?[A-Za-z_][\w-]*(?:\s+-\w+)*\s+(nvidia-smi)\b[^|;]*\|\|\s*(?:\{[^}]*)?\b(?:die|exit|fail\w*|abort|fatal)\b))",
      plugin_support::bytePattern());
  const LineIndex index(text);
  plugin_support::forEachShellCodeLine(text, [&](std::size_t offset, const std::string& code) {
    auto rangeOf = [&](const re2::StringPiece& m) {
      const auto start =
          static_cast<std::uint32_t>(offset + static_cast<std::size_t>(m.data() - code.data()));
      return index.range(start, start + static_cast<std::uint32_t>(m.size()));
    };
    std::set<std::string> seen;
    plugin_support::forEachMatch(kVariable, code, [&](const auto& g) {
      const re2::StringPiece m = g[1].empty() ? g[2] : g[1];
      const std::string name = plugin_support::str(m);
      const RuleInfo* rule = variableRule(name, rules);
      if (rule == nullptr || !seen.insert(name).second) return;
      Finding f = findingFrom(*rule, path, rangeOf(m), name, {}, {{"value", name}});
      f.details = {{"variable", name}, {"file_kind", "script"}};
      if (const std::string npu = npuName(name); !npu.empty())  // every use of the name on the line
        for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
          const std::size_t stop = at + name.size();
          auto word = [&](std::size_t i) {
            return std::isalnum(static_cast<unsigned char>(code[i])) || code[i] == '_';
          };
          if ((at > 0 && word(at - 1)) || (stop < code.size() && word(stop))) continue;
          const auto b = static_cast<std::uint32_t>(offset + at);
          f.edits.push_back({b, b + static_cast<std::uint32_t>(name.size()), npu});
        }
      sink.report(std::move(f));
    });
    if (rules.cuda_query != nullptr && RE2::PartialMatch(code, kInlinePython))
      plugin_support::forEachMatch(kCudaQuery, code, [&](const auto& g) {
        const std::string api = plugin_support::str(g[0]);
        const std::string npu = "torch.npu." + plugin_support::str(g[1]);
        Finding f =
            findingFrom(*rules.cuda_query, path, rangeOf(g[0]), api, {}, {{"npu", npu}, {"note", ""}});
        f.details = {{"file_kind", "script"}, {"context", "python -c"}};
        sink.report(std::move(f));
      });
    if (rules.device_string != nullptr)
      plugin_support::forEachMatch(kDeviceOption, code, [&](const auto& g) {
        const std::string value = plugin_support::str(g[1]);
        Finding f = findingFrom(*rules.device_string, path, rangeOf(g[1]), value, {}, {{"value", value}});
        f.details = {{"file_kind", "script"}, {"context", "command option"}};
        const auto b =
            static_cast<std::uint32_t>(offset + static_cast<std::size_t>(g[1].data() - code.data()));
        f.edits.push_back({b, b + 4, "npu"});
        sink.report(std::move(f));
      });
    if (rules.smi != nullptr) {
      if (re2::StringPiece command; RE2::PartialMatch(code, kSmi, &command)) {
        const std::string value = plugin_support::str(command);
        const std::string trimmed = value.substr(0, value.find_last_not_of(" \t") + 1);
        Finding f = findingFrom(*rules.smi, path, rangeOf(command), trimmed, {}, {{"value", trimmed}});
        f.details = {{"file_kind", "script"}};
        sink.report(std::move(f));
      } else if (re2::StringPiece check, required; RE2::PartialMatch(code, kSmiRequired, &check, &required)) {
        std::string value = plugin_support::str(check);
        value.erase(0, value.find_first_not_of(" \t;&("));
        Finding f = findingFrom(*rules.smi, path, rangeOf(required), value, {}, {{"value", value}});
        f.details = {{"file_kind", "script"}, {"context", "required: the script stops without it"}};
        sink.report(std::move(f));
      }
    }
    if (rules.nproc_by_cuda != nullptr)
      if (re2::StringPiece flag; RE2::PartialMatch(code, kNprocByCuda, &flag)) {
        Finding f = findingFrom(*rules.nproc_by_cuda, path, rangeOf(flag), plugin_support::str(flag), {},
                                {{"value", plugin_support::str(flag)}});
        f.details = {{"file_kind", "script"}};
        sink.report(std::move(f));
      }
  });
}

}  // namespace

void checkScripts(const WorkspaceView& workspace, const ScriptRules& rules, FindingSink& sink) {
  for (const FileEntry& file : workspace.files()) {
    // A Makefile's recipes are shell lines too (`CUDA_VISIBLE_DEVICES= python train.py`), and so
    // are the shell blocks of the installation guide (`CUDA_VISIBLE_DEVICES=2 python train.py`).
    // So are the shell steps of a CI workflow (`run: nvidia-smi`) and of a Singularity recipe.
    const bool markdown = mayBeInstallGuide(file.path);
    const bool workflow = isCiWorkflow(file.path);
    const bool recipe = isContainerRecipePath(file.path);
    if (file.language != Language::Shell && !plugin_support::isMakefile(file.path) && !markdown &&
        !workflow && !recipe)
      continue;
    const auto text = workspace.read(file.path);
    if (!text ||
        (text->find("CUDA") == std::string::npos && text->find("CUBLAS") == std::string::npos &&
         text->find("CUDNN") == std::string::npos && text->find("NVIDIA_") == std::string::npos &&
         text->find("torch.cuda.") == std::string::npos && text->find("nproc") == std::string::npos &&
         text->find("cuda") == std::string::npos && text->find("nvidia-smi") == std::string::npos))
      continue;
    // A guide is laid out as its shell blocks only once it names something the scan looks for.
    const bool guide = markdown && isInstallGuide(file.path, *text);
    if (markdown && !guide) continue;  // a page on code or results, not on setting up
    if (guide || workflow)
      scanScript(file.path, guide ? installGuideScript(*text) : ciWorkflowScript(*text), rules, sink);
    else if (recipe && isContainerRecipe(file.path, *text))  // not a C macro table named *.def
      scanScript(file.path, containerRecipeScript(*text), rules, sink);
    else if (file.language == Language::Shell || plugin_support::isMakefile(file.path))
      scanScript(file.path, *text, rules, sink);
  }
}

}  // namespace device
