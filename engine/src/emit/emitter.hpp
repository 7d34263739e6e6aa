#pragma once
/// The emit stage: the adaptation kit in the output directory — the adapted copy of the
/// repository (adapted/) and its patch (npu_migration.patch), npu_compat.py and npu_ops.py,
/// what the plugins' emit hooks write (build script, requirements-npu.txt, ...), the verification
/// kit (verify_npu.sh, verify_precision.py, verify_config.json), and emit.json.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate {

/// Fills `model.emit` and writes the kit under `out`. Plugin failures become diagnostics naming
/// the plugin; an error (a file that cannot be written) stops the stage and is returned, with
/// what was written so far left in place.
Status emitKit(const Workspace& workspace, const EmitSpec& spec, const VerifySpec& verify,
               const std::vector<ActivePlugin>& plugins, MigrationModel& model,
               const std::filesystem::path& out, const std::function<void(const std::string&)>& progress);

/// The repository's name for file headers: the last component of its location, without ".git".
std::string projectNameOf(const SourceInfo& source);

}  // namespace migrate
