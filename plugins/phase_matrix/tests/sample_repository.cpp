// The sample repository, small enough to work out every answer by hand.
//
// Import graph (module index: path → imports; libraries):
//   0 train.py             → model.py, ops.py   torch
//   1 model.py             → attention.py       torch
//   2 attention.py                              flash_attn, torch
//   3 infer.py             → model.py           torch
//   4 prepare_data.py      → data.py
//   5 ops.py                                    fused_ops, torch  (the compiled extension's user)
//   6 data.py                                   numpy
//   7 tests/test_model.py  → model.py           pytest
//   8 tools/export.py      → utils/dist_utils.py torch
//   9 utils/dist_utils.py                       torch
//  10 legacy/old_model.py                       torch   (nothing imports it)
//  11 setup.py                                  setuptools, torch
//
// Entry points (labels in brackets):
//   E0 train.py main block            [train.py]
//   E1 infer.py main block            [infer.py]
//   E2 prepare_data.py main block     [prepare_data.py]
//   E3 tests/test_model.py test       [tests/test_model.py]
//   E4 scripts/launch.sh, torchrun    [scripts/launch.sh, train.py, launcher:torchrun] → runs train.py
//   E5 tools/export.py main block     [tools/export.py]  (matches no phase)
//
// Phases (configured order) and their entry points:
//   train        [train.py]                          → E0, E4
//   infer        [infer.py, serve/**]                → E1
//   data         [prepare_*.py, **/prepare_*.py]     → E2
//   test         [tests/**]                          → E3
//   distributed  [launcher:torchrun], domains [distributed] → E4
//   serve        [serve/**]                          → none: not active
// Active: train, infer, data, test, distributed.
//
// Reach:
//   R(train) = R(distributed) = {train.py, model.py, attention.py, ops.py}
//   R(infer) = {infer.py, model.py, attention.py}
//   R(data)  = {prepare_data.py, data.py}
//   R(test)  = {tests/test_model.py, model.py, attention.py}
//   Reached  = all but legacy/old_model.py and setup.py (tools/export.py and utils/dist_utils.py
//              through E5, which matches no phase).
//
// Findings and their phases (rule of README "Phases of a finding" in brackets):
//   0 Dockerfile (deps, no package)          [f] every active phase: train infer data test distributed
//   1 attention.py flash_attn call           [c] train infer test distributed
//   2 csrc/fused_kernel.cu kernel            [d] listed by setup.py's extension mypkg.fused_ops, used
//                                                by ops.py → train distributed
//   3 csrc/other.cu kernel                   [d] listed nowhere → users of every extension → train
//                                                distributed
//   4 data.py torch.cuda.is_available        [c] data
//   5 infer.py torch.cuda.synchronize        [c] infer
//   6 legacy/old_model.py synchronize        [c] none (unreached)
//   7 model.py torch.cuda.amp.autocast       [c] train infer test distributed
//   8 ops.py import of fused_ops             [c] train distributed
//   9 requirements.txt flash-attn            [a] users: attention.py → train infer test distributed
//  10 requirements.txt apex                  [a] no module imports apex → none
//  11 scripts/launch.sh NCCL variable        [e] E4's phases: train distributed (+ distributed by domain)
//  12 setup.py CUDAExtension mypkg.fused_ops [b] users: ops.py → train distributed
//  13 tests/test_model.py is_available       [c] test
//  14 train.py nccl backend (distributed)    [c] train distributed
//  15 utils/dist_utils.py nccl (distributed) [c] in no phase's reach, but reached and of the
//                                                distributed domain → distributed
//  16 utils/dist_utils.py synchronize        [c] reached, in no phase's reach → none
//
// Bottlenecks (findings; effort = first + each × (n − 1)):
//   #001 DEV-002  device      5 6 16   autofix, 0.1 + 0.05 × 2 = 0.2
//   #002 DEV-001  device      4 13     autofix, 0.1 + 0.05     = 0.15
//   #003 ATT-001  attention   1        manual, high, 4
//   #004 DEPS-001 deps        9        manual, low, 0.5
//   #005 OPS-001  custom_ops  2 3      manual, high, error, no NPU alternative, 5 + 3 = 8
//   #006 OPS-010  custom_ops  12       manual, 2
//   #007 OPS-020  custom_ops  8        manual, info, 1
//   #008 DIST-001 distributed 14 15    autofix, error, 0.2 + 0.1 = 0.3
//   #009 DIST-008 distributed 11       manual, low, 0.3
//   #010 PREC-001 precision   7        autofix, 0.5
//   #011 DEPS-020 deps        0        manual, low, 0.5
//   #012 DEPS-002 deps        10       manual, error, no NPU alternative, 1
//
// Goals: training [train, distributed]; inference_only [infer] without deps; data_prep [data];
// broken [infer, deploy] ("deploy" is no phase). Chosen goal: training.

#include "sample_repository.hpp"

namespace phase_matrix::test {

using namespace migrate::sdk;

ModuleNode moduleNode(std::string path, std::vector<std::size_t> imports,
                      std::vector<std::string> libraries) {
  ModuleNode m;
  m.dotted_name = path.substr(0, path.size() - 3);
  for (char& c : m.dotted_name)
    if (c == '/') c = '.';
  m.path = std::move(path);
  m.imports = std::move(imports);
  m.libraries = std::move(libraries);
  return m;
}

EntryPoint entryPoint(EntryPoint::Kind kind, std::string name, std::string file,
                      std::vector<std::size_t> modules, std::vector<std::string> labels,
                      std::string launcher) {
  EntryPoint e;
  e.kind = kind;
  e.name = std::move(name);
  e.file = std::move(file);
  e.launcher = std::move(launcher);
  e.modules = std::move(modules);
  e.labels = std::move(labels);
  return e;
}

Finding finding(std::string rule_id, std::string domain, std::string file, std::uint32_t line,
                std::string resolved_api, std::map<std::string, std::string> details) {
  Finding f;
  f.rule_id = std::move(rule_id);
  f.domain = std::move(domain);
  f.file = std::move(file);
  f.range.line = line;
  f.range.column = 1;
  f.api = resolved_api;
  f.resolved_api = std::move(resolved_api);
  f.details = std::move(details);
  return f;
}

Bottleneck bottleneck(std::string id, std::string rule_id, std::string domain,
                      std::vector<std::size_t> findings, BottleneckTraits traits) {
  Bottleneck b;
  b.id = std::move(id);
  b.rule_id = std::move(rule_id);
  b.domain = std::move(domain);
  b.title = std::move(traits.title);
  b.apis = std::move(traits.apis);
  b.npu_alternative = std::move(traits.npu_alternative);
  b.findings = std::move(findings);
  b.severity = traits.severity;
  b.difficulty = traits.difficulty;
  b.autofix = traits.autofix;
  b.effort_first = traits.effort_first;
  b.effort_each = traits.effort_each;
  b.effort_days = b.effortFor(b.findings.size());
  return b;
}

PlanInput sampleRepository() {
  using Kind = EntryPoint::Kind;
  PlanInput in;
  in.modules = {
      moduleNode("train.py", {kModelPy, kOpsPy}, {"torch"}),
      moduleNode("model.py", {kAttentionPy}, {"torch"}),
      moduleNode("attention.py", {}, {"flash_attn", "torch"}),
      moduleNode("infer.py", {kModelPy}, {"torch"}),
      moduleNode("prepare_data.py", {kDataPy}, {}),
      moduleNode("ops.py", {}, {"fused_ops", "torch"}),
      moduleNode("data.py", {}, {"numpy"}),
      moduleNode("tests/test_model.py", {kModelPy}, {"pytest"}),
      moduleNode("tools/export.py", {kDistUtilsPy}, {"torch"}),
      moduleNode("utils/dist_utils.py", {}, {"torch"}),
      moduleNode("legacy/old_model.py", {}, {"torch"}),
      moduleNode("setup.py", {}, {"setuptools", "torch"}),
  };
  in.entry_points = {
      entryPoint(Kind::MainBlock, "train.py", "train.py", {kTrainPy}, {"train.py"}),
      entryPoint(Kind::MainBlock, "infer.py", "infer.py", {kInferPy}, {"infer.py"}),
      entryPoint(Kind::MainBlock, "prepare_data.py", "prepare_data.py", {kPrepareDataPy},
                 {"prepare_data.py"}),
      entryPoint(Kind::TestModule, "tests/test_model.py", "tests/test_model.py", {kTestModelPy},
                 {"tests/test_model.py"}),
      entryPoint(Kind::LaunchScript, "scripts/launch.sh", "scripts/launch.sh", {kTrainPy},
                 {"scripts/launch.sh", "train.py", "launcher:torchrun"}, "torchrun"),
      entryPoint(Kind::MainBlock, "tools/export.py", "tools/export.py", {kExportPy}, {"tools/export.py"}),
  };
  in.phases = {
      {"train", "Training", {"train.py"}, {}},
      {"infer", "Inference", {"infer.py", "serve/**"}, {}},
      {"data", "Data preparation", {"prepare_*.py", "**/prepare_*.py"}, {}},
      {"test", "Tests", {"tests/**"}, {}},
      {"distributed", "Distributed launch", {"launcher:torchrun"}, {"distributed"}},
      {"serve", "Serving", {"serve/**"}, {}},
  };
  const std::string sources = "['csrc/fused_kernel.cu', 'csrc/binding.cpp']";
  in.findings = {
      finding("DEPS-020", "deps", "Dockerfile", 1),
      finding("ATT-001", "attention", "attention.py", 3, "flash_attn.flash_attn_func"),
      finding("OPS-001", "custom_ops", "csrc/fused_kernel.cu", 10, "", {{"kernel", "fused_gelu_kernel"}}),
      finding("OPS-001", "custom_ops", "csrc/other.cu", 5, "", {{"kernel", "other_kernel"}}),
      finding("DEV-001", "device", "data.py", 7, "torch.cuda.is_available"),
      finding("DEV-002", "device", "infer.py", 12, "torch.cuda.synchronize"),
      finding("DEV-002", "device", "legacy/old_model.py", 4, "torch.cuda.synchronize"),
      finding("PREC-001", "precision", "model.py", 20, "torch.cuda.amp.autocast"),
      finding("OPS-020", "custom_ops", "ops.py", 3, "fused_ops",
              {{"module", "fused_ops"}, {"bound_as", "fused_ops"}}),
      finding("DEPS-001", "deps", "requirements.txt", 3, "",
              {{"package", "flash_attn"}, {"name", "flash-attn"}}),
      finding("DEPS-002", "deps", "requirements.txt", 5, "", {{"package", "apex"}, {"name", "apex"}}),
      finding("DIST-008", "distributed", "scripts/launch.sh", 4, "", {{"variable", "NCCL_SOCKET_IFNAME"}}),
      finding("OPS-010", "custom_ops", "setup.py", 8, "torch.utils.cpp_extension.CUDAExtension",
              {{"extension", "mypkg.fused_ops"}, {"sources", sources}, {"builder", "CUDAExtension"}}),
      finding("DEV-001", "device", "tests/test_model.py", 6, "torch.cuda.is_available"),
      finding("DIST-001", "distributed", "train.py", 15, "torch.distributed.init_process_group"),
      finding("DIST-001", "distributed", "utils/dist_utils.py", 9, "torch.distributed.init_process_group"),
      finding("DEV-002", "device", "utils/dist_utils.py", 20, "torch.cuda.synchronize"),
  };
  const auto high = Level::High;
  const auto low = Level::Low;
  const auto medium = Level::Medium;
  const auto error = Severity::Error;
  const auto warning = Severity::Warning;
  in.bottlenecks = {
      bottleneck("#001", "DEV-002", "device",
                 {kInferSynchronize, kOldModelSynchronize, kDistUtilsSynchronize},
                 {"CUDA synchronize",
                  {"torch.cuda.synchronize"},
                  "torch.npu.synchronize",
                  warning,
                  low,
                  true,
                  0.1,
                  0.05}),
      bottleneck("#002", "DEV-001", "device", {kDataIsAvailable, kTestIsAvailable},
                 {"CUDA availability check",
                  {"torch.cuda.is_available"},
                  "torch.npu.is_available",
                  warning,
                  low,
                  true,
                  0.1,
                  0.05}),
      bottleneck("#003", "ATT-001", "attention", {kAttentionFlash},
                 {"FlashAttention call",
                  {"flash_attn.flash_attn_func"},
                  "torch_npu.npu_fusion_attention",
                  warning,
                  high,
                  false,
                  4,
                  1}),
      bottleneck("#004", "DEPS-001", "deps", {kRequirementFlashAttn},
                 {"FlashAttention dependency",
                  {"flash-attn"},
                  "remove (torch_npu has fused attention)",
                  warning,
                  low,
                  false,
                  0.5,
                  0}),
      bottleneck("#005", "OPS-001", "custom_ops", {kFusedKernelCu, kOtherCu},
                 {"Custom CUDA kernel", {"fused_gelu_kernel", "other_kernel"}, "", error, high, false, 5, 3}),
      bottleneck("#006", "OPS-010", "custom_ops", {kSetupExtension},
                 {"CUDA extension build",
                  {"torch.utils.cpp_extension.CUDAExtension"},
                  "torch_npu.utils.cpp_extension.NpuExtension",
                  warning,
                  medium,
                  false,
                  2,
                  1}),
      bottleneck("#007", "OPS-020", "custom_ops", {kOpsExtensionImport},
                 {"Compiled extension import",
                  {"fused_ops"},
                  "the rebuilt NPU extension",
                  Severity::Info,
                  medium,
                  false,
                  1,
                  0.5}),
      bottleneck(
          "#008", "DIST-001", "distributed", {kTrainNccl, kDistUtilsNccl},
          {"NCCL backend", {"torch.distributed.init_process_group"}, "hccl", error, low, true, 0.2, 0.1}),
      bottleneck("#009", "DIST-008", "distributed", {kLaunchNcclEnv},
                 {"NCCL environment variable",
                  {"NCCL_SOCKET_IFNAME=eth0"},
                  "HCCL_SOCKET_IFNAME",
                  warning,
                  low,
                  false,
                  0.3,
                  0.1}),
      bottleneck("#010", "PREC-001", "precision", {kModelAutocast},
                 {"CUDA autocast",
                  {"torch.cuda.amp.autocast"},
                  "torch.npu.amp.autocast",
                  warning,
                  medium,
                  true,
                  0.5,
                  0.25}),
      bottleneck("#011", "DEPS-020", "deps", {kDockerfile},
                 {"CUDA base image",
                  {"nvidia/cuda:12.1.0-devel"},
                  "an Ascend CANN base image",
                  warning,
                  low,
                  false,
                  0.5,
                  0.25}),
      bottleneck("#012", "DEPS-002", "deps", {kRequirementApex},
                 {"Unsupported dependency", {"apex"}, "", error, medium, false, 1, 0.5}),
  };
  in.goals = {
      {"training", "Training on NPU", {"train", "distributed"}, {}},
      {"inference_only", "Inference only", {"infer"}, {"deps"}},
      {"data_prep", "Data preparation", {"data"}, {}},
      {"broken", "Names an unknown phase", {"infer", "deploy"}, {}},
  };
  in.chosen_goal = "training";
  return in;
}

}  // namespace phase_matrix::test
