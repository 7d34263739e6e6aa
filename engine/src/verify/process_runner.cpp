#include "verify/process_runner.hpp"

#include <boost/process.hpp>

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace migrate::verify {

namespace bp = boost::process;

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  const auto t0 = std::chrono::steady_clock::now();
  if (argv.empty()) return result;
  boost::filesystem::path exe = argv[0];
  if (argv[0].find('/') == std::string::npos) exe = bp::search_path(argv[0]);
  if (exe.empty()) {
    result.output = argv[0] + ": command not found on PATH";
    return result;
  }
  bp::environment env = boost::this_process::environment();
  for (const std::string& kv : options.environment) {
    const std::size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  // Output goes through a temporary file, never a pipe, so a child that writes a lot (or leaves
  // grandchildren holding the pipe) cannot block us.
  const std::filesystem::path capture =
      std::filesystem::temp_directory_path() /
      ("migrate-proc-" + std::to_string(::getpid()) + "-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::error_code ec;
  try {
    bp::group group;
    bp::opstream in;
    const boost::filesystem::path cwd = options.cwd.empty() ? boost::filesystem::current_path()
                                                            : boost::filesystem::path(options.cwd.string());
    bp::child child(exe, bp::args(args), bp::start_dir(cwd), env,
                    (bp::std_out & bp::std_err) > capture.string(), bp::std_in < in, group);
    result.started = true;
    in << options.input;
    in.flush();
    in.pipe().close();
    if (!child.wait_for(options.timeout)) {
      result.timed_out = true;
      group.terminate();  // SIGKILL to the whole group: grandchildren included
      child.wait();
    } else {
      result.exit_code = child.exit_code();
      std::error_code ignored;
      group.terminate(ignored);  // what the child left running in the background does not outlive it
    }
  } catch (const std::exception& e) {
    result.output = "cannot run " + argv[0] + ": " + e.what();
    std::filesystem::remove(capture, ec);
    return result;
  }
  std::ifstream captured(capture, std::ios::binary);
  std::stringstream text;
  text << captured.rdbuf();
  result.output = text.str();
  std::filesystem::remove(capture, ec);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!options.log.empty()) {
    std::ofstream log(options.log, std::ios::binary | std::ios::app);
    log << result.output;
  }
  return result;
}

}  // namespace migrate::verify
