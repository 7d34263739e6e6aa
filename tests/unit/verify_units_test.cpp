// The verify stage's parts: ssh failure classification, CANN error hints, reading check records
// (bad lines kept as errors), the process runner's deadline, and the verify/targets keys.

#include <gtest/gtest.h>

#include "migrate/engine/pipeline.hpp"
#include "support/test_support.hpp"
#include "verify/check_results.hpp"
#include "verify/process_runner.hpp"
#include "verify/target_host.hpp"

namespace migrate {
namespace {

using test::TempDir;
using test::writeFile;

TEST(VerifyParts, SshFailuresAreToldApart) {
  EXPECT_EQ(verify::classifySshFailure("ci@10.0.0.1: Permission denied (publickey).\n").status,
            "auth-failed");
  EXPECT_EQ(verify::classifySshFailure("Host key verification failed.\n").status, "auth-failed");
  EXPECT_EQ(verify::classifySshFailure("ssh: connect to host 127.0.0.1 port 1: Connection refused\n").status,
            "unreachable");
  EXPECT_EQ(
      verify::classifySshFailure("ssh: Could not resolve hostname nope: Name or service not known\n").status,
      "unreachable");
}

TEST(VerifyParts, KnownErrorsInAFailingCheckGetHints) {
  std::vector<CheckResult> checks{{"function", "tests", "failed", "", 0, "RuntimeError: EZ1001 ... bf16", {}},
                                  {"function", "smoke", "passed", "", 0, "507035 mentioned in passing", {}},
                                  {"precision", "x", "error", "will fall back to run on the CPU", 0, "", {}}};
  verify::addHints(checks);
  ASSERT_EQ(checks[0].hints.size(), 1u);
  EXPECT_NE(checks[0].hints[0].find("EZ1001"), std::string::npos);
  EXPECT_TRUE(checks[1].hints.empty()) << "passed checks get no hints";
  ASSERT_EQ(checks[2].hints.size(), 1u);
  EXPECT_NE(checks[2].hints[0].find("CPU fallback"), std::string::npos);
}

TEST(VerifyParts, RecordsAreReadAndABadLineIsAnErrorCheck) {
  TempDir dir;
  writeFile(
      dir / "r.jsonl",
      "{\"stage\":\"imports\",\"check\":\"m\",\"status\":\"passed\",\"detail\":\"ok\",\"duration\":0.5}\n"
      "not json\n\n"
      "{\"stage\":\"imports\",\"check\":\"n\",\"status\":\"weird\"}\n");
  const auto checks = verify::readCheckResults(dir / "r.jsonl");
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].status, "passed");
  EXPECT_DOUBLE_EQ(checks[0].duration, 0.5);
  EXPECT_EQ(checks[1].status, "error");
  EXPECT_NE(checks[1].detail.find("line 2"), std::string::npos);
  EXPECT_EQ(checks[2].status, "error");
}

TEST(VerifyParts, ProcessRunnerKillsTheWholeGroupAtTheDeadline) {
  verify::ProcessOptions o;
  o.timeout = std::chrono::seconds(1);
  const auto r = verify::runProcess({"bash", "-c", "sleep 57 & echo started; sleep 57"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_EQ(test::run("pgrep -f '^sleep 57$'").exit_code, 1);
  const auto ok = verify::runProcess({"bash", "-c", "echo out; echo err >&2; exit 3"}, o);
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_EQ(ok.output, "out\nerr\n");
  EXPECT_FALSE(verify::runProcess({"no-such-program-here"}, o).started);
  EXPECT_EQ(verify::shellQuote("it's"), "'it'\\''s'");
}

TEST(VerifyParts, VerifyAndTargetsKeysAreChecked) {
  TempDir dir;
  const std::string base = "version: 1\nsource: {path: repo}\nplugins: {device: {}}\n";
  writeFile(dir / "a.yaml", base + "verify: {target: lab}\n");
  auto a = loadPipeline(dir / "a.yaml", {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("local"), std::string::npos) << a.error().message;
  writeFile(dir / "b.yaml", base + "targets: {lab: {kind: ssh}}\n");
  auto b = loadPipeline(dir / "b.yaml", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("needs a host"), std::string::npos) << b.error().message;
  writeFile(dir / "c.yaml", base + "verify: {precision: [{name: p, command: x, outputs: [../up]}]}\n");
  EXPECT_FALSE(loadPipeline(dir / "c.yaml", {}).ok());
  writeFile(dir / "d.yaml",
            base + "targets: {lab: {host: h, user: ci}}\nverify: {target: lab, stage_timeout: 5}\n");
  auto d = loadPipeline(dir / "d.yaml", {{"targets.local.python", "/usr/bin/python3"}});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->targets.at("lab").kind, "ssh");
  EXPECT_EQ(d->targets.at("lab").port, 22);
  EXPECT_EQ(d->targets.at("local").python, "/usr/bin/python3");
  EXPECT_EQ(d->verify.stage_timeout_seconds, 5);
  // The dump reads back to the same settings.
  writeFile(dir / "e.yaml", dumpPipeline(*d));
  auto e = loadPipeline(dir / "e.yaml", {});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->targets.at("lab").host, "h");
  EXPECT_EQ(e->verify.target, "lab");
}

}  // namespace
}  // namespace migrate
