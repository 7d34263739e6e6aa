#include "verify/target_host.hpp"

#include <cstdlib>

namespace migrate::verify {
namespace fs = std::filesystem;

namespace {

/// The interpreter check both targets run: found, and able to print its version.
std::string interpreterProbe(const std::string& python) {
  const std::string q = shellQuote(python);
  return "if ! command -v " + q + " >/dev/null 2>&1; then echo \"interpreter not found: \"" + q +
         "; exit 127; fi; " + q + " -c 'import sys; print(sys.version.split()[0])'";
}

Reach interpreterReach(const ProcessResult& r, const std::string& python) {
  if (r.timed_out) return {"timeout", "the interpreter check did not finish"};
  if (r.exit_code == 0) return {"ok", "Python " + r.output.substr(0, r.output.find('\n'))};
  return {"interpreter-missing", python + " does not run on the target (" +
                                     r.output.substr(0, r.output.find('\n')) +
                                     "); set targets.<name>.python to its interpreter"};
}

class LocalTarget final : public TargetHost {
 public:
  LocalTarget(TargetSpec spec, fs::path workdir, fs::path log)
      : spec_(std::move(spec)), workdir_(std::move(workdir)), log_(std::move(log)) {}
  std::string describe() const override { return "local"; }
  std::string workdir() const override { return workdir_.string(); }
  Reach probe(std::chrono::seconds timeout) override {
    return interpreterReach(run(interpreterProbe(spec_.python), timeout), spec_.python);
  }
  ProcessResult upload(const fs::path& layout, std::chrono::seconds) override {
    ProcessResult r;
    r.started = true;
    r.exit_code = layout == workdir_ ? 0 : 1;  // the layout is built in place
    if (r.exit_code) r.output = "a local target works in its layout";
    return r;
  }
  ProcessResult run(const std::string& shell, std::chrono::seconds timeout) override {
    ProcessOptions o;
    o.cwd = workdir_;
    o.timeout = timeout;
    o.log = log_;
    return runProcess({"bash", "-c", shell}, o);
  }
  ProcessResult download(const fs::path&, std::chrono::seconds) override {
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
  }

 private:
  TargetSpec spec_;
  fs::path workdir_;
  fs::path log_;
};

std::string expandHome(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + path.substr(1) : path;
}

class SshTarget final : public TargetHost {
 public:
  SshTarget(TargetSpec spec, const std::string& project, fs::path log)
      : spec_(std::move(spec)), log_(std::move(log)) {
    const std::string base = spec_.workdir.empty() ? "/tmp/migrate-verify" : spec_.workdir;
    workdir_ = base + "/migrate-verify-" + project;
  }
  std::string describe() const override {
    return (spec_.user.empty() ? "" : spec_.user + "@") + spec_.host + ":" + std::to_string(spec_.port);
  }
  std::string workdir() const override { return workdir_; }

  Reach probe(std::chrono::seconds timeout) override {
    const ProcessResult reach = ssh("true", timeout);
    if (reach.timed_out)
      return {"unreachable", describe() + " did not answer within " + std::to_string(timeout.count()) + " s"};
    if (!reach.started) return {"error", reach.output};
    if (reach.exit_code == 255) return classifySshFailure(reach.output);
    if (reach.exit_code != 0) return {"error", "ssh " + describe() + " failed: " + reach.output};
    return interpreterReach(ssh(interpreterProbe(spec_.python), timeout), spec_.python);
  }

  ProcessResult upload(const fs::path& layout, std::chrono::seconds timeout) override {
    const std::string w = shellQuote(workdir_);
    const std::string remote = "rm -rf " + w + " && mkdir -p " + w + " && tar -C " + w + " -xf -";
    return local("tar -C " + shellQuote(layout.string()) + " -cf - . | " + sshCommandLine(remote), timeout);
  }

  ProcessResult run(const std::string& shell, std::chrono::seconds timeout) override {
    // The remote side gets its own deadline (a little earlier), so nothing outlives a timeout
    // there either; `timeout -k` kills what ignores SIGTERM.
    const long long remote = std::max<long long>(1, timeout.count() - 5);
    const std::string body = "cd " + shellQuote(workdir_) + " && timeout -k 5 " + std::to_string(remote) +
                             " bash -c " + shellQuote(shell);
    return ssh(body, timeout);
  }

  ProcessResult download(const fs::path& layout, std::chrono::seconds timeout) override {
    std::error_code ec;
    fs::create_directories(layout / "results", ec);
    const std::string remote = "tar -C " + shellQuote(workdir_) + " -cf - results";
    return local(sshCommandLine(remote) + " | tar -C " + shellQuote(layout.string()) + " -xf -", timeout);
  }

 private:
  std::vector<std::string> sshArgv(const std::string& remote) const {
    std::vector<std::string> argv{"ssh",
                                  "-p",
                                  std::to_string(spec_.port),
                                  "-o",
                                  "BatchMode=yes",
                                  "-o",
                                  "ConnectTimeout=15",
                                  "-o",
                                  "StrictHostKeyChecking=accept-new"};
    if (!spec_.known_hosts_file.empty()) {
      argv.push_back("-o");
      argv.push_back("UserKnownHostsFile=" + expandHome(spec_.known_hosts_file));
    }
    if (!spec_.identity_file.empty()) {
      argv.insert(argv.end(), {"-i", expandHome(spec_.identity_file), "-o", "IdentitiesOnly=yes"});
    }
    argv.push_back(spec_.user.empty() ? spec_.host : spec_.user + "@" + spec_.host);
    argv.push_back(remote);
    return argv;
  }
  std::string sshCommandLine(const std::string& remote) const {
    std::string line;
    for (const std::string& a : sshArgv(remote)) line.append(line.empty() ? "" : " ").append(shellQuote(a));
    return line;
  }
  ProcessResult ssh(const std::string& remote, std::chrono::seconds timeout) const {
    ProcessOptions o;
    o.timeout = timeout;
    o.log = log_;
    return runProcess(sshArgv(remote), o);
  }
  ProcessResult local(const std::string& pipeline, std::chrono::seconds timeout) const {
    ProcessOptions o;
    o.timeout = timeout;
    o.log = log_;
    return runProcess({"bash", "-c", "set -o pipefail; " + pipeline}, o);
  }

  TargetSpec spec_;
  std::string workdir_;
  fs::path log_;
};

}  // namespace

Reach classifySshFailure(const std::string& output) {
  const std::string first = output.substr(0, output.find_last_not_of("\r\n") + 1);
  if (output.find("Permission denied") != std::string::npos ||
      output.find("Too many authentication failures") != std::string::npos)
    return {"auth-failed", "the target refused the credentials (" + first +
                               "); check user and identity_file, and that the key is in authorized_keys"};
  if (output.find("Host key verification failed") != std::string::npos ||
      output.find("REMOTE HOST IDENTIFICATION HAS CHANGED") != std::string::npos)
    return {"auth-failed", "the target's host key does not match known_hosts (" + first + ")"};
  return {"unreachable", "cannot reach the target (" + first + ")"};
}

std::unique_ptr<TargetHost> makeTarget(const TargetSpec& spec, const fs::path& local_workdir,
                                       const std::string& project, const fs::path& log) {
  if (spec.kind == "ssh") return std::make_unique<SshTarget>(spec, project, log);
  return std::make_unique<LocalTarget>(spec, local_workdir, log);
}

}  // namespace migrate::verify
