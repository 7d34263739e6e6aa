#include "plugin_host/crash_report.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace migrate {
namespace {

/// The current plugin call of this thread, as text ready to write ("" outside calls). Plain
/// storage of the executable's own thread-local block, so that a signal handler may read it.
thread_local char t_call[1024];
int g_log_fd = -1;

void append(char* out, std::size_t size, std::size_t& used, const char* text) {
  for (; *text && used + 1 < size; ++text) out[used++] = *text;
  out[used] = '\0';
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

extern "C" void onFatalSignal(int sig) {
  char line[1200];
  std::size_t used = 0;
  line[0] = '\0';
  if (t_call[0] != '\0') {
    append(line, sizeof line, used, "fatal: plugin ");
    append(line, sizeof line, used, t_call);
    append(line, sizeof line, used, " crashed (");
    append(line, sizeof line, used, signalName(sig));
    append(line, sizeof line, used, ")\n");
  } else {
    append(line, sizeof line, used, "fatal: migrate-pipeline crashed (");
    append(line, sizeof line, used, signalName(sig));
    append(line, sizeof line, used, ")\n");
  }
  (void)!::write(STDERR_FILENO, line, used);
  if (g_log_fd >= 0) (void)!::write(g_log_fd, line, used);
  ::raise(sig);  // the handler was reset: the default action ends the process
}

}  // namespace

PluginCallScope::PluginCallScope(const std::string& plugin, const char* hook, const std::string& file) {
  std::size_t used = 0;
  append(t_call, sizeof t_call, used, plugin.c_str());
  if (!file.empty()) {
    append(t_call, sizeof t_call, used, " on ");
    append(t_call, sizeof t_call, used, file.c_str());
  }
  append(t_call, sizeof t_call, used, " in ");
  append(t_call, sizeof t_call, used, hook);
}

PluginCallScope::~PluginCallScope() {
  t_call[0] = '\0';
}

void installCrashReport(const std::filesystem::path& log_file) {
  if (g_log_fd < 0) g_log_fd = ::open(log_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  struct sigaction sa {};
  sa.sa_handler = onFatalSignal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

}  // namespace migrate
