#pragma once
/// The analyze stage: every Python file parsed once on a thread pool and matched against every
/// plugin's rules and hooks, and each plugin's repository pass as a task of the same pool; with
/// the analysis cache, only what changed since an earlier run.

#include <unordered_set>
#include <vector>

#include "analysis_cache/cache_store.hpp"
#include "migrate/engine/model.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "parse/python_parser.hpp"
#include "progress/progress.hpp"

namespace migrate {

/// The per-file analysis cache as one run uses it.
struct CacheUse {
  cache::CacheStore& store;
  std::string context;  ///< cache::runContext of this run
};

/// How the analyze stage works: its threads and the limits each file is analysed within.
struct AnalyzeOptions {
  int jobs = 0;                                                    ///< 0 = all cores
  std::uint64_t parse_timeout_ms = parse::kDefaultParseTimeoutMs;  ///< limits.parse_timeout_ms
};

/// The threads `jobs` asks for: itself when positive, else every core (at least one).
unsigned threadsFor(int jobs);

/// Adds findings, diagnostics and inventory statistics to `model`. Plugin failures become
/// diagnostics naming the plugin; the other plugins and files carry on. With `cache`, a file
/// whose entry is there is not analysed again, and the others' results are queued for it.
void analyzeWorkspace(const Workspace& workspace, const std::vector<ActivePlugin>& plugins,
                      const AnalyzeOptions& options, Progress& progress, MigrationModel& model,
                      CacheUse* cache = nullptr);

/// The repository's own top-level packages and modules: `pkg` for pkg/__init__.py (also under
/// src/), `util` for a top-level util.py.
std::unordered_set<std::string> projectRoots(const Workspace& workspace);

/// Analyses one Python source with the given plugins; `project_roots` may be null. When
/// `summary` is given, it receives what the plan stage needs of the file; when `layout` is given
/// and the analysis reported on the file, it receives where emit may insert lines.
void analyzePythonSource(const std::string& path, std::string source,
                         const std::vector<ActivePlugin>& plugins,
                         const std::unordered_set<std::string>* project_roots,
                         std::vector<sdk::Finding>& findings, std::vector<sdk::Diagnostic>& diagnostics,
                         ModuleSummary* summary = nullptr,
                         std::uint64_t parse_timeout_ms = parse::kDefaultParseTimeoutMs,
                         std::optional<PythonLayout>* layout = nullptr);

}  // namespace migrate
