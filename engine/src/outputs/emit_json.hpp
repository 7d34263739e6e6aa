#pragma once
/// emit.json: what the emit stage wrote, the files it adapted, and the manual work it left
/// (read by the report stage and by `migrate-pipeline verify`). See docs/emit.md.

#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::outputs {

inline constexpr int kEmitSchemaVersion = 1;

Status writeEmitManifest(const MigrationModel& model, const std::filesystem::path& file);

/// The inverse of writeEmitManifest: emit.json back into an EmitResult (computed = true). The
/// file's tool version and its summary counts that repeat list sizes are not kept. Errors name
/// the file, the JSON path and what to do.
Result<EmitResult> readEmitManifest(const std::filesystem::path& file);

/// The files an earlier run's emit.json lists (relative paths, each inside the output
/// directory), so that a new run removes them before writing its own kit; empty when there is
/// no readable emit.json.
std::vector<std::string> previousKitFiles(const std::filesystem::path& file);

}  // namespace migrate::outputs
