#include "analyze/analyzer.hpp"

#include <re2/re2.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <numeric>
#include <thread>

#include "analysis_cache/cache_key.hpp"
#include "analysis_cache/content_hashes.hpp"
#include "analysis_cache/entries.hpp"
#include "analysis_cache/recording_workspace.hpp"
#include "analyze/module_summary.hpp"
#include "analyze/platform_siblings.hpp"
#include "parse/python_parser.hpp"
#include "plugin_host/crash_report.hpp"
#include "rules/rule_set.hpp"

namespace migrate {
namespace {

/// Collects one worker's results; the analyzer merges them at the end.
class CollectingSink final : public sdk::FindingSink {
 public:
  CollectingSink(std::vector<sdk::Finding>& findings, std::vector<sdk::Diagnostic>& diagnostics,
                 std::string domain)
      : findings_(findings), diagnostics_(diagnostics), domain_(std::move(domain)) {}
  void report(sdk::Finding f) override {
    if (f.domain.empty()) f.domain = domain_;
    if (f.rule_id.empty() || f.file.empty() || f.range.line == 0 || f.range.column == 0) {
      diagnostics_.push_back({sdk::Severity::Error, "plugin-error", f.file, f.range.line,
                              "plugin of domain " + domain_ +
                                  " reported a finding without rule id, file or "
                                  "1-based position (" +
                                  f.rule_id + "); dropped"});
      return;
    }
    findings_.push_back(std::move(f));
  }
  void diagnose(sdk::Diagnostic d) override { diagnostics_.push_back(std::move(d)); }

 private:
  std::vector<sdk::Finding>& findings_;
  std::vector<sdk::Diagnostic>& diagnostics_;
  std::string domain_;
};

bool validUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

/// Runs `f`, turning an exception into a diagnostic naming the plugin.
template <typename F>
void guarded(const LoadedPlugin& plugin, const std::string& file, const char* hook,
             std::vector<sdk::Diagnostic>& diagnostics, F&& f) {
  const PluginCallScope scope(plugin.info.name, hook, file);
  try {
    f();
  } catch (const std::exception& e) {
    diagnostics.push_back({sdk::Severity::Error, "plugin-error", file, 0,
                           "plugin " + plugin.info.name + " failed in " + hook + ": " + e.what()});
  } catch (...) {
    diagnostics.push_back(
        {sdk::Severity::Error, "plugin-error", file, 0,
         "plugin " + plugin.info.name + " failed in " + hook + " with an unknown exception"});
  }
}

struct WorkerResult {
  std::vector<sdk::Finding> findings;
  std::vector<sdk::Diagnostic> diagnostics;
  std::vector<ModuleSummary> modules;
  std::vector<std::pair<std::string, PythonLayout>> layouts;
  std::size_t parsed = 0;
  std::size_t cached = 0;
  std::uint64_t lines = 0;
};

}  // namespace

std::unordered_set<std::string> projectRoots(const Workspace& workspace) {
  std::unordered_set<std::string> roots;
  std::unordered_set<std::string> namespace_dirs;  // top-level folders with Python files, no __init__.py
  for (const auto& f : workspace.files()) {
    if (f.language != sdk::Language::Python) continue;
    std::string path = f.path;
    if (path.rfind("src/", 0) == 0) path = path.substr(4);
    const auto slash = path.find('/');
    if (slash == std::string::npos) {
      if (path != "setup.py" && path != "__init__.py") roots.insert(path.substr(0, path.rfind('.')));
    } else if (path.compare(slash, std::string::npos, "/__init__.py") == 0) {
      roots.insert(path.substr(0, slash));
    } else if (path.find('/', slash + 1) == std::string::npos) {
      namespace_dirs.insert(path.substr(0, slash));
    }
  }
  // A namespace package the project installs under its own name (llm-awq's `awq/`, with
  // `name = "awq"` in pyproject.toml): its imports are the project's, not a library's.
  static const RE2 kName(R"((?m)^\s*name\s*=\s*["']([A-Za-z_][\w.-]*)["'])");
  for (const char* manifest : {"pyproject.toml", "setup.cfg", "setup.py"})
    if (const auto text = workspace.read(manifest)) {
      re2::StringPiece rest(*text);
      std::string name;
      while (RE2::FindAndConsume(&rest, kName, &name)) {
        std::replace(name.begin(), name.end(), '-', '_');
        if (namespace_dirs.count(name)) roots.insert(name);
      }
    }
  return roots;
}

namespace {

/// Drops the findings (from index `first` on) that stand in a branch the NPU never takes: a CUDA
/// name under `if torch.version.hip:` is no CUDA binding of the NPU path.
void dropOffNpuFindings(const parse::PythonModule& module, std::vector<sdk::Finding>& findings,
                        std::size_t first) {
  const auto& off = module.offNpuRanges();
  if (off.empty()) return;
  auto inside = [&](const sdk::Finding& f) {
    for (const auto& [begin, end] : off)
      if (begin <= f.range.start_byte && f.range.start_byte < end) return true;
    return false;
  };
  findings.erase(
      std::remove_if(findings.begin() + static_cast<std::ptrdiff_t>(first), findings.end(), inside),
      findings.end());
}

}  // namespace

void analyzePythonSource(const std::string& path, std::string source,
                         const std::vector<ActivePlugin>& plugins,
                         const std::unordered_set<std::string>* project_roots,
                         std::vector<sdk::Finding>& findings, std::vector<sdk::Diagnostic>& diagnostics,
                         ModuleSummary* summary, std::uint64_t parse_timeout_ms,
                         std::optional<PythonLayout>* layout) {
  const std::uint64_t lines = summary ? countLines(source) : 0;
  if (!validUtf8(source))
    diagnostics.push_back({sdk::Severity::Info, "not-utf8", path, 0,
                           "not valid UTF-8; analysed as raw bytes (columns may be off)"});
  auto parsed = parse::parsePython(path, std::move(source), parse_timeout_ms);
  if (!parsed) {
    diagnostics.push_back({sdk::Severity::Warning, "parse-failed", path, 0, parsed.error().message});
    if (summary) summary->lines = lines;
    return;
  }
  parse::PythonModule& module = **parsed;
  module.setProjectRoots(project_roots);
  if (module.hasSyntaxErrors())
    diagnostics.push_back({sdk::Severity::Warning, "parse-error", path, module.firstErrorLine(),
                           "syntax error near line " + std::to_string(module.firstErrorLine()) +
                               "; the parts that parse were analysed"});
  if (module.truncated())
    diagnostics.push_back({sdk::Severity::Warning, "nesting-too-deep", path, 0,
                           "expressions nested too deeply; the deepest parts were not analysed"});
  const std::size_t first = findings.size();
  for (const ActivePlugin& p : plugins) {
    CollectingSink sink(findings, diagnostics, p.loaded->info.domain);
    p.loaded->rules->match(module, sink);
    guarded(*p.loaded, path, "analyzeModule", diagnostics,
            [&] { p.loaded->plugin->analyzeModule(module, sink); });
  }
  dropOffNpuFindings(module, findings, first);
  if (summary) *summary = summarizeModule(module, lines);
  if (layout && findings.size() > first) *layout = module.takeLayout();
}

namespace {

/// One file's analysis: from the cache when it has the file's entry, else by analysing it (and
/// queueing the result for the cache). Without the cache, `source` is the file's text; with it,
/// the file is known by its hash first and read only when its entry is missing.
cache::FileAnalysis analyzeFile(const std::string& path, std::optional<std::string> source,
                                const std::vector<ActivePlugin>& plugins,
                                const std::unordered_set<std::string>& roots, const AnalyzeOptions& options,
                                CacheUse* cache, cache::ContentHashes* hashes,
                                std::vector<sdk::Diagnostic>& diagnostics, bool& from_cache,
                                bool& unreadable) {
  cache::FileAnalysis a;
  from_cache = false;
  unreadable = false;
  cache::Key key{};
  if (cache && hashes) {
    auto known = hashes->lookup(path);
    if (!known.readable) {
      unreadable = true;
      return a;
    }
    key = cache::fileKey(cache->context, path, known.hash);
    if (auto bytes = cache->store.find(key)) {
      std::string why;
      if (auto entry = cache::decode(*bytes, path, why)) {
        from_cache = true;
        return std::move(*entry);
      }
      diagnostics.push_back({sdk::Severity::Info, "cache-entry-ignored", path, 0,
                             "analysis cache entry ignored (" + why + "); analysed anew and rewritten"});
    }
    if (known.text) {
      source = std::move(known.text);
    } else if ((source = hashes->workspace().read(path))) {
      // Read again (a repository pass hashed it first): keyed by what is analysed now.
      key = cache::fileKey(cache->context, path, cache::contentHash(*source));
    }
  }
  if (!source) {
    unreadable = true;
    return a;
  }
  analyzePythonSource(path, std::move(*source), plugins, &roots, a.findings, a.diagnostics, &a.summary,
                      options.parse_timeout_ms, &a.layout);
  a.lines = a.summary.lines;
  // A parse abandoned for time says more about the machine's load than the file: not kept.
  const bool timed_out = std::any_of(a.diagnostics.begin(), a.diagnostics.end(),
                                     [](const sdk::Diagnostic& d) { return d.code == "parse-failed"; });
  if (cache && !timed_out) cache->store.put(key, cache::encode(a, path));
  return a;
}

/// One repository pass of one plugin, and what it reported.
struct RepositoryTask {
  const ActivePlugin* plugin = nullptr;
  sdk::RepositoryPass pass;
  std::string name;  ///< "plugin/pass": its cache entry and its memos are named by it
  std::vector<sdk::Finding> findings;
  std::vector<sdk::Diagnostic> diagnostics;
};

/// Every plugin's repository passes, in plugin order (a plugin that fails to list them gets a
/// plugin-error and none). A pass's name is its cache entry's: a second pass of the same name is
/// a plugin-error, and not run.
std::vector<RepositoryTask> repositoryTasks(const std::vector<ActivePlugin>& plugins,
                                            std::vector<sdk::Diagnostic>& diagnostics) {
  std::vector<RepositoryTask> tasks;
  for (const ActivePlugin& p : plugins) {
    std::vector<sdk::RepositoryPass> passes;
    guarded(*p.loaded, "", "repositoryPasses", diagnostics,
            [&] { passes = p.loaded->plugin->repositoryPasses(); });
    std::unordered_set<std::string> names;
    for (sdk::RepositoryPass& pass : passes) {
      if (!pass.run) continue;
      if (!names.insert(pass.name).second) {
        diagnostics.push_back(
            {sdk::Severity::Error, "plugin-error", "", 0,
             "plugin " + p.loaded->info.name + " lists the repository pass '" + pass.name +
                 "' twice; the second is not run (a pass's name must be unique in its plugin)"});
        continue;
      }
      RepositoryTask t;
      t.plugin = &p;
      t.name = p.loaded->info.name + "/" + pass.name;
      t.pass = std::move(pass);
      tasks.push_back(std::move(t));
    }
  }
  return tasks;
}

/// The cached result of a repository pass when every file it read is unchanged.
std::optional<cache::RepositoryAnalysis> cachedPass(cache::ContentHashes& hashes, const std::string& pass,
                                                    CacheUse& cache, const cache::Key& key,
                                                    std::vector<sdk::Diagnostic>& diagnostics) {
  auto bytes = cache.store.find(key);
  if (!bytes) return std::nullopt;
  std::string why;
  auto entry = cache::decodeRepository(*bytes, why);
  if (!entry) {
    diagnostics.push_back({sdk::Severity::Info, "cache-entry-ignored", "", 0,
                           "analysis cache entry of the repository pass " + pass + " ignored (" + why +
                               "); run anew and rewritten"});
    return std::nullopt;
  }
  for (const auto& [path, hash] : entry->reads)
    if (hashes.lookup(path).hash != hash) return std::nullopt;
  return entry;
}

/// One repository pass: from the cache while the files it read are unchanged, else run (through
/// a view that records what it reads and keeps its memos, for the cache).
void repositoryPass(const Workspace& workspace, RepositoryTask& task, CacheUse* cache,
                    cache::ContentHashes* hashes, const cache::Key& inventory) {
  const LoadedPlugin& plugin = *task.plugin->loaded;
  CollectingSink sink(task.findings, task.diagnostics, plugin.info.domain);
  const std::string hook = "repository pass " + task.pass.name;
  if (!cache) {
    guarded(plugin, "", hook.c_str(), task.diagnostics, [&] { task.pass.run(workspace, sink); });
    return;
  }
  const cache::Key key = cache::repositoryKey(cache->context, task.name, inventory);
  std::vector<sdk::Diagnostic> cache_notes;  // about the cache, not the pass: never cached
  if (auto hit = cachedPass(*hashes, task.name, *cache, key, cache_notes)) {
    task.findings = std::move(hit->findings);
    task.diagnostics = std::move(hit->diagnostics);
    return;
  }
  cache::RecordingWorkspace recording(workspace, *hashes, cache->store, cache->context, task.name);
  guarded(plugin, "", hook.c_str(), task.diagnostics, [&] { task.pass.run(recording, sink); });
  cache->store.put(
      key, cache::encode(cache::RepositoryAnalysis{recording.reads(), task.findings, task.diagnostics}));
  std::move(cache_notes.begin(), cache_notes.end(), std::back_inserter(task.diagnostics));
}

}  // namespace

unsigned threadsFor(int jobs) {
  return jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
}

void analyzeWorkspace(const Workspace& workspace, const std::vector<ActivePlugin>& plugins,
                      const AnalyzeOptions& options, Progress& progress, MigrationModel& model,
                      CacheUse* cache) {
  const int jobs = options.jobs;
  std::vector<const sdk::FileEntry*> python;
  for (const auto& f : workspace.files()) {
    model.inventory.bytes += f.size;
    if (f.language == sdk::Language::Python) python.push_back(&f);
  }
  model.inventory.files = workspace.files().size();
  const std::unordered_set<std::string> roots = projectRoots(workspace);
  model.inventory.python_files = python.size();

  // The repository passes are the longest tasks: they go first, beside the files.
  std::vector<RepositoryTask> passes = repositoryTasks(plugins, model.diagnostics);
  const unsigned workers = static_cast<unsigned>(
      std::max(1, std::min<int>(static_cast<int>(threadsFor(jobs)),
                                static_cast<int>(std::max<std::size_t>(python.size() + passes.size(), 1)))));
  std::vector<WorkerResult> results(workers);
  const std::size_t tasks = passes.size() + python.size();
  std::atomic<std::size_t> next{0};
  std::optional<cache::ContentHashes> hashes;
  cache::Key inventory{};
  if (cache) {
    hashes.emplace(workspace);
    inventory = cache::inventoryDigest(workspace.files());
  }
  progress.begin("analyze", python.size());
  auto work = [&](WorkerResult& out) {
    for (std::size_t task = next++; task < tasks; task = next++) {
      if (task < passes.size()) {
        repositoryPass(workspace, passes[task], cache, hashes ? &*hashes : nullptr, inventory);
        continue;
      }
      const sdk::FileEntry& file = *python[task - passes.size()];
      bool from_cache = false;
      bool unreadable = false;
      cache::FileAnalysis a =
          analyzeFile(file.path, cache ? std::nullopt : workspace.read(file.path), plugins, roots, options,
                      cache, hashes ? &*hashes : nullptr, out.diagnostics, from_cache, unreadable);
      if (unreadable) {
        out.diagnostics.push_back(
            {sdk::Severity::Warning, "unreadable", file.path, 0, "file cannot be read"});
      } else {
        ++out.parsed;
        out.cached += from_cache ? 1 : 0;
        out.lines += a.lines;
        std::move(a.findings.begin(), a.findings.end(), std::back_inserter(out.findings));
        std::move(a.diagnostics.begin(), a.diagnostics.end(), std::back_inserter(out.diagnostics));
        if (!a.summary.path.empty()) out.modules.push_back(std::move(a.summary));
        if (a.layout) out.layouts.emplace_back(file.path, std::move(*a.layout));
      }
      progress.step(file.path);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work, std::ref(results[w]));
  work(results[0]);
  for (auto& t : threads) t.join();
  progress.end();

  for (auto& r : results) {
    model.inventory.python_parsed += r.parsed;
    model.inventory.python_cached += r.cached;
    model.inventory.python_lines += r.lines;
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(model.findings));
    std::move(r.diagnostics.begin(), r.diagnostics.end(), std::back_inserter(model.diagnostics));
    std::move(r.modules.begin(), r.modules.end(), std::back_inserter(model.modules));
    for (auto& [path, layout] : r.layouts) model.layouts.insert_or_assign(path, std::move(layout));
  }
  for (auto& r : passes) {
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(model.findings));
    std::move(r.diagnostics.begin(), r.diagnostics.end(), std::back_inserter(model.diagnostics));
  }
  dropPerPlatformClassFindings(model);
  sortModel(model);
}

void sortModel(MigrationModel& model) {
  auto place = [](const sdk::Finding& f) {
    return std::tie(f.file, f.range.line, f.range.column, f.rule_id, f.range.end_line, f.range.end_column);
  };
  // A total order, so that the output does not depend on which thread reported first: at one
  // place, a fix before none, then the higher confidence, then the text. The order is found on
  // indices and the findings are moved once: a finding is a dozen strings and a map, and moving
  // them at every step of the sort showed in the profile of an unchanged re-run.
  const std::vector<sdk::Finding>& all = model.findings;
  std::vector<std::uint32_t> order(all.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t i, std::uint32_t j) {
    const sdk::Finding& a = all[i];
    const sdk::Finding& b = all[j];
    if (place(a) != place(b)) return place(a) < place(b);
    if (a.autofix() != b.autofix()) return a.autofix();
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    if (const auto ta = std::tie(a.message, a.details, a.api, a.resolved_api),
        tb = std::tie(b.message, b.details, b.api, b.resolved_api);
        ta != tb)
      return ta < tb;
    return i < j;  // equal findings keep their order, as they would in any sort of equal values
  });
  // One rule at one place is one finding, however many passes saw it (a module's pass and a
  // repository pass may both): the first keeps its text and fix, and gains the others' details.
  std::vector<sdk::Finding> merged;
  merged.reserve(model.findings.size());
  for (const std::uint32_t i : order) {
    sdk::Finding& f = model.findings[i];
    if (!merged.empty() && place(merged.back()) == place(f)) {
      merged.back().details.merge(f.details);
      continue;
    }
    merged.push_back(std::move(f));
  }
  model.findings = std::move(merged);
  std::sort(model.modules.begin(), model.modules.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  std::stable_sort(model.diagnostics.begin(), model.diagnostics.end(), [](const auto& a, const auto& b) {
    return std::tie(a.file, a.line, a.code) < std::tie(b.file, b.line, b.code);
  });
}

}  // namespace migrate
