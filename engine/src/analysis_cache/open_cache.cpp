#include "analysis_cache/open_cache.hpp"

namespace migrate::cache {

std::unique_ptr<CacheStore> openCache(const CacheSpec& spec, std::vector<sdk::Diagnostic>& diagnostics) {
  if (!spec.enabled) return nullptr;
  const std::filesystem::path dir = spec.dir.empty() ? defaultCacheDir() : std::filesystem::path(spec.dir);
  if (dir.empty()) {
    diagnostics.push_back({sdk::Severity::Info, "cache-unavailable", "", 0,
                           "no analysis cache: neither XDG_CACHE_HOME nor HOME is set; set cache.dir "
                           "in the pipeline to keep one"});
    return nullptr;
  }
  std::string note;
  auto store = CacheStore::open(dir, spec.max_size_mb << 20, note);
  if (!note.empty()) diagnostics.push_back({sdk::Severity::Warning, "cache-replaced", "", 0, note});
  if (!store) {
    diagnostics.push_back(
        {sdk::Severity::Warning, "cache-unavailable", "", 0,
         store.error().message + "; analysing without the cache (set cache.dir, or --no-cache)"});
    return nullptr;
  }
  return std::move(store.value());
}

}  // namespace migrate::cache
