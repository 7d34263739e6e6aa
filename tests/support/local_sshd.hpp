#pragma once
// A real OpenSSH server on 127.0.0.1 for tests of remote targets: throwaway host and client keys
// in a fresh temporary directory, public-key login for the current user only, stopped by PID.

#include <sys/types.h>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace migrate::test {

/// How to start a LocalSshd; the defaults suit every test.
struct LocalSshdOptions {
  /// The server binary (absolute: sshd re-executes itself).
  std::filesystem::path sshd = "/usr/sbin/sshd";
  /// How long sshd may take to accept connections before starting counts as failed.
  std::chrono::milliseconds start_timeout{10000};
  /// Lines appended to the generated sshd_config (e.g. "MaxSessions 2").
  std::vector<std::string> extra_config;
};

/// An sshd child process listening on 127.0.0.1 at a free port; killed (with every session it
/// started) and its directory removed when stopped or destroyed. The constructor throws
/// std::runtime_error, with sshd's own messages, when the server cannot be started.
class LocalSshd {
 public:
  explicit LocalSshd(LocalSshdOptions options = {});
  ~LocalSshd();
  LocalSshd(const LocalSshd&) = delete;
  LocalSshd& operator=(const LocalSshd&) = delete;

  /// The address sshd listens on.
  static std::string host() { return "127.0.0.1"; }
  /// The TCP port sshd listens on.
  int port() const { return port_; }
  /// The user the server lets in: the user running the test.
  const std::string& user() const { return user_; }
  /// "user@127.0.0.1", the destination argument of ssh.
  std::string destination() const { return user_ + "@" + host(); }
  /// The authorized client private key.
  const std::filesystem::path& identityFile() const { return identity_file_; }
  /// A known_hosts file that already holds this server's host key.
  const std::filesystem::path& knownHostsFile() const { return known_hosts_file_; }
  /// The server's PID while it runs, -1 after stop().
  pid_t pid() const { return pid_; }

  /// Client options for ssh: port, identity, batch mode, host-key settings, no user config.
  std::vector<std::string> sshArgs() const { return sshArgs(identity_file_); }
  /// The same, logging in with another private key.
  std::vector<std::string> sshArgs(const std::filesystem::path& identity) const;
  /// The options without the port, for clients that spell it differently (scp -P) or for
  /// connecting to another port.
  std::vector<std::string> clientOptions(const std::filesystem::path& identity) const;

  /// Generates a fresh key pair that this server does NOT accept; returns its private key.
  std::filesystem::path makeUnauthorizedKey();
  /// What sshd has written to stderr so far (its log, -e).
  std::string log() const;

  /// Kills sshd and its sessions and reaps it; the port refuses connections afterwards.
  /// Calling it again does nothing.
  void stop();

 private:
  void start(const LocalSshdOptions& options);
  bool launch(const LocalSshdOptions& options);
  void writeConfig(const LocalSshdOptions& options) const;
  void removeDirectory();

  std::filesystem::path dir_;
  std::filesystem::path identity_file_;
  std::filesystem::path known_hosts_file_;
  std::string user_;
  int port_ = -1;
  pid_t pid_ = -1;
  int unauthorized_keys_ = 0;
};

/// A loopback TCP port with nothing listening on it (for "connection refused" tests).
int unusedLoopbackPort();

}  // namespace migrate::test
