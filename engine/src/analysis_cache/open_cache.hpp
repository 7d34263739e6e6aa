#pragma once
/// The analysis cache a pipeline asks for, opened for one run.

#include <memory>
#include <vector>

#include "analysis_cache/cache_store.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate::cache {

/// Null when `spec` disables the cache, or (with a diagnostic saying why; the run goes on
/// without it) when its directory or file cannot be used. A replaced file is noted too.
std::unique_ptr<CacheStore> openCache(const CacheSpec& spec, std::vector<sdk::Diagnostic>& diagnostics);

}  // namespace migrate::cache
