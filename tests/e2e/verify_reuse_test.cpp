// Verification that re-uses what did not change (issue 32), for real: a fixture repository with a
// pytest suite, verified on this host with /usr/bin/python3 on both trees, run after run as a
// user's edits come. A check whose inputs did not change (its module and the modules it imports,
// the kit, the target and its packages) keeps its result, marked `reused`; a changed module
// re-runs its own checks and those of the tests that import it; a new test file runs;
// --rerun-verify, another interpreter and a fleet's previous night are covered too.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support/test_support.hpp"
#include "support/wrong_pack.hpp"

namespace migrate {
namespace {

using json = nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;
namespace fs = std::filesystem;
using test::writeWrongPack;

class VerifyReuse : public ::testing::Test {
 protected:
  void SetUp() override {
    writeWrongPack(dir_.path() / "packs" / "acme");
    writeFile(repo() / "shop" / "__init__.py", "");
    writeFile(repo() / "shop" / "core.py",
              "import torch\n\n\ndef activate(x):\n    return torch.nn.functional.relu(x)\n\n\n"
              "def device():\n    return torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n");
    writeFile(repo() / "shop" / "util.py", "def double(x):\n    return 2 * x\n");
    writeFile(
        repo() / "tests" / "test_shop.py",
        "import torch\n\nfrom shop.core import activate, device\n\n\n"
        "def test_add():\n    assert (torch.ones(2, device=device()) + 1).tolist() == [2.0, 2.0]\n\n\n"
        "def test_activate():\n    assert activate(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]\n");
    // test_needs_data errors in its setup: pytest's outcome for it, kept like any other.
    writeFile(repo() / "tests" / "test_util.py",
              "import pytest\n\nfrom shop.util import double\n\n\ndef test_double():\n    assert double(2) "
              "== 4\n\n\n"
              "@pytest.fixture\ndef data():\n    raise RuntimeError(\"no data here\")\n\n\n"
              "def test_needs_data(data):\n    assert data\n");
    writeFile(dir_.path() / "pipeline.yaml",
              "version: 1\n"
              "source: {path: repo}\n"
              "stages: [analyze, plan, emit, verify, report]\n"
              "plugins: {deps: {}, device: {}, phase_matrix: {}}\n"
              "rule_packs: [packs/acme]\n"
              "verify: {stage_timeout: 300, tests: {command: auto, per_test_timeout: 60}}\n"
              "targets: {local: {python: /usr/bin/python3}}\n"
              "report: {directory: \"\"}\n");
  }
  fs::path repo() const { return dir_.path() / "repo"; }
  fs::path out(const std::string& name = "out") const { return dir_.path() / name; }

  /// Runs the pipeline into `name`; returns its verify.json.
  json runInto(const std::string& name = "out", const std::string& flags = "") {
    const auto r =
        run(quote(test::cli().string()) + " run " + quote((dir_.path() / "pipeline.yaml").string()) +
            " -q --output " + quote(out(name).string()) + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return json::parse(readFile(out(name) / "verify.json"));
  }

  /// "stage/check" (the reference's records are folded into their checks) -> the check.
  static std::map<std::string, json> checks(const json& verify) {
    std::map<std::string, json> out;
    for (const json& c : verify["checks"])
      out[c["stage"].get<std::string>() + "/" + c["check"].get<std::string>()] = c;
    return out;
  }
  /// The checks that ran again (not kept), environment aside (it runs every time).
  static std::set<std::string> ran(const json& verify) {
    std::set<std::string> out;
    for (const auto& [name, c] : checks(verify))
      if (!c["reused"].get<bool>() && c["stage"] != "environment") out.insert(name);
    return out;
  }

  TempDir dir_;
};

TEST_F(VerifyReuse, ARunKeepsWhatDidNotChangeAndRerunsWhatDid) {
  const json cold = runInto();
  ASSERT_EQ(cold["status"], "completed") << cold.dump(1);
  EXPECT_EQ(cold["summary"]["reused"], 0);
  const json activated = checks(cold)["function/test:tests/test_shop.py::test_activate"];
  ASSERT_EQ(activated["outcome"], "introduced") << activated.dump(1);
  ASSERT_EQ(activated["broken_by"], json::array({"ACME-001 at shop/core.py:5"})) << activated.dump(1);

  // Nothing changed: every check but the environment's is kept, with the same results.
  const json same = runInto();
  EXPECT_EQ(ran(same), std::set<std::string>{}) << same.dump(1);
  auto before = checks(cold), after = checks(same);
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [name, c] : before) {
    EXPECT_EQ(after[name]["status"], c["status"]) << name;
    EXPECT_EQ(after[name]["outcome"], c["outcome"]) << name;
    EXPECT_EQ(after[name]["reference"], c["reference"]) << name;
    EXPECT_EQ(after[name]["reused"], c["stage"] != "environment") << name;
  }
  EXPECT_EQ(after["function/test:tests/test_shop.py::test_activate"]["broken_by"], activated["broken_by"]);
  EXPECT_EQ(after["function/test:tests/test_shop.py::test_activate"]["attribution"],
            activated["attribution"]);
  std::size_t environment = 0;
  for (const auto& [name, c] : before) environment += c["stage"] == "environment" ? 1 : 0;
  EXPECT_EQ(same["summary"]["reused"], before.size() - environment)
      << "the environment's checks run every time";
  EXPECT_NE(same["detail"].get<std::string>().find("kept from the previous verification"), std::string::npos);
  const std::string report = readFile(test::reportIn(out()));
  EXPECT_NE(report.find("| function | test:tests/test_shop.py::test_add | ✅ passed (kept) |"),
            std::string::npos)
      << report.substr(report.find("## 5. Verification"), 4000);

  // A module only test_util imports: its tests run again (the suite with them), the rest is kept.
  writeFile(repo() / "shop" / "util.py", "def double(x):\n    return x + x\n");
  const json util = runInto();
  EXPECT_EQ(ran(util),
            (std::set<std::string>{"function/test:tests/test_util.py::test_double",
                                   "function/test:tests/test_util.py::test_needs_data", "function/tests",
                                   "precision/precision", "benchmark/benchmark"}))
      << util.dump(1);
  EXPECT_NE(checks(util)["function/tests"]["detail"].get<std::string>().find(
                "2 more test(s) kept from the previous verification"),
            std::string::npos)
      << util.dump(1);

  // The adapted module itself: its import on both trees and the tests importing it run again,
  // and so does the attribution of the failure they still show.
  writeFile(repo() / "shop" / "core.py",
            readFile(repo() / "shop" / "core.py") + "\n\ndef version():\n    return torch.__version__\n");
  const json core = runInto();
  EXPECT_EQ(ran(core),
            (std::set<std::string>{"imports/shop.core", "function/test:tests/test_shop.py::test_add",
                                   "function/test:tests/test_shop.py::test_activate", "function/tests",
                                   "precision/precision", "benchmark/benchmark"}))
      << core.dump(1);
  const json again = checks(core)["function/test:tests/test_shop.py::test_activate"];
  EXPECT_EQ(again["outcome"], "introduced");
  EXPECT_EQ(again["broken_by"], json::array({"ACME-001 at shop/core.py:5"})) << again.dump(1);
  EXPECT_EQ(checks(core)["function/test:tests/test_util.py::test_double"]["reused"], true);

  // A new test file runs; the unchanged ones are not collected again.
  writeFile(repo() / "tests" / "test_new.py", "def test_new():\n    assert True\n");
  const json added = runInto();
  EXPECT_EQ(ran(added), (std::set<std::string>{"function/test:tests/test_new.py::test_new", "function/tests",
                                               "precision/precision", "benchmark/benchmark"}))
      << added.dump(1);
  EXPECT_EQ(checks(added)["function/test:tests/test_new.py::test_new"]["status"], "passed");

  // A setting of the tests re-runs the tests alone, a precision check of the user's the precision
  // stage alone: the imports and the kit's checks keep their results.
  const json slower = runInto("out", "--set verify.tests.per_test_timeout=90");
  std::set<std::string> tests_only;
  for (const auto& [name, c] : checks(slower))
    if (c["stage"] == "function" && c["check"].get<std::string>().rfind("test", 0) == 0)
      tests_only.insert(name);
  EXPECT_EQ(ran(slower), tests_only) << slower.dump(1);
  EXPECT_EQ(tests_only.size(), 6u) << "five tests of three files and the suite: " << slower.dump(1);
  const json precision =
      runInto("out", "--set verify.tests.per_test_timeout=90 --set " +
                         quote("verify.precision=[{name: own, command: 'true', outputs: [x.json]}]"));
  EXPECT_FALSE(ran(precision).empty());
  for (const std::string& name : ran(precision)) EXPECT_EQ(name.rfind("precision/", 0), 0u) << name;
  EXPECT_EQ(checks(precision)["imports/shop.core"]["reused"], true);

  // --rerun-verify runs everything.
  const json all = runInto("out", "--rerun-verify");
  EXPECT_EQ(all["summary"]["reused"], 0) << all.dump(1);
  // In the same order: a run that kept most checks lists them as one that ran them all.
  auto order = [](const json& v) {
    std::vector<std::string> out;
    for (const json& c : v["checks"])
      out.push_back(c["stage"].get<std::string>() + "/" + c["check"].get<std::string>());
    return out;
  };
  EXPECT_EQ(order(added), order(all));
}

TEST_F(VerifyReuse, AFleetsNextNightStartsFromThePreviousOneButNotOnAnotherInterpreter) {
  const json first = runInto("night-1");
  ASSERT_EQ(first["status"], "completed") << first.dump(1);
  // A new output directory whose emit starts from the previous night's: its verification too.
  const json second = runInto("night-2", "--set " + quote("emit.base=" + out("night-1").string()));
  EXPECT_EQ(ran(second), std::set<std::string>{}) << second.dump(1);
  EXPECT_TRUE(fs::exists(out("night-2") / "verify" / "verify_state.json"));
  // Another interpreter is another target: nothing is kept.
  ASSERT_TRUE(fs::exists("/usr/bin/python3.11")) << "Debian 12's python3 is python3.11";
  const json other = runInto("night-3", "--set " + quote("emit.base=" + out("night-2").string()) +
                                            " --set targets.local.python=/usr/bin/python3.11");
  EXPECT_EQ(other["summary"]["reused"], 0) << other.dump(1);
}

}  // namespace
}  // namespace migrate
