// Outcomes of the verification, for real (issue 31): a fixture repository with a real pytest
// suite, verified on this host with /usr/bin/python3 (Debian's torch and pytest) on both trees.
// Each test of the suite is a check of its own and is compared with the same test on the original
// tree: a test that passes on both is `passed`, one that already failed is `pre-existing`, one
// that needs a package the host lacks is `environment` (naming it, and whether the project
// declares it), one that a wrong fix of a rule pack breaks is `introduced`, and one that hangs
// hits its time limit while the others still run; attribution names the pack's edit, over ssh too.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "migrate/engine/model.hpp"

#include "support/chromium.hpp"
#include "support/local_sshd.hpp"
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

void writeRepository(const fs::path& repo) {
  writeFile(repo / "requirements.txt", "torch\nwandb>=0.15\n");
  writeFile(repo / "shop" / "__init__.py", "");
  writeFile(repo / "shop" / "core.py",
            "import torch\n"
            "\n"
            "\n"
            "def activate(x):\n"
            "    return torch.nn.functional.relu(x)\n"
            "\n"
            "\n"
            "def device():\n"
            "    return torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n");
  writeFile(repo / "shop" / "tracking.py",
            "import wandb\n\n\ndef log(step):\n    wandb.log({\"step\": step})\n");
  writeFile(repo / "tests" / "test_shop.py",
            "import time\n"
            "\n"
            "import torch\n"
            "\n"
            "from shop.core import activate, device\n"
            "\n"
            "\n"
            "def test_add():\n"
            "    assert (torch.ones(2, device=device()) + 1).tolist() == [2.0, 2.0]\n"
            "\n"
            "\n"
            "def test_activate():\n"
            "    assert activate(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]\n"
            "\n"
            "\n"
            "def test_known_bug():\n"
            "    assert 1 + 1 == 3\n"
            "\n"
            "\n"
            "def test_tracking():\n"
            "    from shop.tracking import log\n"
            "    log(1)\n"
            "\n"
            "\n"
            "def test_hangs():\n"
            "    time.sleep(300)\n");
}

class VerifyOutcomes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    writeWrongPack(dir_->path() / "packs" / "acme");
    writeRepository(dir_->path() / "repo");
    writeFile(dir_->path() / "pipeline.yaml",
              "version: 1\n"
              "source: {path: repo}\n"
              "stages: [analyze, plan, emit, verify, report]\n"
              "plugins: {deps: {}, device: {}, phase_matrix: {}}\n"
              "rule_packs: [packs/acme]\n"
              "verify:\n"
              "  stage_timeout: 300\n"
              "  tests: {command: auto, per_test_timeout: 3}\n"
              "targets: {local: {python: /usr/bin/python3}}\n"
              "report: {directory: \"\"}\n");
    result_ = new test::CommandResult(run(quote(test::cli().string()) + " run " +
                                          quote((dir_->path() / "pipeline.yaml").string()) + " -q --output " +
                                          quote(out().string())));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }
  static json verifyJson() { return json::parse(readFile(out() / "verify.json")); }
  static json check(const std::string& stage, const std::string& name) {
    const json v = verifyJson();
    for (const auto& c : v["checks"])
      if (c["stage"] == stage && c["check"] == name) return c;
    ADD_FAILURE() << "no check " << stage << "/" << name << " in " << v.dump(1);
    return json::object();
  }
  static TempDir* dir_;
  static test::CommandResult* result_;
};
TempDir* VerifyOutcomes::dir_ = nullptr;
test::CommandResult* VerifyOutcomes::result_ = nullptr;

TEST_F(VerifyOutcomes, EachTestIsComparedWithTheOriginalTree) {
  ASSERT_EQ(result_->exit_code, 0) << result_->output;
  const json v = verifyJson();
  EXPECT_EQ(v["status"], "completed") << v.dump(1);
  EXPECT_EQ(v["verdict"], "failed") << "an introduced failure fails the verification";

  const json add = check("function", "test:tests/test_shop.py::test_add");
  EXPECT_EQ(add["outcome"], "passed") << add.dump(1);
  EXPECT_EQ(add["reference"]["status"], "passed");

  const json bug = check("function", "test:tests/test_shop.py::test_known_bug");
  EXPECT_EQ(bug["status"], "failed");
  EXPECT_EQ(bug["outcome"], "pre-existing") << bug.dump(1);
  EXPECT_EQ(bug["reference"]["status"], "failed");

  const json tracking = check("function", "test:tests/test_shop.py::test_tracking");
  EXPECT_EQ(tracking["outcome"], "environment") << tracking.dump(1);
  EXPECT_NE(
      tracking["cause"].get<std::string>().find("module wandb: not installed on the target (package wandb, "
                                                "which the project declares)"),
      std::string::npos)
      << tracking.dump(1);

  // The wrong fix breaks the test on the adapted tree only.
  const json activated = check("function", "test:tests/test_shop.py::test_activate");
  EXPECT_EQ(activated["status"], "failed");
  EXPECT_EQ(activated["outcome"], "introduced") << activated.dump(1);
  EXPECT_EQ(activated["reference"]["status"], "passed");
  EXPECT_EQ(activated["cause"], "passes on the original tree");
  // Attribution: the check re-run on trial trees names the pack's edit that breaks it.
  EXPECT_EQ(activated["broken_by"], json::array({"ACME-001 at shop/core.py:5"})) << activated.dump(1);
  const std::string how = activated["attribution"];
  int reruns = 0;
  ASSERT_EQ(std::sscanf(how.c_str(), "found in %d re-runs", &reruns), 1) << how;
  EXPECT_LE(reruns, 12) << how;
  EXPECT_EQ(v["outcomes"]["introduced"], 1) << v.dump(1);
}

TEST_F(VerifyOutcomes, AHangingTestHitsItsLimitAndTheOthersStillRun) {
  ASSERT_EQ(result_->exit_code, 0) << result_->output;
  const json hang = check("function", "test:tests/test_shop.py::test_hangs");
  EXPECT_EQ(hang["status"], "failed") << hang.dump(1);
  EXPECT_NE(hang["detail"].get<std::string>().find("the test ran longer than 3 s"), std::string::npos)
      << hang.dump(1);
  EXPECT_EQ(hang["outcome"], "pre-existing") << "it hangs on the original tree as well";
  const json suite = check("function", "tests");
  EXPECT_EQ(suite["status"], "passed") << suite.dump(1);
  EXPECT_NE(suite["detail"].get<std::string>().find("5 test(s) recorded one by one"), std::string::npos)
      << suite.dump(1);
}

TEST_F(VerifyOutcomes, TheReportSeparatesTheMigrationsFailuresFromTheHosts) {
  ASSERT_EQ(result_->exit_code, 0) << result_->output;
  const std::string report = readFile(test::reportIn(out()));
  const std::string section = report.substr(report.find("## 5. Verification"));
  EXPECT_NE(section.find("| function | test:tests/test_shop.py::test_activate | ❌ introduced |"),
            std::string::npos)
      << section.substr(0, 6000);
  EXPECT_NE(section.find("| function | test:tests/test_shop.py::test_known_bug | ➖ pre-existing |"),
            std::string::npos);
  EXPECT_NE(section.find("| function | test:tests/test_shop.py::test_tracking | 🧩 environment |"),
            std::string::npos);
  EXPECT_NE(
      section.find("- module wandb: not installed on the target (package wandb, which the project declares) "
                   "(1 check)"),
      std::string::npos)
      << section.substr(0, 6000);
  EXPECT_NE(section.find("#### ❌ function / test:tests/test_shop.py::test_activate: introduced"),
            std::string::npos);
  EXPECT_NE(section.find("- **Against the original tree**: passes on the original tree"), std::string::npos);
  EXPECT_NE(section.find("- **Broken by**: `ACME-001 at shop/core.py:5` (found in "), std::string::npos)
      << section.substr(0, 8000);
  EXPECT_EQ(section.find("#### ❌ function / test:tests/test_shop.py::test_known_bug"), std::string::npos)
      << "a pre-existing failure is not the migration's to fix";
}

TEST_F(VerifyOutcomes, OverSshTheOutcomesAndTheAttributionAreTheSame) {
  ASSERT_EQ(result_->exit_code, 0) << result_->output;
  test::LocalSshd sshd;
  TempDir remote;
  const auto r = run(
      quote(test::cli().string()) + " verify " + quote(out().string()) +
      " -q --set verify.target=lab --set targets.lab.kind=ssh --set targets.lab.host=" + sshd.host() +
      " --set targets.lab.port=" + std::to_string(sshd.port()) + " --set targets.lab.user=" + sshd.user() +
      " --set " + quote("targets.lab.identity_file=" + sshd.identityFile().string()) + " --set " +
      quote("targets.lab.known_hosts_file=" + sshd.knownHostsFile().string()) +
      " --set targets.lab.python=/usr/bin/python3 --set " +
      quote("targets.lab.workdir=" + remote.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output << sshd.log();
  const json v = verifyJson();
  EXPECT_EQ(v["host"], sshd.user() + "@127.0.0.1:" + std::to_string(sshd.port()));
  EXPECT_EQ(check("function", "test:tests/test_shop.py::test_known_bug")["outcome"], "pre-existing");
  EXPECT_EQ(check("function", "test:tests/test_shop.py::test_tracking")["outcome"], "environment");
  const json activated = check("function", "test:tests/test_shop.py::test_activate");
  EXPECT_EQ(activated["outcome"], "introduced");
  EXPECT_EQ(activated["broken_by"], json::array({"ACME-001 at shop/core.py:5"})) << activated.dump(1);
}

// verify_junit.xml, read by Python's XML parser as a CI system would: only the migration's
// failure fails; what the host lacks and what already failed are skipped with their reason.
TEST_F(VerifyOutcomes, TheJunitReportFailsOnlyWhatTheMigrationBroke) {
  ASSERT_EQ(result_->exit_code, 0) << result_->output;
  const auto r =
      run("python3 -c " +
          quote("import sys, xml.etree.ElementTree as E\n"
                "root = E.parse(sys.argv[1]).getroot()\n"
                "print(root.tag, root.get('failures'), root.get('errors'))\n"
                "for case in root.iter('testcase'):\n"
                "    if case.get('name').startswith('test:'):\n"
                "        kids = [(k.tag, (k.get('message') or '')[:14], 'ACME-001' in (k.text or '')) "
                "for k in case]\n"
                "        print(case.get('classname'), case.get('name'), kids)\n") +
          " " + quote((out() / "verify_junit.xml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("testsuites 1 0\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("function test:tests/test_shop.py::test_add []"), std::string::npos) << r.output;
  EXPECT_NE(
      r.output.find("function test:tests/test_shop.py::test_activate [('failure', 'introduced: fa', True)]"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("test:tests/test_shop.py::test_known_bug [('skipped', 'pre-existing (', False)]"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("test:tests/test_shop.py::test_tracking [('skipped', 'environment: m', False)]"),
            std::string::npos)
      << r.output;
}

// A fleet night over the same repository and pipeline: the store keeps the checks per outcome
// and, per rule, the checks its edits broke; the dashboard (in Chromium) shows both.
TEST_F(VerifyOutcomes, TheFleetKeepsTheOutcomesAndTheRulesWhoseEditsBrokeChecks) {
  ASSERT_TRUE(fs::exists(test::kChromium))
      << "Debian's chromium is missing: scripts/setup.sh --with-tests installs it";
  const fs::path dir = dir_->path();
  writeFile(dir / "fleet.yaml",
            "format: 1\npipeline: pipeline.yaml\nrepos:\n  - {name: shop, source: repo}\n");
  const fs::path fleet = dir / "fleet";
  const auto night = run(quote(test::cli().string()) + " fleet run " + quote((dir / "fleet.yaml").string()) +
                         " --output " + quote(fleet.string()) + " -q");
  const fs::path db = fleet / "fleet.db";
  ASSERT_TRUE(fs::exists(db)) << night.output;
  auto sql = [&](const std::string& query) {
    return run("python3 -c " +
               quote("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                     "print('\\n'.join('|'.join(map(str, r)) for r in c.execute(sys.argv[2])))") +
               " " + quote(db.string()) + " " + quote(query))
        .output;
  };
  // The same counts as the run above wrote to its verify.json (same repository, pipeline, host).
  std::string expected, shown;
  for (const char* outcome : kCheckOutcomes)
    if (const json n = verifyJson()["outcomes"].value(outcome, json(0)); n.get<int>() > 0) {
      expected += std::string(outcome) + "|" + std::to_string(n.get<int>()) + "\n";
      shown += (shown.empty() ? "" : ", ") + std::to_string(n.get<int>()) + " " + outcome;
    }
  ASSERT_NE(expected.find("introduced|1\n"), std::string::npos) << expected;
  EXPECT_NE(expected.find("environment|"), std::string::npos) << expected;
  EXPECT_EQ(sql("SELECT outcome, checks FROM check_outcomes ORDER BY CASE outcome WHEN 'passed' THEN 0 "
                "WHEN 'introduced' THEN 1 WHEN 'pre-existing' THEN 2 WHEN 'environment' THEN 3 WHEN 'fixed' "
                "THEN 4 WHEN 'skipped' THEN 5 ELSE 6 END"),
            expected)
      << night.output;
  EXPECT_EQ(sql("SELECT repo, rule, checks FROM broken_rules"), "shop|ACME-001|1\n") << night.output;
  EXPECT_EQ(sql("SELECT checks_failed FROM runs"), "1\n");

  const test::Rendered page = test::renderInChromium(*dir_, "file://" + (fleet / "index.html").string());
  EXPECT_EQ(page.log.find("CONSOLE"), std::string::npos) << page.log;
  EXPECT_NE(
      page.dom.find("<div class=\"value\">1</div><div class=\"muted\">checks the migration broke</div>"),
      std::string::npos)
      << page.dom.substr(0, 3000);
  EXPECT_NE(page.dom.find("<tr data-rule=\"ACME-001\"><td><code>ACME-001</code></td><td class=\"num\">1</td>"
                          "<td class=\"num\">1</td><td>shop</td></tr>"),
            std::string::npos)
      << page.dom;
  EXPECT_NE(page.dom.find(">" + shown + "</td>"), std::string::npos) << shown << "\n" << page.dom;
}

}  // namespace
}  // namespace migrate
