// Readers of files that are not Python, on hostile input, through the real executable and its
// plugins: each input below once took minutes or hours, or crashed the run (found by the fuzz
// targets, docs/fuzzing.md).

#include <gtest/gtest.h>

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
  TempDir out;
  const auto doc = analyze(repo, out);
  ASSERT_TRUE(doc.is_object());
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
}

}  // namespace
}  // namespace migrate
