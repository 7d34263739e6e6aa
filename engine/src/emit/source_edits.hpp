#pragma once
/// The adapted text of one repository file: the findings' fix edits applied as byte ranges,
/// the adaptation imports added once (Python), and a marked TODO comment above every place
/// that needs a person. Applying it to its own output changes nothing.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/engine/python_layout.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate::emit {

/// The marker every TODO comment carries, followed by the rule id: "TODO(migrate-pipeline DEV-008)".
inline constexpr const char* kTodoMarker = "TODO(migrate-pipeline ";

/// One change the adaptation made to a file, as change_list.csv lists it.
struct Change {
  std::uint32_t start = 0;  ///< byte range in the original text (start == end: an insertion)
  std::uint32_t end = 0;
  std::string text;          ///< what replaces the range
  std::string rule;          ///< the finding's rule id (fix, todo); empty for the adaptation imports
  const char* kind = "fix";  ///< "fix" | "import" | "todo"
};

struct FileAdaptation {
  std::string text;
  std::size_t edits_applied = 0;   ///< distinct edits (identical ones from several findings count once)
  std::vector<std::size_t> fixed;  ///< indices (into the findings given) whose edits were applied
  /// Indices whose edits overlap an edit applied before them: not applied, manual work.
  std::vector<std::size_t> conflicting;
  /// Indices without an automatic fix (warning or error), but those at a place an applied edit
  /// routes to npu_ops (the kit's wrapper replaces the library there).
  std::vector<std::size_t> manual;
  std::size_t todos_added = 0;
  bool compat_import_added = false;
  bool ops_import_added = false;
  std::vector<Change> changes;  ///< every change made, by start offset
};

/// Adapts `original`, the text of repository file `path`, for `findings` (all of that file).
/// A Python file's `layout` comes from its analysis when it has one; else it is parsed here.
FileAdaptation adaptSource(const std::string& path, const std::string& original,
                           const std::vector<const sdk::Finding*>& findings,
                           const PythonLayout* layout = nullptr);

/// `text` with only the findings' fixes applied, chosen as adaptSource chooses them (a finding's
/// edits all or none, shared edits once, overlapping ones left out); `fixed` receives the indices
/// of the findings applied. For tests of rule fixes.
std::string applyFixes(const std::string& text, const std::vector<const sdk::Finding*>& findings,
                       std::vector<std::size_t>* fixed = nullptr);

/// The comment prefix for TODO lines in `path` ("#", "//"), or empty when the file type takes
/// no comments the tool can write safely (JSON, Markdown other than a guide's shell blocks, ...);
/// `text`, the file's content, tells a Markdown page with a setup section from other pages.
std::string commentPrefixFor(const std::string& path, std::string_view text = {});

}  // namespace migrate::emit
