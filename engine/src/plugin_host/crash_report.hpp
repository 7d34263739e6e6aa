#pragma once
/// Naming the plugin and file behind a crash: each plugin call marks its thread, and a fatal
/// signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes one line saying which plugin, hook
/// and file before the process dies of it — read by people in run.log and by the fleet runner.

#include <filesystem>
#include <string>

namespace migrate {

/// While alive, names the plugin call this thread is in.
class PluginCallScope {
 public:
  PluginCallScope(const std::string& plugin, const char* hook, const std::string& file);
  ~PluginCallScope();
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;
};

/// Installs the fatal-signal handlers: they write "fatal: plugin P crashed (SIGSEGV) in
/// analyzeModule on FILE" (outside plugin calls: "fatal: migrate-pipeline crashed (SIGSEGV)") to
/// stderr and appended to `log_file`, then let the signal end the process as it would have.
void installCrashReport(const std::filesystem::path& log_file);

}  // namespace migrate
