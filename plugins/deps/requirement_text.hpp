#pragma once
/// Writing requirements back as text: pip's requirement lines, poetry constraints in PEP 440,
/// and wrapped comments.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace deps {

/// The PEP 440 form of a poetry version constraint ("^2.1" → ">=2.1,<3", "~1.4" → ">=1.4,<1.5",
/// "1.2.3" → "==1.2.3"); empty for "*"; nothing when it has no PEP 440 equivalent ("1 || 2").
std::optional<std::string> poetryToPep440(std::string_view spec);

/// True for a distribution name that PEP 508 accepts ("flash-attn", "a.b_c").
bool isDistributionName(std::string_view name);

/// True when a version specifier is computed at install time ("${TORCH_VERSION}", "{}").
bool isComputedSpec(std::string_view spec);

/// A requirement line: `name[extras]spec; marker`, or `name[extras] @ url ; marker`.
std::string requirementLine(std::string_view name, std::string_view extras, std::string_view spec,
                            std::string_view url, std::string_view marker);

/// `spec` without the local version of its pins ("==2.1.2+cu121" → "==2.1.2").
std::string withoutLocalVersion(std::string_view spec);

/// `text` as comment lines ("# …") of at most `width` columns where the words allow.
std::vector<std::string> commentLines(std::string_view text, std::size_t width = 100);

}  // namespace deps
