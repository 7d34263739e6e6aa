// The verify stage end to end through the CLI, for real: the bundled example verified on this
// host with /usr/bin/python3 and Debian's torch (NPU checks skipped, function and precision
// passing on the CPU), the same over ssh against an sshd started on 127.0.0.1 with throwaway
// keys, `migrate-pipeline verify OUTPUT_DIR`, and the ways a verification cannot finish:
// unreachable host, refused key, missing interpreter, a stage timing out, a failing check.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/local_sshd.hpp"
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
const std::string kPython = "--set targets.local.python=/usr/bin/python3";

test::CommandResult runFull(const fs::path& source, const fs::path& out, const std::string& extra) {
  return run(quote(test::cli().string()) + " run " +
             quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
             quote(source.string()) + " --output " + quote(out.string()) + " --set 'report.directory=\"\"' " +
             extra);
}

test::CommandResult reverify(const fs::path& out, const std::string& extra) {
  return run(quote(test::cli().string()) + " verify " + quote(out.string()) + " -q " + extra);
}

json verifyJson(const fs::path& out) {
  return json::parse(readFile(out / "verify.json"));
}

std::map<std::string, std::string> statuses(const json& v) {
  std::map<std::string, std::string> out;
  for (const auto& c : v["checks"])
    out[c["stage"].get<std::string>() + "/" + c["check"].get<std::string>()] = c["status"];
  return out;
}

/// The example analysed, emitted and verified locally, once for the suite.
class VerifyExample : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const auto r = runFull(kExample, out(), kPython);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }
  static TempDir* dir_;
};
TempDir* VerifyExample::dir_ = nullptr;

void expectExampleVerified(const json& v) {
  EXPECT_EQ(v["status"], "completed") << v.dump(1);
  const auto s = statuses(v);
  // No NPU here: the NPU checks are skipped with a reason, never passed.
  for (const char* npu : {"environment/npu-devices", "environment/torch_npu", "function/npu-ops-on-npu"})
    EXPECT_EQ(s.at(npu), "skipped") << npu;
  EXPECT_EQ(s.at("environment/torch"), "passed");
  EXPECT_EQ(s.at("imports/gpt.model"), "passed");
  EXPECT_EQ(s.at("function/tests"), "passed");
  EXPECT_EQ(s.at("function/npu-ops:flash_attn_func"), "passed");
  EXPECT_EQ(s.at("precision/train_infer:losses.json"), "passed");
  EXPECT_EQ(s.at("precision/train_infer:infer.json"), "passed");
  EXPECT_EQ(v["summary"]["failed"], 0);
  EXPECT_EQ(v["summary"]["error"], 0);
  // The modules and tests ran on the original tree too (over ssh as well), and nothing broke.
  EXPECT_EQ(v["verdict"], "passed") << v["outcomes"].dump();
  EXPECT_EQ(v["outcomes"]["introduced"], 0);
  EXPECT_GT(v["outcomes"]["passed"], 20);
  for (const auto& c : v["checks"]) {
    if (c["status"] == "skipped") {
      EXPECT_FALSE(c["detail"].get<std::string>().empty()) << c.dump();
    }
  }
}

TEST_F(VerifyExample, FunctionAndPrecisionPassOnTheCpuAndNpuChecksAreSkipped) {
  expectExampleVerified(verifyJson(out()));
  const json findings = json::parse(readFile(out() / "findings.json"));
  EXPECT_EQ(findings["run"]["stages"][3]["name"], "verify");
  EXPECT_EQ(findings["run"]["stages"][3]["status"], "completed");
  // Every line of the copied results is a record; the original tree's records are folded into
  // the adapted tree's checks, and every check there has the outcome of that comparison.
  std::istringstream lines(readFile(out() / "verify" / "verify_results.jsonl"));
  std::size_t n = 0, reference = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    const json record = json::parse(line);
    EXPECT_TRUE(record.is_object());
    reference += record.value("tree", "") == "reference" ? 1 : 0;
  }
  const json v = verifyJson(out());
  EXPECT_GT(reference, 10u) << "the modules and tests ran on the original tree too";
  EXPECT_EQ(n, v["checks"].size() + reference);
  EXPECT_EQ(v["verdict"], "passed");
  EXPECT_EQ(v["outcomes"]["introduced"], 0);
  for (const auto& c : v["checks"])
    if (c["stage"] == "imports" && c["check"] == "gpt.model") {
      EXPECT_EQ(c["outcome"], "passed") << c.dump(1);
      EXPECT_EQ(c["reference"]["status"], "passed") << c.dump(1);
    }
  // The report says what the verification could not show on this machine.
  const std::string report = readFile(test::reportIn(out()));
  EXPECT_NE(report.find("| Adaptation Status | ⚠️ Partially Adapted |"), std::string::npos);
  EXPECT_NE(report.find("skipped, so the adaptation is not verified on an NPU: environment/npu-devices"),
            std::string::npos);
  EXPECT_NE(report.find("| npu-devices | ⏭️ skipped | no NPU device"), std::string::npos);
  EXPECT_NE(report.find("| precision | train_infer:losses.json | ✅ passed |"), std::string::npos);
}

TEST_F(VerifyExample, VerifyOutputDirRunsItAgainWithoutAnalysing) {
  fs::remove(out() / "verify.json");
  const auto r = reverify(out(), "--set verify.precision=[]");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json v = verifyJson(out());
  EXPECT_EQ(statuses(v).at("precision/precision"), "skipped");
  EXPECT_EQ(statuses(v).at("function/tests"), "passed");
}

TEST_F(VerifyExample, OverSshAgainstARealSshdOnLoopback) {
  test::LocalSshd sshd;
  TempDir remote;
  const std::string target =
      "--set verify.target=lab --set targets.lab.kind=ssh --set targets.lab.host=" + sshd.host() +
      " --set targets.lab.port=" + std::to_string(sshd.port()) + " --set targets.lab.user=" + sshd.user() +
      " --set " + quote("targets.lab.identity_file=" + sshd.identityFile().string()) + " --set " +
      quote("targets.lab.known_hosts_file=" + sshd.knownHostsFile().string()) +
      " --set targets.lab.python=/usr/bin/python3 --set " +
      quote("targets.lab.workdir=" + (remote / "w d").string());
  const auto r = reverify(out(), target);
  ASSERT_EQ(r.exit_code, 0) << r.output << sshd.log();
  const json v = verifyJson(out());
  EXPECT_EQ(v["host"], sshd.user() + "@127.0.0.1:" + std::to_string(sshd.port()));
  expectExampleVerified(v);
  // The work happened in the target's working directory, and the results came back.
  EXPECT_TRUE(fs::exists(remote / "w d" / "migrate-verify-gpt_cuda" / "results" / "verify_results.jsonl"));
  EXPECT_TRUE(fs::exists(out() / "verify" / "verify_results.jsonl"));

  // A key the host does not accept: a status of its own, nothing else lost.
  const fs::path stranger = sshd.makeUnauthorizedKey();
  const auto denied =
      reverify(out(), target + " --set " + quote("targets.lab.identity_file=" + stranger.string()));
  EXPECT_EQ(denied.exit_code, 5) << denied.output;
  EXPECT_EQ(verifyJson(out())["status"], "auth-failed");
  EXPECT_TRUE(fs::exists(out() / "adapted" / "train.py"));
}

TEST_F(VerifyExample, AnUnreachableHostIsAStatusAndTheRunKeepsItsOutputs) {
  const std::string target =
      "--set verify.target=lab --set targets.lab.host=127.0.0.1 --set targets.lab.port=" +
      std::to_string(test::unusedLoopbackPort());
  const auto r = reverify(out(), target);
  EXPECT_EQ(r.exit_code, 5) << r.output;
  const json v = verifyJson(out());
  EXPECT_EQ(v["status"], "unreachable");
  EXPECT_NE(v["detail"].get<std::string>().find("Connection refused"), std::string::npos) << v["detail"];
  EXPECT_TRUE(fs::exists(out() / "findings.json"));
  EXPECT_TRUE(fs::exists(out() / "npu_migration.patch"));
}

TEST_F(VerifyExample, AMissingInterpreterIsAStatus) {
  const auto r = reverify(out(), "--set targets.local.python=/nonexistent/python3");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  const json v = verifyJson(out());
  EXPECT_EQ(v["status"], "interpreter-missing");
  EXPECT_NE(v["detail"].get<std::string>().find("/nonexistent/python3"), std::string::npos);
}

TEST_F(VerifyExample, AHostWithoutTorchReadsEnvironmentNotAnErrorOfTheVerification) {
  TempDir dir;  // the host's python without its site packages: no torch, numpy or pytest
  test::writeFile(dir / "python3", "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
  fs::permissions(dir / "python3", fs::perms::owner_exec, fs::perm_options::add);
  const auto r = reverify(out(), "--set " + quote("targets.local.python=" + (dir / "python3").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json v = verifyJson(out());
  EXPECT_EQ(v["status"], "completed");
  std::map<std::string, std::string> outcomes;
  for (const auto& c : v["checks"]) {
    const std::string key = c["stage"].get<std::string>() + "/" + c["check"].get<std::string>();
    outcomes[key] = c["outcome"];
    EXPECT_NE(c["outcome"], "error") << key << ": " << c["detail"];
    EXPECT_NE(c["outcome"], "introduced") << key << ": " << c["detail"];
  }
  EXPECT_EQ(outcomes["environment/torch"], "environment");
  EXPECT_EQ(outcomes["function/device-round-trip"], "environment");
}

TEST_F(VerifyExample, AStageOverItsTimeoutIsKilledAndTheOthersStillRun) {
  const auto t0 = std::chrono::steady_clock::now();
  // Only the precision stage has the short limit: a cold `import torch` in the other stages may
  // take longer than 3 s on a loaded machine. The sleeps are far longer than the whole run takes
  // on a loaded machine (about a minute), so a stage that was not killed shows in the wall time.
  const auto r = reverify(out(), kPython + " --set verify.stage_timeouts.precision=3 --set " +
                                     quote("verify.precision=[{name: slow, command: 'sleep 900 & sleep 900', "
                                           "outputs: [x.json]}]"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_LT(seconds, 600) << "the sleeping stage was not killed";
  const json v = verifyJson(out());
  EXPECT_EQ(v["status"], "timeout");
  const auto s = statuses(v);
  EXPECT_EQ(s.at("precision/stage"), "error");
  EXPECT_EQ(s.at("environment/torch"), "passed");
  EXPECT_EQ(s.count("benchmark/benchmark"), 1u) << "the stage after the timeout still ran";
  EXPECT_EQ(run("pgrep -f '^sleep 61$'").exit_code, 1) << "a process of the killed stage survived";
}

TEST_F(VerifyExample, AFailingCheckIsRecordedWithItsOutputAndKnownErrorsAreExplained) {
  const auto r = reverify(out(), kPython + " --set " +
                                     quote("verify.precision=[{name: broken, command: 'echo \"EZ9999: kernel "
                                           "failed, error code 507035\" >&2; exit 3', outputs: [x.json]}]"));
  EXPECT_EQ(r.exit_code, 0) << r.output;  // the verification ran: its result says what failed
  const json v = verifyJson(out());
  EXPECT_EQ(v["status"], "completed");
  bool found = false;
  for (const auto& c : v["checks"]) {
    if (c["stage"] != "precision" || c["status"] != "failed") continue;
    found = true;
    const std::string hints = c["hints"].dump();
    EXPECT_NE(hints.find("ACL_ERROR_RT_VECTOR_CORE_EXCEPTION"), std::string::npos) << c.dump(1);
    EXPECT_NE(hints.find("EZ9999"), std::string::npos) << c.dump(1);
  }
  EXPECT_TRUE(found) << v.dump(1);
  EXPECT_EQ(statuses(v).at("function/tests"), "passed") << "the stages around the failure still ran";
  // The run's record and its report follow the new verification.
  const json findings = json::parse(readFile(out() / "findings.json"));
  EXPECT_NE(findings["run"]["stages"][3]["detail"].get<std::string>().find("1 introduced"), std::string::npos)
      << findings["run"]["stages"][3].dump();
  const std::string report = readFile(test::reportIn(out()));
  EXPECT_NE(report.find("| Adaptation Status | ❌ Adaptation Failed |"), std::string::npos);
  EXPECT_NE(report.find("#### ❌ precision / broken"), std::string::npos)
      << report.substr(report.find("## 5."), 4000);
  EXPECT_NE(report.find("- **Known error**: 507035 (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION)"), std::string::npos);
  EXPECT_NE(report.find("EZ9999: kernel failed, error code 507035"), std::string::npos)
      << "the output's tail";
  EXPECT_NE(report.find("- **Manual intervention**: required."), std::string::npos);
}

}  // namespace
}  // namespace migrate
