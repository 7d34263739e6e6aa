#pragma once
/// Reading a run's outputs back into a MigrationModel, so that `migrate-pipeline report` and
/// `migrate-pipeline verify` can work from an output directory without analysing again. The
/// readers are the exact inverses of the writers: writing a read model gives the same bytes.

#include <filesystem>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate {

/// The model findings.json holds. Not in the file, so left empty: `modules` (the per-file
/// summaries), PluginRecord::file, each finding's byte range (`range.start_byte`/`end_byte`;
/// edits keep theirs), LibraryUse::declared_by_install, and `source.root`; `rules` holds only the
/// rules some finding names (the file lists no others). `plan.computed` is false when `plan` is
/// null; `emit` and `verify` stay not computed.
Result<MigrationModel> readFindingsJson(const std::filesystem::path& file);

/// The model of the run whose output directory is `out`: findings.json (required), then
/// emit.json and verify.json when present (absent: `emit` / `verify` stay not computed).
/// `source.root` is emit.json's `original_root` when there is one. Errors name the file and
/// what to do; emit.json's `fixed_findings` must be indices into findings.json's findings.
Result<MigrationModel> readRunOutputs(const std::filesystem::path& out);

}  // namespace migrate
