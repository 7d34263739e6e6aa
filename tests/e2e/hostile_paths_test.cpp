// File and directory names that try to break what the tool writes: spaces, quotes, `$(...)`,
// backticks, semicolons, newlines and leading dashes, in Python sources, a CUDA kernel and its
// setup.py. The whole pipeline runs on such a repository (analyze, plan, emit, verify on this host,
// report) and nothing it writes executes a name or breaks on one: the scripts pass shellcheck, the
// patch applies, findings.json, SARIF and the CSV tables name every file exactly, the report's
// code spans hold, the operator scaffolds keep each name inside its comment, and the repository
// is unchanged.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using json = nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;
namespace fs = std::filesystem;

const std::string kCuda = "import torch\nx = torch.zeros(2).cuda()\ntorch.cuda.synchronize()\n";

/// The Python files of the repository: each has findings and an automatic fix.
const std::vector<std::string> kPythonFiles = {
    "pkg $(touch PWNED_dir)/model 'q' \"d\".py",
    "-rf.py",
    "new\nline.py",
    "`touch PWNED_tick`.py",
    "sp ace/-- dash;x.py",
};

/// Every file under `root` (links not followed) → its content.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    files[e.path().lexically_relative(root).string()] = e.is_regular_file() ? readFile(e.path()) : "<dir>";
  return files;
}

/// The names of files called PWNED* anywhere under `root`: a name that ran as a command.
std::vector<std::string> executedNames(const fs::path& root) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename().string().rfind("PWNED", 0) == 0) found.push_back(e.path().string());
  return found;
}

std::string percentDecode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

class HostilePaths : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const fs::path repo = source();
    for (const std::string& f : kPythonFiles) writeFile(repo / f, kCuda);
    writeFile(repo / "pkg $(touch PWNED_dir)" / "__init__.py", "");
    writeFile(repo / "csrc" / "k $(touch PWNED_cu).cu",
              "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n");
    writeFile(repo / "csrc" / "n\ntouch PWNED_nl #.cu",
              "__global__ void nl_kernel(float* x) { x[threadIdx.x] = 1; }\n");
    writeFile(
        repo / "setup.py",
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='hostile', ext_modules=[CUDAExtension('hostile_ext', ['csrc/k $(touch PWNED_cu).cu',\n"
        "      'csrc/n\\ntouch PWNED_nl #.cu'])], cmdclass={'build_ext': BuildExtension})\n");
    writeFile(repo / "requirements.txt", "torch\n");
    const std::string in_repo = "cd " + quote(repo.string()) + " && ";
    ASSERT_EQ(
        run(in_repo + "git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm init")
            .exit_code,
        0);
    before_ = new std::map<std::string, std::string>(snapshot(repo));
    fs::create_directories(dir_->path() / "work");
    run_ = new test::CommandResult(
        run("cd " + quote((dir_->path() / "work").string()) + " && " + quote(test::cli().string()) + " run " +
            quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
            quote(repo.string()) + " --output " + quote(out().string()) +
            " --set jobs=2 --set 'verify.precision=[]' --set targets.local.python=/usr/bin/python3"));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete before_;
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path source() { return dir_->path() / "repo"; }
  static fs::path out() { return dir_->path() / "out"; }

  static TempDir* dir_;
  static std::map<std::string, std::string>* before_;
  static test::CommandResult* run_;
};
TempDir* HostilePaths::dir_ = nullptr;
std::map<std::string, std::string>* HostilePaths::before_ = nullptr;
test::CommandResult* HostilePaths::run_ = nullptr;

TEST_F(HostilePaths, TheRunCompletesRunsNoNameAndLeavesTheRepositoryAsItWas) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  EXPECT_EQ(executedNames(dir_->path()), std::vector<std::string>{});
  EXPECT_TRUE(snapshot(source()) == *before_) << "the repository changed";
  EXPECT_EQ(json::parse(readFile(out() / "verify.json"))["status"], "completed");
}

TEST_F(HostilePaths, FindingsJsonAndSarifNameEveryFileExactly) {
  // Held: a range-for over a temporary's member would dangle.
  const json findings = json::parse(readFile(out() / "findings.json"));
  const json sarif = json::parse(readFile(out() / "findings.sarif"));
  std::set<std::string> in_json, in_sarif;
  for (const auto& f : findings["findings"]) in_json.insert(f["file"]);
  for (const auto& r : sarif["runs"])
    for (const auto& result : r["results"])
      for (const auto& l : result["locations"])
        in_sarif.insert(percentDecode(l["physicalLocation"]["artifactLocation"]["uri"]));
  for (const std::string& f : kPythonFiles) {
    EXPECT_TRUE(in_json.count(f)) << f;
    EXPECT_TRUE(in_sarif.count(f)) << f;
  }
  EXPECT_TRUE(in_json.count("csrc/n\ntouch PWNED_nl #.cu"));
}

/// The `column` values of the CSV table `file`, read with Python's csv module.
std::set<std::string> csvColumn(const fs::path& file, const std::string& column) {
  const auto r = run("/usr/bin/python3 -c " +
                     quote("import csv, json, sys\n"
                           "rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))\n"
                           "print(json.dumps(sorted({r[sys.argv[2]] for r in rows})))") +
                     " " + quote(file.string()) + " " + column);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return json::parse(r.output).get<std::set<std::string>>();
}

TEST_F(HostilePaths, TheCsvTablesNameEveryFileExactly) {
  std::set<std::string> in_json;
  const json findings = json::parse(readFile(out() / "findings.json"));  // held, as above
  for (const auto& f : findings["findings"]) in_json.insert(f["file"]);
  EXPECT_EQ(csvColumn(out() / "findings.csv", "file"), in_json);
  const std::set<std::string> changed = csvColumn(out() / "change_list.csv", "file");
  for (const std::string& f : kPythonFiles) EXPECT_TRUE(changed.count(f)) << f;
  EXPECT_EQ(csvColumn(out() / "dependencies.csv", "name"), std::set<std::string>{"torch"});
  EXPECT_EQ(csvColumn(out() / "unsupported_apis.csv", "file"), std::set<std::string>{})
      << "every API these files use has an NPU counterpart";
}

TEST_F(HostilePaths, TheScriptsPassShellcheckAndThePatchRecreatesTheAdaptedTree) {
  const std::string here = "cd " + quote(out().string()) + " && ";
  const auto shell = run(here + "shellcheck verify_npu.sh build_ascend_ops.sh");
  EXPECT_EQ(shell.exit_code, 0) << shell.output;
  // The build script's header lists each operator's source in one comment line.
  const std::string script = readFile(out() / "build_ascend_ops.sh");
  EXPECT_NE(script.find("(csrc/n?touch PWNED_nl #.cu:1)"), std::string::npos) << script.substr(0, 600);

  TempDir copy;
  ASSERT_EQ(run("cp -r " + quote(source().string()) + " " + quote((copy / "tree").string())).exit_code, 0);
  const std::string in_tree = "cd " + quote((copy / "tree").string()) + " && ";
  const auto apply = run(in_tree + "git apply " + quote((out() / "npu_migration.patch").string()));
  ASSERT_EQ(apply.exit_code, 0) << apply.output;
  const auto diff =
      run("diff -r -x .git " + quote((copy / "tree").string()) + " " + quote((out() / "adapted").string()));
  EXPECT_EQ(diff.exit_code, 0) << diff.output;
  for (const std::string& f : kPythonFiles)
    EXPECT_NE(readFile(out() / "adapted" / f).find(".npu()"), std::string::npos) << f;
}

TEST_F(HostilePaths, TheScaffoldsKeepEveryNameInsideItsComment) {
  int scaffolds = 0;
  for (const auto& e : fs::recursive_directory_iterator(out() / "ascend_ops")) {
    if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".h")) continue;
    ++scaffolds;
    std::istringstream lines(readFile(e.path()));
    for (std::string line; std::getline(lines, line);) {
      if (line.find("PWNED") != std::string::npos) {
        EXPECT_TRUE(line.rfind("//", 0) == 0 || line.rfind("#error", 0) == 0) << e.path() << ": " << line;
      }
    }
  }
  EXPECT_GE(scaffolds, 6);  // two operators: kernel, host and tiling header each
}

TEST_F(HostilePaths, TheReportsCodeSpansHoldNamesWithBackticks) {
  const std::string report = readFile(test::reportIn(out()));
  // The modified-files table: a name with a backtick in a longer run of backticks.
  EXPECT_NE(report.find("| `` `touch PWNED_tick`.py `` | 2 edits"), std::string::npos);
  EXPECT_EQ(report.find("``touch PWNED_tick"), std::string::npos);
  EXPECT_NE(report.find("| `new line.py` |"), std::string::npos);
}

}  // namespace
}  // namespace migrate
