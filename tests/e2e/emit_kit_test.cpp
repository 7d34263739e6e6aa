// The emit stage end to end on the bundled example, through the CLI (stages analyze, plan, emit;
// verify has tests of its own): the kit is complete and
// listed in emit.json; the patch applies to the original tree and reproduces the adapted one;
// every generated Python file passes pyflakes and every generated script shellcheck; the run
// on its own output changes nothing; and the adapted project, run on this CPU-only machine with
// /usr/bin/python3 and Debian's torch, gives the same outputs as the original.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using json = nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
namespace fs = std::filesystem;

const fs::path kExample = test::sourceDir() / "examples" / "gpt_cuda";

test::CommandResult runPipeline(const fs::path& source, const fs::path& out, const std::string& extra = "") {
  return run(quote(test::cli().string()) + " run " +
             quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
             quote(source.string()) + " --output " + quote(out.string()) +
             " --set jobs=2 --set 'stages=[analyze, plan, emit]' " + extra);
}

/// The example, run once for all tests of the suite.
class EmitKit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const auto r = runPipeline(kExample, out());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }
  static json manifest() { return json::parse(readFile(out() / "emit.json")); }

  static TempDir* dir_;
};
TempDir* EmitKit::dir_ = nullptr;

TEST_F(EmitKit, EmitJsonListsTheKitAndEveryListedFileExists) {
  const json m = manifest();
  EXPECT_EQ(m["schema_version"], 1);
  std::set<std::string> kinds;
  for (const auto& f : m["files"]) {
    EXPECT_TRUE(fs::exists(out() / f["path"].get<std::string>())) << f["path"];
    kinds.insert(f["kind"].get<std::string>());
  }
  for (const char* kind : {"adapted-tree", "patch", "support-module", "plugin:deps", "plugin:custom_ops"})
    EXPECT_TRUE(kinds.count(kind)) << kind;
  for (const char* file : {"npu_compat.py", "npu_ops.py", "requirements-npu.txt", "build_ascend_ops.sh",
                           "triton_notes.md", "adapted/npu_compat.py", "adapted/npu_ops.py"})
    EXPECT_TRUE(fs::exists(out() / file)) << file;
  EXPECT_GT(m["summary"]["findings_fixed"].get<int>(), 50);
  EXPECT_GT(m["manual_work"].size(), 10u);
  for (const auto& w : m["manual_work"]) EXPECT_FALSE(w["what"].get<std::string>().empty());
  // Support modules in the kit and in the adapted tree are the same file.
  EXPECT_EQ(readFile(out() / "npu_ops.py"), readFile(out() / "adapted" / "npu_ops.py"));
  // Only the operators the example uses: flash-attn and xformers wrappers, not SwiGLU.
  const std::string ops = readFile(out() / "npu_ops.py");
  EXPECT_NE(ops.find("def flash_attn_varlen_func("), std::string::npos);
  EXPECT_NE(ops.find("def memory_efficient_attention("), std::string::npos);
  EXPECT_EQ(ops.find("def swiglu("), std::string::npos);
}

TEST_F(EmitKit, ThePatchAppliesToTheOriginalTreeAndGivesTheAdaptedOne) {
  TempDir copy;
  const fs::path tree = copy / "gpt_cuda";
  ASSERT_EQ(run("cp -r " + quote(kExample.string()) + " " + quote(tree.string())).exit_code, 0);
  run("find " + quote(tree.string()) + " -name __pycache__ -prune -exec rm -rf {} +");
  const std::string in_tree = "cd " + quote(tree.string()) + " && ";
  ASSERT_EQ(run(in_tree + "git init -q . && git add -A").exit_code, 0);
  const std::string patch = quote((out() / "npu_migration.patch").string());
  const auto check = run(in_tree + "git apply --check " + patch);
  ASSERT_EQ(check.exit_code, 0) << check.output;
  EXPECT_EQ(check.output, "");
  ASSERT_EQ(run(in_tree + "git apply " + patch).exit_code, 0);
  const auto diff =
      run("diff -r -x .git " + quote(tree.string()) + " " + quote((out() / "adapted").string()));
  EXPECT_EQ(diff.exit_code, 0) << diff.output;
}

TEST_F(EmitKit, TheChangeListHasEveryEditImportAndTodoOfTheAdaptedFiles) {
  const json m = manifest();
  std::size_t todos = 0, compat_imports = 0;
  for (const auto& f : m["adapted"]) {
    todos += f["todos"].get<std::size_t>();
    const std::string path = f["path"].get<std::string>();
    if (fs::path(path).extension() == ".py" && f["edits"].get<int>() > 0 &&
        readFile(out() / "adapted" / path).find("import npu_compat  # added by migrate-pipeline") !=
            std::string::npos)
      ++compat_imports;
  }
  // kind → rows, and one DEV-001 fix as written (Python's csv module reads the table).
  const auto r = run(
      "/usr/bin/python3 -c " +
      quote("import collections, csv, json, sys\n"
            "rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))\n"
            "kinds = collections.Counter(r['kind'] for r in rows)\n"
            "fix = [r for r in rows if r['rule'] == 'DEV-001' and r['before'] == 'torch.cuda.is_available']\n"
            "print(json.dumps({'kinds': kinds, 'fix': fix[:1]}))") +
      " " + quote((out() / "change_list.csv").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json table = json::parse(r.output);
  EXPECT_EQ(table["kinds"]["fix"], m["summary"]["edits_applied"]);
  EXPECT_EQ(table["kinds"].value("todo", 0u), todos);
  EXPECT_GE(table["kinds"]["import"].get<std::size_t>(), compat_imports);
  ASSERT_EQ(table["fix"].size(), 1u) << r.output;
  EXPECT_EQ(table["fix"][0]["after"], "torch.npu.is_available");
  const std::string file = table["fix"][0]["file"];
  const int line = std::stoi(table["fix"][0]["line"].get<std::string>());
  std::istringstream original(readFile(kExample / file));
  std::string text;
  for (int i = 0; i < line; ++i) std::getline(original, text);
  EXPECT_NE(text.find("torch.cuda.is_available"), std::string::npos) << file << ":" << line;
}

TEST_F(EmitKit, GeneratedPythonPassesPyflakesAndScriptsPassShellcheck) {
  std::string python = "npu_compat.py npu_ops.py verify_precision.py verify_pytest_plugin.py";
  const json m = manifest();  // held: a range-for over a temporary's member would dangle
  for (const auto& f : m["adapted"]) {
    const std::string path = f["path"].get<std::string>();
    if (fs::path(path).extension() == ".py") python.append(" ").append(quote("adapted/" + path));
  }
  const std::string here = "cd " + quote(out().string()) + " && ";
  const auto flakes = run(here + "/usr/bin/python3 -m pyflakes " + python);
  EXPECT_EQ(flakes.exit_code, 0) << flakes.output;
  const auto compiled = run(here + "/usr/bin/python3 -m py_compile " + python);
  EXPECT_EQ(compiled.exit_code, 0) << compiled.output;
  const auto shell = run(here + "shellcheck build_ascend_ops.sh");
  EXPECT_EQ(shell.exit_code, 0) << shell.output;
}

TEST_F(EmitKit, RunningOnItsOwnOutputChangesNothing) {
  TempDir again;
  const auto r = runPipeline(out() / "adapted", again / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(readFile(again / "out" / "npu_migration.patch"), "");
  // py_compile in another test of the suite may have left __pycache__ (the run excludes it).
  const auto diff = run("diff -r -x __pycache__ " + quote((out() / "adapted").string()) + " " +
                        quote((again / "out" / "adapted").string()));
  EXPECT_EQ(diff.exit_code, 0) << diff.output;
  EXPECT_EQ(json::parse(readFile(again / "out" / "emit.json"))["summary"]["edits_applied"], 0);
}

/// Runs the example's training (3 steps) and inference in `project` on the CPU; returns the
/// outputs (losses.json and infer.json) or fails.
std::string trainAndInfer(const fs::path& project, const std::string& train_script, const fs::path& work) {
  const std::string here = "cd " + quote(project.string()) + " && ";
  const auto train = run(here + "/usr/bin/python3 " + train_script + " --steps 3 --seed 0 --out-dir " +
                         quote(work.string()));
  EXPECT_EQ(train.exit_code, 0) << train.output;
  const std::string infer_script = train_script == "train.py" ? "infer.py" : "infer_npu.py";
  const auto infer =
      run(here + "/usr/bin/python3 " + infer_script + " --checkpoint " + quote((work / "ckpt.pt").string()) +
          " --output " + quote((work / "infer.json").string()));
  EXPECT_EQ(infer.exit_code, 0) << infer.output;
  return readFile(work / "losses.json") + "\n" + readFile(work / "infer.json");
}

TEST_F(EmitKit, TheAdaptedProjectRunsOnTheCpuWithTheOriginalsOutputs) {
  TempDir work;
  const std::string original = trainAndInfer(kExample, "train.py", work / "original");
  const std::string adapted = trainAndInfer(out() / "adapted", "train.py", work / "adapted");
  ASSERT_FALSE(original.size() < 100) << original;
  EXPECT_EQ(adapted, original);
  // The project's own tests pass: the config's default device became "npu" (DEV-023) and the
  // test asserting it expects "npu" (DEV-052).
  const auto tests =
      run("cd " + quote((out() / "adapted").string()) + " && /usr/bin/python3 -m unittest discover -s tests");
  EXPECT_EQ(tests.exit_code, 0) << tests.output;
  EXPECT_NE(tests.output.find("Ran 17 tests"), std::string::npos) << tests.output;
}

TEST(EmitLayouts, SiblingsLayoutWritesNpuModulesThatImportEachOtherAndRun) {
  TempDir dir;
  const auto r = runPipeline(kExample, dir / "out", "--set emit.layout=siblings");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path adapted = dir / "out" / "adapted";
  EXPECT_EQ(readFile(adapted / "train.py"), readFile(kExample / "train.py"));  // originals untouched
  const std::string train = readFile(adapted / "train_npu.py");
  EXPECT_NE(train.find("from gpt.model_npu import"), std::string::npos);
  EXPECT_NE(readFile(adapted / "gpt" / "model_npu.py").find("from gpt.attention_npu import"),
            std::string::npos);
  const auto flakes =
      run("cd " + quote(adapted.string()) + " && /usr/bin/python3 -m pyflakes $(find . -name '*_npu.py')");
  EXPECT_EQ(flakes.exit_code, 0) << flakes.output;
  TempDir work;
  EXPECT_EQ(trainAndInfer(adapted, "train_npu.py", work / "npu"),
            trainAndInfer(kExample, "train.py", work / "orig"));
}

TEST(EmitStage, WithoutAnalyzeTheRunFailsAndSaysWhy) {
  TempDir dir;
  const auto r = runPipeline(kExample, dir / "out", "--set 'stages=[emit]'");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_NE(r.output.find("the emit stage needs the analyze stage"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir / "out" / "findings.json"));
}

TEST(EmitStage, ARunIntoTheSameDirectoryRemovesTheKitFilesOfTheRunBefore) {
  TempDir dir;
  ASSERT_EQ(runPipeline(kExample, dir / "out").exit_code, 0);
  ASSERT_TRUE(fs::exists(dir / "out" / "build_ascend_ops.sh"));
  test::writeFile(dir / "small" / "train.py", "import torch\nx = torch.zeros(2, device=\"cuda\")\n");
  const auto r = runPipeline(dir / "small", dir / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* stale :
       {"build_ascend_ops.sh", "ascend_ops", "triton_notes.md", "npu_ops.py", "requirements-npu.txt"})
    EXPECT_FALSE(fs::exists(dir / "out" / stale)) << stale;
  EXPECT_TRUE(fs::exists(dir / "out" / "npu_compat.py"));
  EXPECT_TRUE(fs::exists(dir / "out" / "adapted" / "train.py"));
  EXPECT_FALSE(fs::exists(dir / "out" / "adapted" / "gpt"));
}

TEST(EmitStage, TheCopyKeepsBinaryFilesAndInsideLinksAndLeavesOutEscapingLinks) {
  TempDir dir;
  const fs::path repo = dir / "repo";
  test::writeFile(repo / "train.py", "import torch\nx = torch.zeros(2, device=\"cuda\")\n");
  test::writeFile(repo / "weights.bin", std::string("\0\x01\x02\xff", 4));
  test::writeFile(repo / "latin1.py", "# caf\xe9\nimport torch\ntorch.cuda.synchronize()\n");
  fs::create_symlink("train.py", repo / "main.py");
  fs::create_symlink("/etc/hostname", repo / "outside");
  const auto r = runPipeline(repo, dir / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path adapted = dir / "out" / "adapted";
  EXPECT_EQ(readFile(adapted / "weights.bin"), readFile(repo / "weights.bin"));
  EXPECT_TRUE(fs::is_symlink(adapted / "main.py"));
  EXPECT_EQ(fs::read_symlink(adapted / "main.py"), "train.py");
  EXPECT_FALSE(fs::exists(fs::symlink_status(adapted / "outside")));
  EXPECT_NE(readFile(adapted / "train.py").find("device=\"npu\""), std::string::npos);
  // Not UTF-8: the edit is made on the bytes, the rest of the file is kept as it was.
  EXPECT_NE(readFile(adapted / "latin1.py").find("# caf\xe9\n"), std::string::npos);
  EXPECT_NE(readFile(adapted / "latin1.py").find("torch.npu.synchronize()"), std::string::npos);
  const json findings = json::parse(readFile(dir / "out" / "findings.json"));
  bool escaping = false;
  for (const auto& d : findings["diagnostics"]) escaping = escaping || d["code"] == "symlink-escapes";
  EXPECT_TRUE(escaping);
}

// YAML configuration files get the renames of the settings they hold (DEV-023 device strings,
// DIST-001 backends) in adapted/; the Lightning accelerator, which needs an NPU accelerator
// registered, gets a TODO; comments and other keys are untouched.
TEST(EmitStage, ConfigFilesGetTheDeviceAndBackendRenames) {
  TempDir dir;
  const fs::path repo = dir / "repo";
  test::writeFile(repo / "train.py", "import hydra\n");
  const std::string config =
      "# device: cuda stays a comment\ntrainer:\n  accelerator: gpu\n  device: \"cuda:0\"\n"
      "distributed:\n  backend: nccl\nenv: cuda-env\n";
  test::writeFile(repo / "configs" / "train.yaml", config);
  const auto r = runPipeline(repo, dir / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The accelerator gets the TODO comment of a finding without a fix (a YAML comment too).
  EXPECT_EQ(readFile(dir / "out" / "adapted" / "configs" / "train.yaml"),
            "# device: cuda stays a comment\ntrainer:\n  # TODO(migrate-pipeline DEV-049): accelerator "
            "\"gpu\" makes "
            "Lightning (Trainer / Fabric) look for CUDA devices and fails on an Ascend host; Lig...\n"
            "  accelerator: gpu\n  device: \"npu:0\"\ndistributed:\n  backend: hccl\nenv: cuda-env\n");
  EXPECT_EQ(readFile(repo / "configs" / "train.yaml"), config) << "the source repository is never modified";
  const json findings = json::parse(readFile(dir / "out" / "findings.json"));
  std::vector<std::string> rules;
  for (const auto& f : findings["findings"])
    if (f["file"] == "configs/train.yaml")
      rules.push_back(f["rule_id"].get<std::string>() + ":" + std::to_string(f["line"].get<int>()));
  EXPECT_EQ(rules, (std::vector<std::string>{"DEV-049:3", "DEV-023:4", "DIST-001:6"}));
}

// Ray on an Ascend host: placement-group bundles ask for the "NPU" resource (DEV-069) and the
// NOSET variable becomes the one Ray's NPU accelerator manager reads (DEV-037); the adapted file
// still compiles.
TEST(EmitStage, RayBundlesAndVariablesAskForNpus) {
  TempDir dir;
  const fs::path repo = dir / "repo";
  const std::string source =
      "import os\nimport ray\nfrom ray.util.placement_group import placement_group\n\n\n"
      "def engines(n):\n"
      "    noset = os.environ.get(\"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES\", \"0\") == \"1\"\n"
      "    bundles = [{\"GPU\": 1, \"CPU\": 1} for _ in range(n)]\n"
      "    labels = {\"kind\": \"GPU\"}\n"
      "    return noset, placement_group(bundles, strategy=\"PACK\"), labels\n";
  test::writeFile(repo / "engines.py", source);
  const auto r = runPipeline(repo, dir / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path adapted = dir / "out" / "adapted" / "engines.py";
  const std::string text = readFile(adapted);
  EXPECT_NE(text.find("os.environ.get(\"RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES\", \"0\")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[{\"NPU\": 1, \"CPU\": 1} for _ in range(n)]"), std::string::npos) << text;
  EXPECT_NE(text.find("{\"kind\": \"GPU\"}"), std::string::npos) << "a value, not a resource key";
  EXPECT_EQ(readFile(repo / "engines.py"), source) << "the source repository is never modified";
  const auto compiled = run("/usr/bin/python3 -m py_compile " + quote(adapted.string()));
  EXPECT_EQ(compiled.exit_code, 0) << compiled.output;
}

}  // namespace
}  // namespace migrate
