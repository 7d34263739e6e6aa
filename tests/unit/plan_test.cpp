// The engine's plan passes: module summaries, the import graph, entry points, the bottleneck
// list with the effort model and impact scope, the code structure, and the `plan:` settings.

#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/analyzer.hpp"
#include "migrate/engine/pipeline.hpp"
#include "pipeline/plan_spec.hpp"
#include "plan/bottlenecks.hpp"
#include "plan/code_structure.hpp"
#include "plan/entry_points.hpp"
#include "plan/import_graph.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::TempDir;
using test::writeFile;

/// Parses the files for real (no plugins) and returns their summaries in path order.
std::vector<ModuleSummary> summaries(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<ModuleSummary> out;
  for (const auto& [path, source] : files) {
    std::vector<sdk::Finding> findings;
    std::vector<sdk::Diagnostic> diagnostics;
    ModuleSummary s;
    analyzePythonSource(path, source, {}, nullptr, findings, diagnostics, &s);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

std::vector<std::string> importsOf(const std::vector<sdk::ModuleNode>& graph, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& n : graph)
    if (n.path == path)
      for (std::size_t i : n.imports) out.push_back(graph[i].path);
  return out;
}

const sdk::ModuleNode& node(const std::vector<sdk::ModuleNode>& graph, const std::string& path) {
  for (const auto& n : graph)
    if (n.path == path) return n;
  throw std::runtime_error("no node " + path);
}

TEST(ModuleSummary, DocstringMainBlockDefinitionsAndClassCalls) {
  const auto m = summaries({{"pkg/net.py",
                             "\"\"\"A small network.\n\nMore text.\"\"\"\n"
                             "import torch.nn as nn\n"
                             "class Net(nn.Module):\n"
                             "    \"\"\"The net.\"\"\"\n"
                             "    def __init__(self):\n"
                             "        self.a = nn.Linear(2, 2)\n"
                             "        self.b = nn.Linear(2, 2)\n"
                             "def helper():\n"
                             "    return nn.ReLU()\n"
                             "if __name__ == \"__main__\":\n"
                             "    helper()\n"}})[0];
  EXPECT_EQ(m.dotted_name, "pkg.net");
  EXPECT_EQ(m.docstring, "A small network.");
  EXPECT_TRUE(m.main_block);
  EXPECT_EQ(m.lines, 13u);
  ASSERT_EQ(m.top_level.size(), 2u);
  EXPECT_EQ(m.top_level[1].name, "helper");
  ASSERT_EQ(m.classes.size(), 1u);
  EXPECT_EQ(m.classes[0].bases, std::vector<std::string>{"torch.nn.Module"});
  EXPECT_EQ(m.classes[0].docstring, "The net.");
  EXPECT_EQ(m.classes[0].calls.at("torch.nn.Linear"), 2);
  EXPECT_EQ(m.classes[0].calls.count("torch.nn.ReLU"), 0u);  // outside the class
}

TEST(ModuleSummary, NoMainBlockForOtherComparisons) {
  const auto m = summaries({{"a.py", "x = 1\nif x == '__mian__':\n    pass\n"}})[0];
  EXPECT_FALSE(m.main_block);
  EXPECT_EQ(m.docstring, "");
}

TEST(ImportGraph, ResolvesAbsoluteRelativeAndPackageImports) {
  const auto mods = summaries({
      {"train.py",
       "import torch\nimport numpy as np\nimport os\nfrom gpt.model import GPT\nimport helpers\n"},
      {"helpers.py", "import json\n"},
      {"gpt/__init__.py", "from .config import Config\n"},
      {"gpt/config.py", "import dataclasses\n"},
      {"gpt/model.py", "from . import config\nfrom .layers.attn import attend\nimport flash_attn\n"},
      {"gpt/layers/__init__.py", ""},
      {"gpt/layers/attn.py", "from ..config import Config\nimport torch.nn.functional as F\n"},
  });
  const auto graph = buildImportGraph(mods);
  ASSERT_EQ(graph.size(), 7u);
  // gpt.model.GPT → gpt/model.py, and the package gpt/__init__.py runs first.
  EXPECT_EQ(importsOf(graph, "train.py"),
            (std::vector<std::string>{"gpt/__init__.py", "gpt/model.py", "helpers.py"}));
  EXPECT_EQ(importsOf(graph, "gpt/model.py"),
            (std::vector<std::string>{"gpt/__init__.py", "gpt/config.py", "gpt/layers/__init__.py",
                                      "gpt/layers/attn.py"}));
  EXPECT_EQ(importsOf(graph, "gpt/layers/attn.py"),
            (std::vector<std::string>{"gpt/__init__.py", "gpt/config.py"}));
  // Libraries: not the project, not the standard library.
  EXPECT_EQ(node(graph, "train.py").libraries, (std::vector<std::string>{"numpy", "torch"}));
  EXPECT_EQ(node(graph, "gpt/model.py").libraries, std::vector<std::string>{"flash_attn"});
  EXPECT_TRUE(node(graph, "helpers.py").libraries.empty());
}

TEST(ImportGraph, SrcLayoutSiblingScriptsAndNoLoneSuffixMatch) {
  const auto mods = summaries({
      {"src/mypkg/__init__.py", ""},
      {"src/mypkg/core.py", "import mypkg.util\n"},
      {"src/mypkg/util.py", ""},
      {"tools/run.py", "import common\nimport torch\n"},
      {"tools/common.py", ""},
      {"vendor/torch.py", ""},
  });
  const auto graph = buildImportGraph(mods);
  EXPECT_EQ(importsOf(graph, "src/mypkg/core.py"),
            (std::vector<std::string>{"src/mypkg/__init__.py", "src/mypkg/util.py"}));
  EXPECT_EQ(importsOf(graph, "tools/run.py"), std::vector<std::string>{"tools/common.py"});
  // `import torch` is the library, not vendor/torch.py found by its last name.
  EXPECT_EQ(node(graph, "tools/run.py").libraries, std::vector<std::string>{"torch"});
}

TEST(LaunchLine, LaunchersAndTargets) {
  auto one = [](const std::string& line) {
    const auto cmds = parseLaunchLine(line);
    return cmds.size() == 1 ? cmds[0].launcher + " " + cmds[0].target
                            : std::to_string(cmds.size()) + " commands";
  };
  EXPECT_EQ(one("torchrun --standalone --nproc_per_node=\"${N}\" train.py --device cuda"),
            "torchrun train.py");
  EXPECT_EQ(one("python -m torch.distributed.launch --nproc_per_node 8 tools/train.py cfg.yaml"),
            "torch.distributed.launch tools/train.py");
  EXPECT_EQ(one("accelerate launch --config_file a.yaml finetune.py"), "accelerate finetune.py");
  EXPECT_EQ(one("mpirun -np 4 python3 bench.py"), "mpirun bench.py");
  EXPECT_EQ(one("CUDA_VISIBLE_DEVICES=0 /usr/bin/python3.11 -m mypkg.serve --port 80"),
            "python -m mypkg.serve");
  EXPECT_EQ(one("deepspeed --num_gpus 2 'train ds.py'"), "deepspeed train ds.py");
  EXPECT_EQ(one("python a.py && python b.py"), "2 commands");
  EXPECT_EQ(one("echo train.py; ls *.py"), "0 commands");
  EXPECT_EQ(one("python \"$SCRIPT\""), "0 commands");
}

TEST(EntryPoints, MainBlocksTestsConsoleAndLaunchScripts) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> py{
      {"train.py", "if __name__ == '__main__':\n    pass\n"},
      {"pkg/__init__.py", ""},
      {"pkg/cli.py", "def main():\n    pass\n"},
      {"pkg/serve.py", "def run():\n    pass\n"},
      {"tests/test_pkg.py", "if __name__ == '__main__':\n    pass\n"},
      {"setup.py",
       "from setuptools import setup\nsetup(entry_points={'console_scripts': ['pkg-cli = pkg.cli:main']})\n"},
  };
  for (const auto& [p, s] : py) writeFile(dir / p, s);
  writeFile(
      dir / "pyproject.toml",
      "[project]\nname='pkg'\n[project.scripts]\npkg-serve = \"pkg.serve:run\"\n[tool.x]\na = \"b:c\"\n");
  writeFile(dir / "scripts/run.sh",
            "#!/bin/sh\n# python commented.py\ncd \"$(dirname \"$0\")/..\"\ntorchrun --nproc_per_node 8 \\\n "
            " train.py \\\n  --x 1\n");
  std::vector<sdk::Diagnostic> diags;
  const Workspace ws = buildInventory(dir.path(), {}, diags);
  const auto mods = summaries(py);
  const auto entries = findEntryPoints(mods, ws);
  std::vector<std::string> got;
  for (const auto& e : entries) {
    std::string modules;
    for (std::size_t m : e.modules) modules += " " + mods[m].path;
    got.push_back(std::string(sdk::toString(e.kind)) + " " + e.name + " [" + e.file + "] " + e.launcher +
                  ":" + modules);
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "main_block train.py [train.py] : train.py",
                     "console_script pkg-cli [setup.py] : pkg/cli.py",
                     "console_script pkg-serve [pyproject.toml] : pkg/serve.py",
                     "launch_script scripts/run.sh [scripts/run.sh] torchrun: train.py",
                     "test_module tests/test_pkg.py [tests/test_pkg.py] : tests/test_pkg.py",
                 }));
  const auto& launch = entries[3];
  EXPECT_EQ(launch.labels, (std::vector<std::string>{"scripts/run.sh", "launcher:torchrun", "train.py"}));
}

sdk::Finding finding(const std::string& rule, const std::string& file, std::uint32_t line,
                     const std::string& api, const std::string& alt, sdk::Level difficulty, double effort,
                     bool fix = false) {
  sdk::Finding f;
  f.rule_id = rule;
  f.domain = rule.substr(0, rule.find('-')) == "DEV" ? "device" : "custom_ops";
  f.file = file;
  f.range.line = line;
  f.range.column = 1;
  f.api = api;
  f.resolved_api = api;
  f.npu_alternative = alt;
  f.difficulty = difficulty;
  f.effort_days = effort;
  if (fix) f.edits.push_back({0, 1, "x"});
  return f;
}

TEST(Bottlenecks, GroupingEffortScopeAndOrder) {
  const auto mods = summaries({
      {"lib.py", ""},
      {"a.py", "import lib\nif __name__ == '__main__':\n    pass\n"},
      {"b.py", "import lib\nif __name__ == '__main__':\n    pass\n"},
      {"c.py", "import a\n"},
  });
  const auto graph = buildImportGraph(mods);
  std::vector<sdk::EntryPoint> entries;
  for (std::size_t i = 0; i < mods.size(); ++i)
    if (mods[i].main_block)
      entries.push_back({sdk::EntryPoint::Kind::MainBlock, mods[i].path, mods[i].path, "", {i}, {}});
  std::vector<sdk::Finding> f{
      finding("DEV-001", "a.py", 3, "torch.cuda.synchronize", "torch.npu.synchronize", sdk::Level::Low, 0.02,
              true),
      finding("DEV-001", "b.py", 1, "torch.cuda.synchronize", "torch.npu.synchronize", sdk::Level::Low, 0.02,
              true),
      finding("DEV-001", "lib.py", 1, "torch.cuda.synchronize", "torch.npu.synchronize", sdk::Level::Low,
              0.02, true),
      finding("DEV-001", "lib.py", 2, "torch.cuda.device_count", "torch.npu.device_count", sdk::Level::Low,
              0.02, true),
      finding("OPS-001", "k.cu", 5, "k1", "native ops", sdk::Level::High, 0.0),
      finding("OPS-001", "k.cu", 9, "k2", "native ops", sdk::Level::High, 0.0),
      finding("OPS-009", "c.py", 1, "x", "y", sdk::Level::Medium, 0.0),
      finding("DEV-050", "a.py", 9, "info", "none", sdk::Level::Low, 0.0),
  };
  f[4].details["group"] = "k1";
  f[5].details["group"] = "k2";
  f[7].severity = sdk::Severity::Info;
  PlanSpec spec = defaultPlanSpec();
  spec.rules["OPS-009"] = {1.5, 0.25};
  const auto bs = buildBottlenecks(f, {{"DEV-001", "CUDA runtime API"}}, graph, entries, spec);
  std::vector<std::string> got;
  for (const auto& b : bs) {
    char days[32];
    std::snprintf(days, sizeof days, "%g", b.effort_days);
    got.push_back(b.id + " " + b.rule_id + " " + b.apis.front() + " " + b.scope + " " + days +
                  " n=" + std::to_string(b.findings.size()));
  }
  // Scopes: lib.py is reached from both entry points and imported by 2 modules → global; a.py is
  // imported by c.py → module; k.cu is native → module; c.py is imported by nobody → local.
  // Effort: DEV-001 sync 0.02 + 2 × min(low.each 0.02, 0.02) = 0.06; device_count 0.02; OPS-001
  // high without own effort: 2.0 each; OPS-009 by the per-rule rate: 1.5.
  EXPECT_EQ(got, (std::vector<std::string>{
                     "#001 DEV-001 torch.cuda.synchronize global 0.06 n=3",
                     "#002 DEV-001 torch.cuda.device_count global 0.02 n=1",
                     "#003 OPS-001 k1 module 2 n=1",
                     "#004 OPS-001 k2 module 2 n=1",
                     "#005 OPS-009 x local 1.5 n=1",
                 }));
  EXPECT_EQ(bs[0].title, "CUDA runtime API");
  EXPECT_TRUE(bs[0].autofix);
  EXPECT_FALSE(bs[2].autofix);
  EXPECT_EQ(bs[0].scope_reason, "lib.py is reached from 2 of 2 entry points");
  EXPECT_NE(bs[2].steps.front().find("TODO(OPS-001)"), std::string::npos) << bs[2].steps.front();
  EXPECT_NE(bs[0].steps.front().find("automatic fix"), std::string::npos);
}

TEST(Bottlenecks, EffortRateFollowsTheModel) {
  PlanSpec spec = defaultPlanSpec();
  const EffortRate own = effortRate(spec, "X-1", sdk::Level::Medium, 0.05);
  EXPECT_DOUBLE_EQ(own.first, 0.05);
  EXPECT_DOUBLE_EQ(own.each, 0.05);  // medium each 0.1 capped at first
  const EffortRate level = effortRate(spec, "X-1", sdk::Level::High, 0.0);
  EXPECT_DOUBLE_EQ(level.first, 2.0);
  EXPECT_DOUBLE_EQ(level.each, 0.5);
  spec.difficulty["high"] = {4.0, 1.0};
  EXPECT_DOUBLE_EQ(effortRate(spec, "X-1", sdk::Level::High, 0.0).first, 4.0);
}

TEST(CodeStructure, LayerCategories) {
  EXPECT_EQ(layerCategory("torch.nn.Linear"), "linear");
  EXPECT_EQ(layerCategory("torch.nn.Conv2d"), "conv");
  EXPECT_EQ(layerCategory("torch.nn.MultiheadAttention"), "attention");
  EXPECT_EQ(layerCategory("torch.nn.functional.scaled_dot_product_attention"), "attention");
  EXPECT_EQ(layerCategory("flash_attn.flash_attn_func"), "attention");
  EXPECT_EQ(layerCategory("torch.nn.LayerNorm"), "norm");
  EXPECT_EQ(layerCategory("torch.nn.GELU"), "activation");
  EXPECT_EQ(layerCategory("torch.nn.functional.silu"), "activation");
  EXPECT_EQ(layerCategory("torch.nn.Embedding"), "embedding");
  EXPECT_EQ(layerCategory("torch.nn.ModuleList"), "container");
  EXPECT_EQ(layerCategory("torch.nn.Parameter"), "");
  EXPECT_EQ(layerCategory("torch.nn.init.normal_"), "");
  EXPECT_EQ(layerCategory("torch.matmul"), "");
}

TEST(CodeStructure, ModelsLanguagesAndCoreModules) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> py{
      {"net/__init__.py", "\"\"\"Networks.\"\"\"\n"},
      {"net/blocks.py",
       "import torch.nn as nn\nfrom net.fused import fused_op\n"
       "class Base(nn.Module):\n    pass\n"
       "class Attention(Base):\n    def __init__(self):\n        self.q = nn.Linear(4, 4)\n"
       "    def forward(self, x):\n        return fused_op(x)\n"
       "class Model(Base):\n    \"\"\"The model.\"\"\"\n    def __init__(self):\n"
       "        self.att = Attention()\n        self.norm = nn.LayerNorm(4)\n        self.emb = "
       "nn.Embedding(9, 4)\n"},
      {"net/fused.py", "def fused_op(x):\n    return x\n"},
  };
  for (const auto& [p, s] : py) writeFile(dir / p, s);
  writeFile(dir / "k.cu", "__global__ void k() {}\n// two\n// three\n");
  std::vector<sdk::Diagnostic> diags;
  const Workspace ws = buildInventory(dir.path(), {}, diags);
  const auto mods = summaries(py);
  const auto graph = buildImportGraph(mods);
  std::vector<sdk::Finding> findings{finding("OPS-030", "net/fused.py", 2, "fused", "x", sdk::Level::Low, 0)};
  const CodeStructure s = describeCode(mods, graph, {}, findings, ws);
  EXPECT_EQ(s.files, 4u);
  ASSERT_EQ(s.languages.size(), 4u);
  EXPECT_EQ(s.languages[1].language, "CUDA");
  EXPECT_EQ(s.languages[1].lines, 3u);
  ASSERT_EQ(s.models.size(), 3u);  // Base, Attention (through Base), Model
  const ModelClass& model = s.models[2];
  EXPECT_EQ(model.name, "Model");
  EXPECT_EQ(model.description, "The model.");
  EXPECT_EQ(model.submodules, std::vector<std::string>{"Attention"});
  EXPECT_EQ(model.layers.at("norm"), std::vector<std::string>{"LayerNorm"});
  EXPECT_EQ(model.layers.at("embedding"), std::vector<std::string>{"Embedding"});
  EXPECT_EQ(model.layers.at("attention"), std::vector<std::string>{"Attention"});
  EXPECT_EQ(s.models[1].custom_ops, std::vector<std::string>{"net.fused.fused_op"});
  ASSERT_FALSE(s.core_modules.empty());
  EXPECT_EQ(s.core_modules[0].path, "net/fused.py");  // imported by blocks.py
  EXPECT_EQ(s.core_modules[0].description, "defines fused_op");
}

TEST(PlanSpec, DefaultsOverridesAndErrors) {
  TempDir dir;
  const std::string base = "version: 1\nsource: {path: .}\nplugins: [device]\n";
  writeFile(dir / "p.yaml",
            base +
                "plan:\n  goal: inference_only\n  effort:\n    difficulty:\n      high: {first: 5}\n"
                "    rules:\n      OPS-001: {first: 4}\n"
                "  goals:\n    export_only: {title: Export, phases: [export]}\n"
                "    distributed_training: null\n");
  auto spec = loadPipeline(dir / "p.yaml", {});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const PlanSpec& plan = spec->plan;
  EXPECT_EQ(plan.goal, "inference_only");
  EXPECT_DOUBLE_EQ(plan.difficulty.at("high").first, 5.0);
  EXPECT_DOUBLE_EQ(plan.difficulty.at("high").each, 0.5);  // kept from the defaults
  EXPECT_DOUBLE_EQ(plan.rules.at("OPS-001").each, 4.0);    // `each` defaults to `first`
  std::vector<std::string> goals;
  for (const auto& g : plan.goals) goals.push_back(g.name);
  EXPECT_EQ(goals, (std::vector<std::string>{"inference_only", "single_card_training", "export_only"}));
  EXPECT_EQ(plan.phases.size(), 7u);
  EXPECT_NE(dumpPipeline(*spec).find("export_only"), std::string::npos);

  auto fails = [&](const std::string& plan_yaml, const std::string& expected) {
    writeFile(dir / "bad.yaml", base + plan_yaml);
    auto bad = loadPipeline(dir / "bad.yaml", {});
    ASSERT_FALSE(bad.ok()) << plan_yaml;
    EXPECT_NE(bad.error().message.find(expected), std::string::npos) << bad.error().message;
  };
  fails("plan:\n  goal: everything\n", "bad.yaml:5:9: plan.goal 'everything' is not one of the goals");
  fails("plan:\n  goals:\n    g: {phases: [trian]}\n",
        "needs phase 'trian', which plan.phases does not declare; did you mean 'train'?");
  fails("plan:\n  effort: {days_per_week: 0}\n", "days_per_week must be between");
  fails("plan:\n  effort: {integration_factor: -1}\n", "must not be negative");
  fails("plan:\n  phases:\n    - {name: a}\n    - {name: a}\n", "phase 'a' is declared twice");
  fails("plan:\n  phases: [{name: Train}]\n", "lowercase letters");
  fails("plan:\n  efort: {}\n", "unknown key 'efort'");
}

TEST(PlanSpec, WeeksRoundUpToHalfWeeks) {
  sdk::EffortSettings e;  // 5 days a week, +30 %
  EXPECT_DOUBLE_EQ(e.weeksFor(0), 0.0);
  EXPECT_DOUBLE_EQ(e.weeksFor(1), 0.5);   // 0.26 weeks
  EXPECT_DOUBLE_EQ(e.weeksFor(10), 3.0);  // 2.6 weeks
  EXPECT_DOUBLE_EQ(e.weeksFor(25), 6.5);  // exactly 6.5
}

}  // namespace
}  // namespace migrate
