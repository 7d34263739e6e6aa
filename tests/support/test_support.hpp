#pragma once
// Helpers for tests: temporary directories, files, and real child processes.

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

namespace migrate::test {

namespace fs = std::filesystem;

/// A fresh directory under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "migrate-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

inline void writeFile(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

inline std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs a shell command line as a child process, capturing its output.
inline CommandResult run(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

/// Single-quotes a string for the shell.
inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline fs::path sourceDir() {
  return MIGRATE_SOURCE_DIR;
}
inline fs::path binaryDir() {
  return MIGRATE_BINARY_DIR;
}
/// The report's file name for a run today (local time), as the report stage names it.
inline std::string todaysReport() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return std::string("CodeReview_Results_") + buf + ".md";
}

/// The report a run wrote into `dir`, whatever day it was written on: a suite that starts before
/// midnight reads its report after it. Without one, the name today's run would give it.
inline fs::path reportIn(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == std::string("CodeReview_Results_YYYY-MM-DD.md").size() &&
        name.rfind("CodeReview_Results_", 0) == 0 && it->path().extension() == ".md")
      return it->path();
  }
  return dir / todaysReport();
}

inline fs::path cli() {
  return binaryDir() / "bin" / "migrate-pipeline";
}
inline fs::path pluginDir() {
  return binaryDir() / "plugins";
}
inline fs::path testPluginDir() {
  return binaryDir() / "test_plugins";
}

}  // namespace migrate::test
