#pragma once
/// requirements-npu.txt: the repository's declared Python dependencies rewritten for an Ascend
/// NPU host, built from the deps plugin's own findings (DEP-001 … DEP-009) so that the file and
/// findings.json always agree.

#include <optional>
#include <string>
#include <vector>

#include "migrate/sdk/emit.hpp"
#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace deps {

/// Where a group of declarations belongs in requirements-npu.txt, in file order.
enum class GroupKind { Runtime, Extra, Build, Development };

/// The group a declaration belongs to: one file, one section of it.
struct DeclarationGroup {
  GroupKind kind = GroupKind::Runtime;
  std::string title;     ///< "runtime: setup.py install_requires"
  bool skipped = false;  ///< constraints: not requirements, not merged
};

/// The group of a declaration from `file`, read by the reader `source` (requirements, setup.py,
/// setup.cfg, pyproject, conda) in `section` (install_requires, project.optional-dependencies.dev, …).
/// `included_by` names the file that pulls a requirements file in with -r, if any.
DeclarationGroup groupOf(const std::string& source, const std::string& file, const std::string& section,
                         const std::string& included_by);

/// One titled block of requirements-npu.txt.
struct NpuSection {
  std::string title;
  std::vector<std::string> lines;  ///< comment lines ("# …") and requirement / option lines, in order
};

/// The content of requirements-npu.txt before rendering.
struct NpuRequirements {
  std::vector<std::string> sources;  ///< "requirements.txt (runtime)", one per declaring file and section
  std::vector<std::string> notes;    ///< header remarks (files not merged)
  std::vector<NpuSection> sections;  ///< the torch / torch_npu block first, then by GroupKind
};

/// requirements-npu.txt for a run's findings; nothing when the repository declares no Python
/// dependencies. `workspace` is read for the index options of requirements files that are not
/// findings (private indexes) and for -r includes.
std::optional<NpuRequirements> planNpuRequirements(const std::vector<migrate::sdk::Finding>& findings,
                                                   const migrate::sdk::WorkspaceView& workspace);

/// The deps plugin's emit hook: renders templates/requirements-npu.txt.mustache and writes
/// requirements-npu.txt into the kit, or nothing when no Python dependencies are declared.
void emitNpuRequirements(migrate::sdk::EmitContext& context);

}  // namespace deps
