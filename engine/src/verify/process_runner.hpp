#pragma once
/// Child processes with a deadline: the child runs in a process group of its own, and a child
/// that outlives its timeout is killed with everything it started.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace migrate::verify {

struct ProcessResult {
  int exit_code = -1;    ///< the child's exit status; -1 when it did not start or was killed
  bool started = false;  ///< false: the program could not be started (see `output`)
  bool timed_out = false;
  double seconds = 0.0;
  std::string output;  ///< stdout and stderr together (also appended to the log file, if any)
};

struct ProcessOptions {
  std::filesystem::path cwd;  ///< empty: the current directory
  std::chrono::seconds timeout{60};
  std::vector<std::string> environment;  ///< "K=V" added to (or replacing in) the current environment
  std::filesystem::path log;             ///< empty: none; else the output is appended there
  std::string input;                     ///< written to the child's stdin, then closed
};

/// Runs `argv` (argv[0] looked up on PATH when it has no '/').
ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options);

/// `s` quoted for a POSIX shell.
std::string shellQuote(const std::string& s);

}  // namespace migrate::verify
