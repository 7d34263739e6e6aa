#include "support/local_sshd.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace migrate::test {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInstallHint = "install openssh-server (scripts/setup.sh --with-tests)";

[[noreturn]] void fail(const std::string& message) {
  throw std::runtime_error("LocalSshd: " + message);
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeText(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) fail("cannot write " + path.string());
}

std::string currentUser() {
  const passwd* entry = getpwuid(geteuid());
  if (!entry) fail("the current user (uid " + std::to_string(geteuid()) + ") has no passwd entry");
  return entry->pw_name;
}

fs::path makeTempDir() {
  std::string pattern = (fs::temp_directory_path() / "migrate-sshd-XXXXXX").string();
  if (!mkdtemp(pattern.data())) fail("cannot create a temporary directory: " + std::string(strerror(errno)));
  return pattern;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// Runs a program found on PATH to completion; its stdout and stderr go to `output`.
int runTool(const std::vector<std::string>& args, const fs::path& output) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) fail(args[0] + " cannot be run (" + strerror(spawned) + "): " + kInstallHint);
  int status = 0;
  while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
  }
  return status;
}

void generateKey(const fs::path& private_key) {
  const fs::path output = private_key.string() + ".keygen.log";
  const int status = runTool(
      {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "migrate-local-sshd", "-f", private_key}, output);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("ssh-keygen failed (" + describeStatus(status) + "): " + readText(output));
}

/// The first two fields of an OpenSSH public key line ("ssh-ed25519 AAAA...").
std::string keyTypeAndBlob(const fs::path& public_key) {
  std::istringstream in(readText(public_key));
  std::string type, blob;
  in >> type >> blob;
  if (blob.empty()) fail("unreadable public key " + public_key.string());
  return type + " " + blob;
}

/// Starts `argv` in its own process group with stdin from /dev/null and stdout and stderr
/// appended to `log`. The child gets SIGTERM if the test process dies without cleaning up.
pid_t spawnDaemon(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (null_fd < 0 || log_fd < 0) fail("cannot open " + log.string() + ": " + strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execv(argv[0], argv.data());
    constexpr char message[] = "LocalSshd: exec of the sshd binary failed\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(127);
  }
  const int fork_errno = errno;
  close(null_fd);
  close(log_fd);
  if (pid < 0) fail(std::string("fork failed: ") + strerror(fork_errno));
  return pid;
}

bool acceptsConnections(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return connected;
}

/// Every live process below `root` (children, grandchildren, ...), read from /proc.
std::set<pid_t> descendantsOf(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = readText(entry.path() / "stat");
    const auto close_paren = stat.rfind(')');  // the command name may hold spaces and parens
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(close_paren + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    if (state != 'Z') children.emplace(parent, std::stoi(name));
  }
  std::set<pid_t> found;
  std::vector<pid_t> pending{root};
  while (!pending.empty()) {
    const pid_t current = pending.back();
    pending.pop_back();
    const auto [first, last] = children.equal_range(current);
    for (auto it = first; it != last; ++it)
      if (found.insert(it->second).second) pending.push_back(it->second);
  }
  return found;
}

void ensurePrivilegeSeparationDir() {
  // sshd running as root refuses to start without it; unprivileged sshd does not use it.
  if (geteuid() != 0) return;
  const fs::path dir = "/run/sshd";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("cannot create " + dir.string() + ": " + ec.message());
  if (chmod(dir.c_str(), 0755) != 0) fail("cannot chmod " + dir.string() + ": " + strerror(errno));
}

}  // namespace

int unusedLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(std::string("socket: ") + strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error = errno;
    close(fd);
    fail(std::string("cannot find a free loopback port: ") + strerror(error));
  }
  close(fd);  // never listened on, so nothing accepts connections there
  return ntohs(address.sin_port);
}

LocalSshd::LocalSshd(LocalSshdOptions options) {
  try {
    start(options);
  } catch (...) {
    stop();
    removeDirectory();
    throw;
  }
}

LocalSshd::~LocalSshd() {
  stop();
  removeDirectory();
}

void LocalSshd::start(const LocalSshdOptions& options) {
  if (!options.sshd.is_absolute() || access(options.sshd.c_str(), X_OK) != 0)
    fail(options.sshd.string() + " not found or not executable: " + kInstallHint);
  user_ = currentUser();
  dir_ = makeTempDir();
  ensurePrivilegeSeparationDir();
  generateKey(dir_ / "host_ed25519");
  identity_file_ = dir_ / "client_ed25519";
  generateKey(identity_file_);
  writeText(dir_ / "authorized_keys", keyTypeAndBlob(identity_file_.string() + ".pub") + "\n");
  known_hosts_file_ = dir_ / "known_hosts";

  // The port is free when chosen but another process may take it before sshd binds: retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = unusedLoopbackPort();
    writeText(known_hosts_file_, std::string("[")
                                     .append(host())
                                     .append("]:")
                                     .append(std::to_string(port_))
                                     .append(" ")
                                     .append(keyTypeAndBlob(dir_ / "host_ed25519.pub"))
                                     .append("\n"));
    writeConfig(options);
    if (launch(options)) return;
  }
  fail("sshd could not bind a free loopback port in 5 attempts; its output:\n" + log());
}

void LocalSshd::writeConfig(const LocalSshdOptions& options) const {
  std::string config = "Port " + std::to_string(port_) + "\n" + "ListenAddress " + host() + "\n" +
                       "HostKey " + (dir_ / "host_ed25519").string() + "\n" + "PidFile " +
                       (dir_ / "sshd.pid").string() + "\n" + "AuthorizedKeysFile " +
                       (dir_ / "authorized_keys").string() + "\n" + "AllowUsers " + user_ + "\n" +
                       "PubkeyAuthentication yes\n"
                       "PasswordAuthentication no\n"
                       "KbdInteractiveAuthentication no\n"
                       "PermitRootLogin prohibit-password\n"
                       "UsePAM no\n"
                       "StrictModes no\n"
                       "UseDNS no\n"
                       "PrintMotd no\n"
                       "PrintLastLog no\n"
                       // scp speaks SFTP since OpenSSH 9.0.
                       "Subsystem sftp internal-sftp\n";
  for (const auto& line : options.extra_config) config += line + "\n";
  writeText(dir_ / "sshd_config", config);
}

bool LocalSshd::launch(const LocalSshdOptions& options) {
  const fs::path log_file = dir_ / "sshd.log";
  writeText(log_file, "");
  pid_ = spawnDaemon({options.sshd.string(), "-D", "-e", "-f", (dir_ / "sshd_config").string()}, log_file);
  const auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
  const std::string where = host() + ":" + std::to_string(port_);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      const std::string output = log();
      if (output.find("Address already in use") != std::string::npos) return false;
      fail("sshd ended (" + describeStatus(status) + ") before accepting connections on " + where +
           "; its output:\n" + output);
    }
    if (acceptsConnections(port_)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop();
  fail("sshd did not accept connections on " + where + " within " +
       std::to_string(options.start_timeout.count()) + " ms; its output:\n" + log());
}

std::vector<std::string> LocalSshd::clientOptions(const fs::path& identity) const {
  return {"-F", "none",  // no ~/.ssh/config
          "-i", identity.string(), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o",
          "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + known_hosts_file_.string(), "-o",
          "GlobalKnownHostsFile=/dev/null", "-o", "ConnectTimeout=10",
          // Errors (Permission denied, Connection refused) only: no "Warning: Permanently added".
          "-o", "LogLevel=ERROR"};
}

std::vector<std::string> LocalSshd::sshArgs(const fs::path& identity) const {
  std::vector<std::string> args{"-p", std::to_string(port_)};
  for (auto& option : clientOptions(identity)) args.push_back(std::move(option));
  return args;
}

fs::path LocalSshd::makeUnauthorizedKey() {
  const fs::path key = dir_ / ("unauthorized_ed25519_" + std::to_string(++unauthorized_keys_));
  generateKey(key);
  return key;
}

std::string LocalSshd::log() const {
  return dir_.empty() ? std::string() : readText(dir_ / "sshd.log");
}

void LocalSshd::stop() {
  if (pid_ <= 0) return;
  // Freeze sshd and everything below it so nothing forks while the tree is collected, then kill
  // all of it: sessions detach into their own sessions and would outlive a killed listener.
  kill(pid_, SIGSTOP);
  std::set<pid_t> tree;
  for (int round = 0; round < 10; ++round) {
    bool grew = false;
    for (pid_t p : descendantsOf(pid_))
      if (tree.insert(p).second) {
        kill(p, SIGSTOP);
        grew = true;
      }
    if (!grew) break;
  }
  for (pid_t p : tree) kill(p, SIGKILL);
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) == -1 && errno == EINTR) {
  }
  pid_ = -1;
}

void LocalSshd::removeDirectory() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
  dir_.clear();
}

}  // namespace migrate::test
