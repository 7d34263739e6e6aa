#pragma once
/// The keys of the per-file analysis cache. A file's entry is valid exactly as long as nothing
/// that can change its analysis changed: its content and path, the engine and plugin builds
/// (their ELF build ids: a rebuilt library is a new key, and reading them costs no I/O), the
/// plugins' options, the inventory settings, and the project's own top-level packages (they
/// decide which imports are the project's).

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis_cache/cache_store.hpp"
#include "analysis_cache/entries.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"

namespace migrate::cache {

/// What every key of one run shares, as text (hashed into each key).
std::string runContext(const PipelineSpec& spec, const std::vector<ActivePlugin>& plugins,
                       const std::unordered_set<std::string>& project_roots);

/// The key of one file: XXH3-128 over the run context, the path and the content's hash
/// (contentHash: the hash a run computes once per file, whoever reads the file first).
Key fileKey(std::string_view context, std::string_view path, const Key& content_hash);
/// The same key from the content itself.
Key fileKey(std::string_view context, std::string_view path, std::string_view content);

/// XXH3-128 of a file's content: what a repository entry records of each file its pass read.
Key contentHash(std::string_view content);

/// What a repository pass's key takes of the inventory: its paths and languages (the contents a
/// pass reads are checked through its entry). Computed once per run.
Key inventoryDigest(const std::vector<sdk::FileEntry>& files);

/// The key of one repository pass: the run context, "plugin/pass" and the inventory's digest.
Key repositoryKey(std::string_view context, std::string_view pass, const Key& inventory);

/// The key of a repository pass's memo of one file (WorkspaceView::remember): the run context,
/// "plugin/pass", the memo's kind, the file's path and its content hash.
Key memoKey(std::string_view context, std::string_view pass, std::string_view kind, std::string_view path,
            const Key& content_hash);

/// "build-id <hex>" of each loaded ELF object (the executable, its libraries and `plugins`'
/// libraries) that is not another plugin, sorted by name; objects without a build id are named
/// with their size and modification time instead.
std::string loadedBuilds(const std::vector<ActivePlugin>& plugins);

}  // namespace migrate::cache
