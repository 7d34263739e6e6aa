#pragma once
// Step 3 of the phase matrix: the phases each finding belongs to.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/plan.hpp"
#include "reach.hpp"

namespace phase_matrix {

/// Per finding: indices into PlanContext::phases(), ascending (configured order), each once.
using FindingPhases = std::vector<std::vector<std::size_t>>;

/// The phases of every finding of `context`, by the first rule of README.md ("Phases of a
/// finding") that applies.
FindingPhases findingPhases(const migrate::sdk::PlanContext& context, const Reach& reach);

/// The names of the phases `indices` (ascending), each name once.
std::vector<std::string> phaseNames(const std::vector<std::size_t>& indices,
                                    const std::vector<migrate::sdk::PhaseSpec>& phases);

/// A distribution or extension name as an import name: lower case, '-' and '.' become '_'
/// ("Flash-Attn" → "flash_attn").
std::string importName(std::string_view name);

/// setup.py: builds and installs the project, so its findings belong to the environment (rule f).
bool isBuildScript(const std::string& path);

/// True when `path` names a C, C++ or CUDA source or header (.c .cc .cpp .cxx .cu .cuh .h .hh
/// .hpp .hxx).
bool isNativeSource(std::string_view path);

/// True when `text` contains `name` as a whole file name: not preceded by a character of a file
/// name ("data.cu" does not contain "a.cu") and not followed by one ("x.cuh" does not contain
/// "x.cu").
bool mentionsFileName(std::string_view text, std::string_view name);

}  // namespace phase_matrix
