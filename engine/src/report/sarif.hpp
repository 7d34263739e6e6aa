#pragma once
/// findings.sarif: the run's findings as SARIF 2.1.0 (docs/sarif.md), one SARIF run per plugin.

#include <filesystem>
#include <iosfwd>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate {

/// Writes `model` as SARIF 2.1.0 to `file`: through `file` + ".tmp" and a rename, so a reader
/// never sees half a file. Results are written one by one, never held as a document.
Status writeSarif(const MigrationModel& model, const std::filesystem::path& file);

/// Writes `model` as SARIF 2.1.0 to `out`; the same bytes for the same model.
void writeSarif(std::ostream& out, const MigrationModel& model);

}  // namespace migrate
