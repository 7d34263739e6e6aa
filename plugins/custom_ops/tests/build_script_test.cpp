// build_ascend_ops.sh, generated for the bundled example, checked with shellcheck and executed:
// on this machine (no CANN) it must stop with a clear message; with a fake toolkit
// (tests/fake_cann/toolkit: set_env.sh, msopgen, cmake, bisheng and a project build.sh that record
// what they are asked) under paths with spaces it must run the documented commands per operator,
// diagnose failed builds and summarise.

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "emit_fixture.hpp"

namespace migrate::custom_ops_test {
namespace {

/// The invocations recorded by a fake tool: its arguments, one call per element.
std::vector<std::vector<std::string>> invocations(const fs::path& record) {
  std::vector<std::vector<std::string>> out(1);
  std::ifstream in(record);
  for (std::string line; std::getline(in, line);) {
    if (line == "--") {
      out.emplace_back();
    } else {
      out.back().push_back(line);
    }
  }
  out.pop_back();
  return out;
}

std::vector<std::string> lines(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class BuildScriptTest : public CustomOpsEmitTest {
 protected:
  void SetUp() override {
    emitted_ = std::make_unique<Emitted>(emit(test::sourceDir() / "examples" / "gpt_cuda"));
    ASSERT_TRUE(emitted_->wrote("build_ascend_ops.sh"));
    kit_ = emitted_->kit;
    script_ = kit_ / "build_ascend_ops.sh";
    for (const auto& d : fs::directory_iterator(kit_ / "ascend_ops"))
      if (d.is_directory()) ops_.insert(d.path().filename().string());
    ASSERT_EQ(ops_.size(), emitted_->rule("OPS-001").size());
    // The fake toolkit in the real layout: <root>/set_env.sh beside <root>/latest/.
    fs::copy(test::sourceDir() / "plugins/custom_ops/tests/fake_cann/toolkit",
             tools_.path() / "Ascend toolkit", fs::copy_options::recursive);
    toolkit_ = tools_.path() / "Ascend toolkit" / "latest";
    record_ = tools_.path() / "record dir";
    fs::create_directories(record_);
  }

  /// Runs the script with the fake toolkit and `args` (already quoted).
  test::CommandResult runWithToolkit(const std::string& args, std::map<std::string, std::string> env = {}) {
    env["ASCEND_TOOLKIT_HOME"] = toolkit_.string();
    env["FAKE_CANN_RECORD"] = record_.string();
    return runClean(test::quote(script_.string()) + " " + args, env);
  }

  /// The stem of an operator (its JSON file's name).
  std::string stem(const std::string& op) const {
    for (const auto& f : fs::directory_iterator(kit_ / "ascend_ops" / op))
      if (f.path().extension() == ".json") return f.path().stem().string();
    return {};
  }

  /// Deletes the #error line of an operator's kernel, as the engineer porting it does.
  void port(const std::string& op) {
    const fs::path kernel = kit_ / "ascend_ops" / op / "op_kernel" / (stem(op) + ".cpp");
    const std::string text = test::readFile(kernel);
    test::writeFile(kernel, std::regex_replace(text, std::regex("\n#error [^\n]*"), "\n"));
    ASSERT_NE(test::readFile(kernel), text);
  }

  std::unique_ptr<Emitted> emitted_;
  fs::path kit_, script_, toolkit_, record_;
  std::set<std::string> ops_;
  test::TempDir tools_;
};

TEST_F(BuildScriptTest, PassesShellcheck) {
  const auto r = test::run("shellcheck " + test::quote(script_.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  const auto help = runClean(test::quote(script_.string()) + " --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  for (const char* option : {"--op NAME", "--soc VERSION", "--dry-run", "--install", "ASCEND_TOOLKIT_HOME"})
    EXPECT_NE(help.output.find(option), std::string::npos) << option;
  const auto listed = runClean(test::quote(script_.string()) + " --list");
  EXPECT_EQ(listed.exit_code, 0);
  std::set<std::string> names;
  std::istringstream in(listed.output);
  for (std::string name; std::getline(in, name);) names.insert(name);
  EXPECT_EQ(names, ops_);
  const auto wrong = runClean(test::quote(script_.string()) + " --frobnicate");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.output.find("unknown option '--frobnicate'"), std::string::npos) << wrong.output;
}

TEST_F(BuildScriptTest, WithoutCannItStopsAndSaysWhatToInstall) {
  const auto r = runClean(test::quote(script_.string()) + " --soc Ascend910B3");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("error: CANN toolkit not found"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Ascend-cann-toolkit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ASCEND_TOOLKIT_HOME"), std::string::npos) << r.output;

  // A toolkit directory without set_env.sh, then one whose set_env.sh brings no msopgen.
  const fs::path bare = tools_.path() / "bare toolkit" / "latest";
  fs::create_directories(bare);
  auto no_env = runClean(test::quote(script_.string()), {{"ASCEND_TOOLKIT_HOME", bare.string()}});
  EXPECT_EQ(no_env.exit_code, 3);
  EXPECT_NE(no_env.output.find("error: set_env.sh not found next to the CANN toolkit at " + bare.string()),
            std::string::npos)
      << no_env.output;
  test::writeFile(bare / "set_env.sh", "export ASCEND_HOME_PATH=\"$ASCEND_TOOLKIT_HOME\"\n");
  auto no_tools = runClean(test::quote(script_.string()), {{"ASCEND_TOOLKIT_HOME", bare.string()}});
  EXPECT_EQ(no_tools.exit_code, 3);
  EXPECT_NE(no_tools.output.find("error: msopgen not found"), std::string::npos) << no_tools.output;

  // A dry run prints the plan anyway, with warnings, and runs nothing.
  const auto dry = runClean(test::quote(script_.string()) + " --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("warning: CANN toolkit not found"), std::string::npos);
  for (const auto& op : ops_)
    EXPECT_NE(dry.output.find("/ascend_ops/" + op + "/" + stem(op) + ".json -f pytorch -c ai_core-\\<SOC\\>"),
              std::string::npos)
        << op << "\n"
        << dry.output;
  EXPECT_NE(dry.output.find(std::to_string(ops_.size()) +
                            " operator(s) planned (dry run); the environment is not ready"),
            std::string::npos)
      << dry.output;
}

TEST_F(BuildScriptTest, FakeToolkitBuildsThePortedOperatorAndDiagnosesTheScaffolds) {
  const std::string ported = *ops_.begin();
  port(ported);
  const auto r = runWithToolkit("--soc Ascend910B3");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("CANN toolkit: " + toolkit_.string()), std::string::npos) << r.output;

  // msopgen once per operator, with the documented arguments; paths with spaces intact.
  std::set<std::vector<std::string>> expected, got;
  for (const auto& op : ops_)
    expected.insert({"gen", "-i", (kit_ / "ascend_ops" / op / (stem(op) + ".json")).string(), "-f", "pytorch",
                     "-c", "ai_core-Ascend910B3", "-lan", "cpp", "-out",
                     (kit_ / "ascend_ops_build" / op).string()});
  for (const auto& call : invocations(record_ / "msopgen.args")) got.insert(call);
  EXPECT_EQ(got, expected);
  // The project's own build.sh ran in each project, configuring with cmake; cmake's version was checked.
  std::set<std::string> built_in;
  for (const auto& dir : lines(record_ / "build.dirs")) built_in.insert(dir);
  std::set<std::string> projects;
  for (const auto& op : ops_) projects.insert((kit_ / "ascend_ops_build" / op).string());
  EXPECT_EQ(built_in, projects);
  const auto cmake = invocations(record_ / "cmake.args");
  EXPECT_EQ(std::count(cmake.begin(), cmake.end(), std::vector<std::string>{"--version"}), 1);
  EXPECT_EQ(std::count(cmake.begin(), cmake.end(),
                       std::vector<std::string>{"-S", ".", "-B", "build_out", "--preset=default"}),
            static_cast<long>(ops_.size()));

  // The ported operator: the scaffold's files replaced the generated stubs, the presets point at the
  // toolkit, and the summary names its package.
  const fs::path project = kit_ / "ascend_ops_build" / ported;
  const std::string s = stem(ported);
  EXPECT_EQ(test::readFile(project / "op_kernel" / (s + ".cpp")),
            test::readFile(kit_ / "ascend_ops" / ported / "op_kernel" / (s + ".cpp")));
  EXPECT_EQ(test::readFile(project / "op_host" / (s + "_tiling.h")),
            test::readFile(kit_ / "ascend_ops" / ported / "op_host" / (s + "_tiling.h")));
  const auto presets = test::run("/usr/bin/python3 -c " +
                                 test::quote("import json,sys; p=json.load(open(sys.argv[1])); "
                                             "print(p['configurePresets'][0]['cacheVariables']"
                                             "['ASCEND_CANN_PACKAGE_PATH']['value'])") +
                                 " " + test::quote((project / "CMakePresets.json").string()));
  EXPECT_EQ(presets.output, toolkit_.string() + "\n");
  const std::regex built_line(
      "\n  " + ported + " +built +" +
      std::regex_replace((project / "build_out/custom_opp_ubuntu_x86_64.run").string(),
                         std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
      "\n");
  EXPECT_TRUE(std::regex_search(r.output, built_line)) << r.output;

  // The others still hold the scaffold: the compiler's #error is recognised and explained.
  for (const auto& op : ops_) {
    if (op == ported) continue;
    EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  " + op + " +failed +build failed; see ")))
        << op << "\n"
        << r.output;
    EXPECT_NE(r.output.find("hint: the kernel is still the scaffold: port the CUDA body into ascend_ops/" +
                            op + "/op_kernel/" + stem(op) + ".cpp"),
              std::string::npos)
        << r.output;
  }
  EXPECT_NE(r.output.find(std::to_string(ops_.size()) + " operator(s): 1 built, " +
                          std::to_string(ops_.size() - 1) + " failed."),
            std::string::npos)
      << r.output;

  // Only the ported one, installed into a custom path with a space.
  const fs::path opp = tools_.path() / "custom opp";
  const auto installed = runWithToolkit("--soc Ascend910B3 --install --op " + test::quote(ported),
                                        {{"ASCEND_CUSTOM_OPP_PATH", opp.string()}});
  EXPECT_EQ(installed.exit_code, 0) << installed.output;
  EXPECT_EQ(lines(record_ / "install.args"),
            (std::vector<std::string>{(project / "build_out/custom_opp_ubuntu_x86_64.run").string(),
                                      "--install-path=" + opp.string()}));
  EXPECT_TRUE(std::regex_search(installed.output, std::regex("\n  " + ported + " +installed ")));
  EXPECT_NE(installed.output.find("1 operator(s): 1 built, 0 failed."), std::string::npos)
      << installed.output;

  // A dry run with the toolkit present prints the commands and runs none of them.
  const auto before = test::readFile(record_ / "msopgen.args");
  const auto dry = runWithToolkit("--soc Ascend910B3 --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_EQ(test::readFile(record_ / "msopgen.args"), before);
  EXPECT_NE(dry.output.find(std::to_string(ops_.size()) + " operator(s) planned (dry run)."),
            std::string::npos)
      << dry.output;
}

/// A build failure the script knows, and the advice it must print.
struct KnownFailure {
  const char* log;
  const char* advice;
};

TEST_F(BuildScriptTest, FailedBuildLogsAreDiagnosed) {
  const std::string op = *ops_.begin();
  port(op);
  const KnownFailure failures[] = {
      {"error: ub overflow, requires 2097152 bits while 1572864 available",
       "hint: a tile does not fit the ~192 KB unified buffer"},
      {"fatal error: kernel_operator.h: No such file or directory",
       "hint: the Ascend C headers were not found"},
      {"error: use of undeclared identifier 'DTYPE_GRAD_OUT'",
       "hint: DTYPE_<NAME> comes from the operator definition"},
      {"CMake Error at CMakeLists.txt:3: Could not find ASCEND_CANN_PACKAGE_PATH",
       "hint: cmake failed: ASCEND_CANN_PACKAGE_PATH in the project's CMakePresets.json"},
      {"something nobody has seen before", "no known problem recognised; the end of the log:"},
  };
  for (const KnownFailure& f : failures) {
    const auto r =
        runWithToolkit("--soc Ascend910B3 --op " + test::quote(op), {{"FAKE_BUILD_FAILURE", f.log}});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(f.advice), std::string::npos) << f.log << "\n" << r.output;
    EXPECT_NE(r.output.find("1 operator(s): 0 built, 1 failed."), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace migrate::custom_ops_test
