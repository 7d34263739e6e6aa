#pragma once
/// Where lines may be inserted into a Python file without changing what it means: the place for
/// the adaptation imports, and the first line of the statement around a byte offset.

#include <cstdint>
#include <string>
#include <vector>

namespace migrate::emit {

struct PythonLayout {
  /// Byte offset (a line start, or the end of the text) before the first top-level statement
  /// that is neither the module docstring nor a `from __future__` import.
  std::uint32_t import_offset = 0;
  /// For each top-level or nested statement: [start byte, end byte) and its first line's start.
  struct Statement {
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::uint32_t line_start = 0;
  };
  std::vector<Statement> statements;  ///< pre-order: sorted by start, nested after their parent

  /// Start of the line on which the innermost statement containing `offset` begins; the start
  /// of `offset`'s own line when no statement contains it.
  std::uint32_t statementLineStart(std::uint32_t offset, const std::string& text) const;
};

/// Parses `text` with tree-sitter (parse errors tolerated: the parts that parse are used).
PythonLayout layoutOf(const std::string& text);

}  // namespace migrate::emit
