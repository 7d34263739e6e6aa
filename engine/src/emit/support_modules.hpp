#pragma once
/// npu_compat.py and npu_ops.py: the support modules the adapted sources import, rendered
/// from their templates; npu_ops.py with only the sections (operator wrappers) asked for.

#include <set>
#include <string>
#include <vector>

#include "emit/template_store.hpp"

namespace migrate::emit {

inline constexpr const char* kCompatModule = "npu_compat.py";
inline constexpr const char* kOpsModule = "npu_ops.py";

/// The sections a generated npu_ops.py records in its "# sections:" line.
std::set<std::string> recordedSections(std::string_view text);

/// Whether template `module` (e.g. "npu_ops.py") has a section `section`.
bool isKnownSection(const TemplateStore& templates, const std::string& module, const std::string& section);

Result<std::string> renderCompatModule(const TemplateStore& templates, const std::string& project);
Result<std::string> renderOpsModule(const TemplateStore& templates, const std::string& project,
                                    const std::set<std::string>& sections);

}  // namespace migrate::emit
