// LocalSshd against the real OpenSSH client: login, refused key, closed port, stop and cleanup.

#include "support/local_sshd.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <functional>
#include <thread>

#include "support/test_support.hpp"

namespace migrate::test {
namespace {

std::string joinQuoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += quote(a) + " ";
  return out;
}

/// Runs `remote_command` through the real ssh client with `args`.
CommandResult ssh(const std::vector<std::string>& args, const std::string& destination,
                  const std::string& remote_command) {
  return run("ssh " + joinQuoted(args) + quote(destination) + " " + quote(remote_command) + " </dev/null");
}

/// True while `pid` is a live (not zombie) process.
bool processAlive(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close_paren = stat.rfind(')');
  return close_paren != std::string::npos && stat.size() > close_paren + 2 && stat[close_paren + 2] != 'Z';
}

bool waitUntil(const std::function<bool()>& condition, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

TEST(LocalSshd, RunsACommandForTheCurrentUserWithTheRealClient) {
  LocalSshd sshd;
  const CommandResult echo = ssh(sshd.sshArgs(), sshd.destination(), "echo ok");
  EXPECT_EQ(echo.exit_code, 0) << echo.output << "\nsshd log:\n" << sshd.log();
  EXPECT_EQ(echo.output, "ok\n");

  const CommandResult who = ssh(sshd.sshArgs(), sshd.destination(), "id -un");
  EXPECT_EQ(who.output, sshd.user() + "\n") << sshd.log();
}

TEST(LocalSshd, KnownHostsFileHoldsTheServerKey) {
  LocalSshd sshd;
  // ssh keeps the first value of an option, so this overrides the helper's "no".
  std::vector<std::string> strict{"-o", "StrictHostKeyChecking=yes"};
  for (const auto& a : sshd.sshArgs()) strict.push_back(a);
  const CommandResult r = ssh(strict, sshd.destination(), "echo ok");
  EXPECT_EQ(r.exit_code, 0) << r.output << "\nsshd log:\n" << sshd.log();
  EXPECT_EQ(r.output, "ok\n");
}

TEST(LocalSshd, UnauthorizedKeyIsDenied) {
  LocalSshd sshd;
  const auto stranger = sshd.makeUnauthorizedKey();
  ASSERT_TRUE(fs::exists(stranger));
  const CommandResult r = ssh(sshd.sshArgs(stranger), sshd.destination(), "echo ok");
  EXPECT_EQ(r.exit_code, 255) << r.output;
  EXPECT_NE(r.output.find("Permission denied"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("ok"), std::string::npos) << r.output;
}

TEST(LocalSshd, UnusedPortRefusesConnections) {
  LocalSshd sshd;
  const int closed = unusedLoopbackPort();
  ASSERT_NE(closed, sshd.port());
  std::vector<std::string> args{"-p", std::to_string(closed)};
  for (const auto& a : sshd.clientOptions(sshd.identityFile())) args.push_back(a);
  const CommandResult r = ssh(args, sshd.destination(), "echo ok");
  EXPECT_EQ(r.exit_code, 255) << r.output;
  EXPECT_NE(r.output.find("Connection refused"), std::string::npos) << r.output;
}

TEST(LocalSshd, CopiesFilesWithScp) {
  LocalSshd sshd;
  TempDir dir;
  writeFile(dir / "source file.txt", "payload\n");
  const std::string command = "scp -q -P " + std::to_string(sshd.port()) + " " +
                              joinQuoted(sshd.clientOptions(sshd.identityFile())) +
                              quote((dir / "source file.txt").string()) + " " +
                              quote(sshd.destination() + ":" + (dir / "copied.txt").string());
  const CommandResult r = run(command);
  EXPECT_EQ(r.exit_code, 0) << r.output << "\nsshd log:\n" << sshd.log();
  EXPECT_EQ(readFile(dir / "copied.txt"), "payload\n");
}

TEST(LocalSshd, StopKillsTheServerAndThePortRefuses) {
  LocalSshd sshd;
  const pid_t pid = sshd.pid();
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(processAlive(pid));
  sshd.stop();
  EXPECT_EQ(sshd.pid(), -1);
  EXPECT_FALSE(processAlive(pid));
  const CommandResult r = ssh(sshd.sshArgs(), sshd.destination(), "echo ok");
  EXPECT_EQ(r.exit_code, 255) << r.output;
  EXPECT_NE(r.output.find("Connection refused"), std::string::npos) << r.output;
  sshd.stop();  // a second stop is harmless
}

TEST(LocalSshd, DestructorEndsRunningSessionsAndRemovesItsFiles) {
  TempDir dir;
  const fs::path pid_file = dir / "remote.pid";
  pid_t server = -1;
  fs::path key;
  {
    LocalSshd sshd;
    server = sshd.pid();
    key = sshd.identityFile();
    // A session that would outlive the test: the remote shell records its PID and sleeps.
    const std::string remote = "echo $$ > " + quote(pid_file.string()) + "; exec sleep 300";
    const CommandResult started = run("ssh " + joinQuoted(sshd.sshArgs()) + quote(sshd.destination()) + " " +
                                      quote(remote) + " </dev/null >/dev/null 2>&1 &");
    ASSERT_EQ(started.exit_code, 0) << started.output;
    ASSERT_TRUE(waitUntil([&] { return !readFile(pid_file).empty(); }, std::chrono::seconds(15)))
        << sshd.log();
  }
  const pid_t session = std::stoi(readFile(pid_file));
  EXPECT_FALSE(processAlive(server));
  EXPECT_TRUE(waitUntil([&] { return !processAlive(session); }, std::chrono::seconds(5)))
      << "remote process " << session << " survived";
  EXPECT_FALSE(fs::exists(key));
}

TEST(LocalSshd, StartFailureReportsSshdOutput) {
  LocalSshdOptions options;
  options.extra_config = {"NoSuchOption yes"};
  try {
    LocalSshd sshd(options);
    FAIL() << "sshd started with an invalid configuration";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchOption"), std::string::npos) << e.what();
  }
}

TEST(LocalSshd, MissingSshdNamesThePackage) {
  LocalSshdOptions options;
  options.sshd = "/nonexistent/sbin/sshd";
  try {
    LocalSshd sshd(options);
    FAIL() << "started without an sshd binary";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("install openssh-server (scripts/setup.sh --with-tests)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace migrate::test
