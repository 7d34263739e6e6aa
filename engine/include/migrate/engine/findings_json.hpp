#pragma once
/// findings.json: the machine-readable result of a run (schema: docs/findings.schema.json).

#include <filesystem>
#include <string>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate {

/// Version of the findings.json schema; bumped on incompatible changes.
inline constexpr int kFindingsSchemaVersion = 2;

/// Writes findings.json atomically (temporary file, then rename), streaming the findings.
Status writeFindingsJson(const MigrationModel& model, const std::filesystem::path& file);

}  // namespace migrate
