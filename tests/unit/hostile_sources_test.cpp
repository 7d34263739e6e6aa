// Readers of files that are not Python, on hostile input, through the real executable and its
// plugins: each input below once took minutes or hours, or crashed the run (found by the fuzz
// targets, docs/fuzzing.md).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::quote;
using test::TempDir;
using test::writeFile;

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

/// `migrate-pipeline run pipelines/analyze-only.yaml` on `repo`: findings.json, or a failure.
nlohmann::json analyze(const TempDir& repo, const TempDir& out) {
  auto r = test::run(quote(test::cli().string()) + " run " +
                     quote((test::sourceDir() / "pipelines" / "analyze-only.yaml").string()) + " --source " +
                     quote(repo.path().string()) + " --output " + quote(out.path().string()) + " -q");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? nlohmann::json::parse(test::readFile(out / "findings.json")) : nlohmann::json();
}

/// (rule id, line) of each finding in `file`.
std::vector<std::pair<std::string, int>> findingsIn(const nlohmann::json& doc, const std::string& file) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& f : doc["findings"])
    if (f["file"] == file) out.emplace_back(f["rule_id"].get<std::string>(), f["line"].get<int>());
  return out;
}

bool has(const std::vector<std::pair<std::string, int>>& found, const std::string& rule, int line) {
  return std::find(found.begin(), found.end(), std::make_pair(rule, line)) != found.end();
}

// Found by fuzz_cuda_source.
TEST(HostileSources, CudaSourcesAreScannedInLinearTime) {
  TempDir repo;
  // A launch target was looked up with a regex over all of the function's text before each
  // launch: quadratic over a function of thousands of launches.
  writeFile(repo / "csrc/launches.cu",
            "__global__ void scale(float* x) { x[0] *= 2; }\n"
            "void run(float* x) {\n  auto k = &scale;\n" +
                repeated("  k<<<1, 1>>>(x);\n", 20000) + "}\n");
  // Children were taken with ts_node_child(n, i): quadratic over an unclosed expression.
  writeFile(repo / "csrc/unclosed.cu", "void g() { int x = " + repeated("(", 50000) + "\n");
  // Each `__global__` walked back to its line's start and scanned to the end of the text for
  // brackets: quadratic over one long line of them, or a long continued macro.
  writeFile(repo / "csrc/globals.cu", repeated("__global__ void k(", 20000) + "\n");
  writeFile(repo / "csrc/macro.cu", "#define X \\\n" + repeated("__global__ \\\n", 50000) + "\n");
  // The kernel of a cudaLaunchKernel call was read with std::regex, which recursed once per
  // character of the argument and overflowed the stack.
  writeFile(repo / "csrc/api.cu", "void h(void** args) { cudaLaunchKernel((void*)" +
                                      std::string(200000, 'a') + ", 1, 1, args, 0, 0); }\n");
  // The CUDA settings of a CMake command and the tokens of a macro's body were read with
  // std::regex too: a word of 200,000 characters overflowed the stack.
  writeFile(repo / "CMakeLists.txt",
            "project(x LANGUAGES CXX CUDA)\nset_target_properties(t PROPERTIES CUDA_ARCHITECTURES " +
                std::string(200000, 'a') + " CUDA_SEPARABLE_COMPILATION ON)\n");
  writeFile(repo / "csrc/long_macro.cu", "#define Y " + std::string(200000, 'b') + " cudaMalloc(p, n)\n");
  writeFile(repo / ".gitmodules", "[submodule \"" + std::string(200000, 'c') +
                                      "\"]\n\tpath = " + std::string(200000, 'd') +
                                      "\n[submodule \"cutlass\"]\n\tpath = "
                                      "third_party/cutlass\n\turl = https://github.com/NVIDIA/cutlass\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  bool settings = false, macro_call = false, submodule = false;
  for (const auto& f : doc["findings"]) {
    submodule = submodule || f["file"] == ".gitmodules";
    settings = settings || (f["file"] == "CMakeLists.txt" &&
                            f.dump().find("CUDA_SEPARABLE_COMPILATION") != std::string::npos);
    macro_call = macro_call || (f["file"] == "csrc/long_macro.cu" && f["api"] == "cudaMalloc");
  }
  EXPECT_TRUE(settings) << "the setting after the long word is read";
  EXPECT_TRUE(macro_call) << "the call after the long word in the macro is found";
  EXPECT_TRUE(submodule) << "the CUTLASS submodule after the long lines is found";
  bool kernel = false;
  for (const auto& f : doc["findings"])
    kernel = kernel || (f["rule_id"] == "OPS-001" && f["file"] == "csrc/launches.cu" && f["api"] == "scale");
  EXPECT_TRUE(kernel) << "the kernel launched through `k` is found";
}

// Found by fuzz_pyproject, fuzz_requirements and fuzz_shell_script: the TOML reader recursed once
// per nesting level, and std::regex once per character of a URL scheme or of a CUDA version:
// each overflowed the stack and took the whole run down.
TEST(HostileSources, DependencyFilesDoNotOverflowTheStack) {
  TempDir repo;
  writeFile(repo / "pyproject.toml", "[project]\ndependencies = " + repeated("[", 100000) + "\n");
  writeFile(repo / "requirements.txt", "torch==2.1.0+cuda" + std::string(100000, '1') + "\nnumpy\n");
  writeFile(repo / "install.sh", "pip install \"" + std::string(100000, 'a') + "\n");
  // The deps plugin's own matchers (an image's `gpu` word, setup.py's name, a PyTorch CUDA index)
  // were std::regex as well.
  writeFile(repo / "Dockerfile", "FROM registry.example/" + std::string(200000, 'g') + "-gpu:latest\n");
  writeFile(repo / "setup.py",
            "from setuptools import setup\nsetup(name=\"" + std::string(200000, 'n') + "\")\n");
  writeFile(repo / "cu" / "requirements.txt",
            "--index-url https://download.pytorch.org/whl/cu" + std::string(200000, '1') + "\ntorch\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  bool unreadable = false;
  for (const auto& d : doc["diagnostics"])
    unreadable = unreadable || (d["code"] == "pyproject-unreadable" && d["file"] == "pyproject.toml");
  EXPECT_TRUE(unreadable) << "the nesting is refused with a diagnostic";
  bool numpy = false;
  for (const char* list : {"findings", "dependencies"})
    for (const auto& f : doc[list]) numpy = numpy || f["api"] == "numpy";
  EXPECT_TRUE(numpy) << "the requirements after the long one are read";
  bool image = false, after_index = false;
  for (const auto& f : doc["findings"]) {
    image = image || (f["file"] == "Dockerfile" &&
                      f["message"].get<std::string>().find("CUDA image") != std::string::npos);
    after_index = after_index || (f["file"] == "cu/requirements.txt" && f["api"] == "torch");
  }
  EXPECT_TRUE(image) << "a -gpu image tag is a CUDA image";
  EXPECT_TRUE(after_index) << "the requirement after the long index URL is read";
}

// YAML configuration files (device config_device.cpp, distributed config_backend.cpp) are read
// with yaml-cpp, which recurses once per nesting level: a file nested deeper than any
// configuration is refused with a diagnostic, one that does not parse is recorded, and the
// settings of the files beside them are still reported.
TEST(HostileSources, ConfigFilesNestedOrBrokenAreRefusedWithADiagnostic) {
  TempDir repo;
  writeFile(repo / "configs" / "deep.yaml", "device: cuda\nx: " + repeated("[", 200000) + "\n");
  writeFile(
      repo / "configs" / "indented.yaml", "device: cuda\n" + [] {
        std::string s;
        for (int i = 0; i < 600; ++i)
          s += std::string(static_cast<std::size_t>(i), ' ') + "k" + std::to_string(i) + ":\n";
        return s;
      }());
  writeFile(repo / "configs" / "broken.yaml", "device: cuda\n  bad: [unclosed\n");
  writeFile(repo / "configs" / "broken_dist.yaml", "backend: nccl\n  bad: [unclosed\n");
  writeFile(repo / "configs" / "train.yaml", "trainer:\n  accelerator: gpu\n  device: cuda\nbackend: nccl\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  std::vector<std::string> refused;
  for (const auto& d : doc["diagnostics"])
    if (d["code"] == "config-unparsed") refused.push_back(d["file"].get<std::string>());
  std::sort(refused.begin(), refused.end());
  EXPECT_EQ(refused, (std::vector<std::string>{"configs/broken.yaml", "configs/broken_dist.yaml",
                                               "configs/deep.yaml", "configs/indented.yaml"}));
  const auto train = findingsIn(doc, "configs/train.yaml");
  EXPECT_TRUE(has(train, "DEV-049", 2)) << "accelerator: gpu";
  EXPECT_TRUE(has(train, "DEV-023", 3)) << "device: cuda";
  EXPECT_TRUE(has(train, "DIST-001", 4)) << "backend: nccl";
}

// The cross-file glue pass (custom_ops extension_glue.cpp) read import, class and build lines with
// std::regex: a setup.py naming an extension of 300,000 characters overflowed the stack.
TEST(HostileSources, ExtensionGlueReadsLinesOfMegabytes) {
  TempDir repo;
  writeFile(repo / "setup.py", "from torch.utils.cpp_extension import CUDAExtension\nCUDAExtension(name=\"" +
                                   std::string(300000, 'b') + "\")\nCUDAExtension(name=\"fast_ext\")\n");
  writeFile(repo / "pkg/a.py", "import torch\nfrom x import " + std::string(300000, 'a') + "\nimport " +
                                   std::string(300000, 'c') + "\nclass " + std::string(300000, 'K') +
                                   "(Function):\n    pass\n");
  writeFile(repo / "use.py", "import fast_ext\nfast_ext.run(1)\n");
  // Every string literal is asked whether it is a console-script declaration (module_summary.cpp).
  writeFile(repo / "pkg/b.py", "x = \"" + std::string(300000, 'e') + "=b:c\"\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  bool call = false;
  for (const auto& f : doc["findings"]) call = call || (f["file"] == "use.py" && f["api"] == "fast_ext.run");
  EXPECT_TRUE(call) << "the call into the extension declared after the long one is found";
}

// The precision checks read callee names and the text around calls with std::regex, which
// recursed once per character: a name or an argument of 300,000 characters overflowed the stack.
TEST(HostileSources, PrecisionChecksReadLongNamesAndArguments) {
  TempDir repo;
  std::string source = "import numpy as np\nimport torch\n";
  // A helper choosing a dtype the device supports takes the float64: not reported.
  source += "a = adjust_" + std::string(300000, 'x') + "_dtype(torch.float64)\n";
  // A float64 placed on the CPU: not reported.
  source +=
      "b = torch.zeros(3, dtype=torch.float64, device=torch.device(" + std::string(300000, ' ') + "'cpu'))\n";
  // A cast after the conversion, a narrowing after the complex table (the checks read 160
  // characters after a call): not reported, and a complex table at info.
  source += "c = torch.from_numpy(np.zeros(3)).to(torch.float32)  # " + std::string(300000, 'z') + "\n";
  source += "d = torch.view_as_complex(x).to(torch.complex64)  # " + std::string(300000, 'z') + "\n";
  source += "e = torch.zeros(3, dtype=torch.float64)\n";
  writeFile(repo / "prec.py", source);
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  const auto found = findingsIn(doc, "prec.py");
  EXPECT_FALSE(has(found, "PREC-001", 3)) << "the dtype helper after its long name is recognised";
  EXPECT_FALSE(has(found, "PREC-001", 4)) << "the CPU device after the long run of spaces is recognised";
  EXPECT_FALSE(has(found, "PREC-004", 5)) << "the cast after the conversion is seen";
  EXPECT_TRUE(has(found, "PREC-005", 6));
  EXPECT_TRUE(has(found, "PREC-001", 7)) << "the float64 after the long lines is reported";
}

// The distributed checks read script lines, call text, assignment targets and the line before a
// string with std::regex: a word or a run of spaces of 300,000 characters overflowed the stack.
TEST(HostileSources, DistributedChecksReadLongWordsAndLines) {
  TempDir repo;
  writeFile(repo / "run.sh", "export NCCL_" + std::string(300000, 'A') + "=1\n" + std::string(300000, ' ') +
                                 "echo NCCL_IB_HCA=mlx5\nexport NCCL_IB_HCA=mlx5\n");
  // Three files: one of more than 2 MB is skipped (limits.max_file_bytes).
  std::string source = "import torch.distributed as dist\n";
  source += "dist.init_process_group(backend=cfg[\"" + std::string(300000, 'k') + "\"])\n";  // 2
  source += "dist.init_process_group(" + std::string(300000, ' ') + "**kw)\n";               // 3
  source += "dist.init_process_group(**k" + std::string(300000, 'w') + ")\n";                // 4
  source += "backend = \"" + std::string(300000, ' ') + "nccl\"\n";                          // 5
  source += "dist.init_process_group(backend=backend)\n";                                    // 6
  writeFile(repo / "dist.py", source);
  writeFile(repo / "rank.py",
            "import os\nimport torch\na" + std::string(300000, 'a') +
                ", local_rank = 0, int(os.environ[\"LOCAL_RANK\"])\nos.environ[\"LOCAL_RANK\"" +
                std::string(300000, ' ') + "] = \"0\"\ntorch.cuda.set_device(local_rank)\n");
  writeFile(repo / "literal.py", "from typing import Literal\ndef f(b: Literal[" + std::string(300000, ' ') +
                                     "\"nccl\"]): pass\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  const auto script = findingsIn(doc, "run.sh");
  EXPECT_TRUE(has(script, "DIST-011", 1)) << "the long variable is an NCCL setting";
  EXPECT_FALSE(has(script, "DIST-011", 2)) << "echo after a long indentation prints, it sets nothing";
  EXPECT_TRUE(has(script, "DIST-011", 3));
  const auto python = findingsIn(doc, "dist.py");
  for (int line : {2, 3, 4}) EXPECT_TRUE(has(python, "DIST-004", line)) << line;
  EXPECT_FALSE(has(python, "DIST-004", 6)) << "the literal after the spaces is a backend name";
  EXPECT_TRUE(has(findingsIn(doc, "rank.py"), "DIST-025", 3)) << "the read after the long target list";
  EXPECT_TRUE(has(findingsIn(doc, "literal.py"), "DIST-001", 2)) << "\"nccl\" in a Literal after the spaces";
}

// The device check read assertion operands' names with std::regex.
TEST(HostileSources, DeviceAssertionsReadLongNames) {
  TempDir repo;
  writeFile(repo / "test_device.py",
            "import unittest\n\nclass T(unittest.TestCase):\n    def test(self):\n"
            "        self.assertEqual(cfg." +
                std::string(300000, 'x') + "_device, \"cuda\")\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_TRUE(has(findingsIn(doc, "test_device.py"), "DEV-052", 5)) << "a name ending in _device";
}

// custom_ops read a launch's `kernel[grid]`, a Triton config's keys, the autotune configs, the
// callee of a plain module and a Dockerfile's install lines with std::regex (and built a regex from
// a launched name): a word or run of spaces of 300,000 characters overflowed the stack.
TEST(HostileSources, CustomOpsReadLongLaunchesConfigsAndInstallLines) {
  TempDir repo;
  std::string kernels = "import torch\nimport triton\nimport mymod\n";
  kernels += "@triton.autotune(configs=[triton.Config({\"B" + std::string(300000, 'B') +
             "\": 1})], key=[\"n\"])\n@triton.jit\ndef k(x):\n    pass\n";  // 4-7
  kernels += "@triton.autotune(configs=[triton.Config({\"B\": b}) for" + std::string(300000, ' ') +
             "b in (1, 2)], key=[\"n\"])\n@triton.jit\ndef k2(x):\n    pass\n";  // 8-11
  kernels += "grid = (1,)\nk[" + std::string(300000, ' ') + "grid](x)\n";        // 12-13
  kernels += "x" + std::string(300000, 'x') + "[grid](x)\n";                     // 14
  kernels +=
      "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
      "        return mymod." +
      std::string(300000, 'a') + "_fwd(x)\n";  // 15-18
  writeFile(repo / "kernels.py", kernels);
  writeFile(repo / "setup.py", "from torch.utils.cpp_extension import (" + std::string(300000, ' ') +
                                   "CUDAExtension)\nCUDAExtension(name=\"ext\", sources=[\"a.cu\"])\n");
  writeFile(repo / "Dockerfile", "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\n" + std::string(300000, ' ') +
                                     "RUN python setup.py install\nRUN pip install" +
                                     std::string(300000, ' ') + "-e .\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  const auto python = findingsIn(doc, "kernels.py");
  EXPECT_TRUE(has(python, "OPS-022", 4)) << "the autotune with a config key of 300,000 characters";
  EXPECT_TRUE(has(python, "OPS-022", 8)) << "the autotune whose configs are a comprehension";
  EXPECT_TRUE(has(python, "OPS-023", 13)) << "the launch `k[<spaces>grid]`";
  EXPECT_TRUE(has(python, "OPS-027", 15)) << "the Function calling a kernel-named function of a plain module";
  EXPECT_TRUE(has(findingsIn(doc, "setup.py"), "OPS-031", 1));
  const auto docker = findingsIn(doc, "Dockerfile");
  EXPECT_TRUE(has(docker, "OPS-039", 2)) << "setup.py install after a long indentation";
  EXPECT_TRUE(has(docker, "OPS-039", 3)) << "pip install of the project after a long run of spaces";
}

/// Whether `file` declares `package` (a dependency or a finding on it).
bool declares(const nlohmann::json& doc, const std::string& file, const std::string& package) {
  for (const char* list : {"findings", "dependencies"})
    for (const auto& f : doc[list])
      if (f["file"] == file && f["api"] == package) return true;
  return false;
}

// The deps readers matched setup.py's variables, shell words, assignments and requirement options,
// and its emit hook poetry versions and distribution names, with std::regex (a pattern built from a
// variable's name, too): a name or word of 300,000 characters overflowed the stack.
TEST(HostileSources, DependencyReadersReadLongNamesAndWords) {
  TempDir repo;
  const std::string name = "REQ" + std::string(300000, 'R');
  writeFile(repo / "setup.py", "from setuptools import setup\n" + name +
                                   " = [\"numpy\"]\nsetup(name=\"x\", install_requires=" + name + ")\n");
  writeFile(repo / "install.sh", "pip" + std::string(300000, '3') + " install torch\n" +
                                     std::string(300000, 'A') + "=1 pip install einops\nTOKEN='" +
                                     std::string(300000, 't') + "'\n" + std::string(300000, ' ') +
                                     "INDEX=https://example.org/simple\n" +
                                     "pip install --index-url $INDEX safetensors\n");
  writeFile(repo / "requirements.txt", "tqdm" + std::string(300000, ' ') + "--hash=sha256:0\n");
  writeFile(repo / "pyproject.toml",
            "[tool.poetry]\nname = \"demo\"\n\n[tool.poetry.dependencies]\nrich = \">=13." +
                std::string(300000, '1') + "\"\na" + std::string(300000, '-') + "b = \"1.0\"\n");
  TempDir out;
  const auto r = test::run(quote(test::cli().string()) + " run " +
                           quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
                           quote(repo.path().string()) + " --output " + quote(out.path().string()) +
                           " --set jobs=2 --set 'stages=[analyze, plan, emit]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(test::readFile(out / "findings.json"));
  EXPECT_TRUE(declares(doc, "setup.py", "numpy")) << "through the variable of 300,000 characters";
  EXPECT_TRUE(declares(doc, "install.sh", "torch")) << "pip333…";
  EXPECT_TRUE(declares(doc, "install.sh", "einops")) << "after an assignment of 300,000 characters";
  EXPECT_TRUE(declares(doc, "install.sh", "safetensors"));
  EXPECT_TRUE(declares(doc, "requirements.txt", "tqdm"));
  // The emit hook writes the poetry constraint in pip's terms, and the long name as it is.
  const std::string npu = test::readFile(out / "requirements-npu.txt");
  EXPECT_NE(npu.find("rich>=13.111"), std::string::npos) << npu.substr(0, 2000);
  EXPECT_NE(npu.find("a---"), std::string::npos);
}

// The plan stage read console-script declarations and launcher words with std::regex: a line of
// setup.cfg or a word of a shell script of 300,000 characters overflowed the stack.
TEST(HostileSources, EntryPointsReadLongDeclarationsAndWords) {
  TempDir repo;
  writeFile(repo / "pkg/__init__.py", "");
  writeFile(repo / "pkg/cli.py", "def main():\n    pass\n");
  writeFile(repo / "train.py", "print(1)\n");
  const std::string tool = "tool" + std::string(300000, '-');
  writeFile(repo / "setup.cfg",
            "[options.entry_points]\nconsole_scripts =\n    " + tool + " = pkg.cli:main\n");
  writeFile(repo / "run.sh", "python3." + std::string(300000, '1') + " train.py\n");
  TempDir out;
  const auto r = test::run(quote(test::cli().string()) + " run " +
                           quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
                           quote(repo.path().string()) + " --output " + quote(out.path().string()) +
                           " --set jobs=2 --set 'stages=[analyze, plan]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(test::readFile(out / "findings.json"));
  bool console = false, launch = false;
  for (const auto& e : doc["plan"]["structure"]["entry_points"]) {
    console = console || (e["kind"] == "console_script" && e["name"] == tool &&
                          e["modules"] == nlohmann::json::array({"pkg/cli.py"}));
    launch = launch || (e["kind"] == "launch_script" && e["launcher"] == "python" &&
                        e["modules"] == nlohmann::json::array({"train.py"}));
  }
  EXPECT_TRUE(console) << "the console script with a name of 300,000 characters";
  EXPECT_TRUE(launch) << "python3.111… is a Python launcher";
}

// A rule pattern with a lookahead (DIST-011) was confirmed with std::regex on every string that
// passed its RE2 superset: a string of 300,000 characters overflowed the stack.
TEST(HostileSources, RulePatternsWithALookaheadReadLongStrings) {
  TempDir repo;
  writeFile(repo / "env.py", "import os\nos.environ[\"NCCL_" + std::string(300000, 'A') +
                                 "\"] = \"1\"\nx = \"" + std::string(300000, ' ') +
                                 "NCCL_DEBUG\"\nos.environ[\"NCCL_IB_HCA\"] = \"mlx5\"\n");
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
  const auto found = findingsIn(doc, "env.py");
  EXPECT_TRUE(has(found, "DIST-011", 2)) << "an NCCL setting of 300,000 characters";
  EXPECT_FALSE(has(found, "DIST-011", 3)) << "NCCL_DEBUG is DIST-010's, after any number of spaces";
  EXPECT_TRUE(has(found, "DIST-011", 4));
}

}  // namespace
}  // namespace migrate
