#pragma once
/// The "siblings" layout (emit.layout: siblings): an adapted module is written next to its
/// original as <name>_npu.py, and the imports in adapted modules that name another adapted
/// module are pointed at its _npu version with minimal edits.

#include <set>
#include <string>
#include <vector>

#include "migrate/sdk/finding.hpp"

namespace migrate::emit {

/// "gpt/model.py" → "gpt/model_npu.py".
std::string siblingPath(const std::string& path);

/// Rule ids of the edits and TODOs this layout adds (engine-owned, not a plugin's).
inline constexpr const char* kSiblingImportRule = "EMIT-001";
inline constexpr const char* kSiblingImportManualRule = "EMIT-002";

/// Import edits for `path`, a module that gets a _npu version: every import of a module in
/// `adapted` (dotted names) redirected to its _npu version — as findings of kSiblingImportRule
/// carrying the edits — and a kSiblingImportManualRule finding (no edit) for each `import a.b`
/// without `as`, which cannot be redirected without changing the names the code uses.
std::vector<sdk::Finding> siblingImportEdits(const std::string& path, const std::string& text,
                                             const std::set<std::string>& adapted);

}  // namespace migrate::emit
