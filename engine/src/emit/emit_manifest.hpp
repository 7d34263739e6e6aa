#pragma once
/// emit.json: what the emit stage wrote, the files it adapted, and the manual work it left
/// (read by the report stage and by `migrate-pipeline verify`). See docs/emit.md.

#include <filesystem>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::emit {

inline constexpr int kEmitSchemaVersion = 1;

Status writeEmitManifest(const MigrationModel& model, const std::filesystem::path& file);

}  // namespace migrate::emit
