#pragma once
/// Where lines may be inserted into a Python file without changing what it means: the place for
/// the adaptation imports, and the first line of the statement around a byte offset. Taken from
/// the syntax tree the analysis parses, so that emit need not parse the file again.

#include <cstdint>
#include <string_view>
#include <vector>

namespace migrate {

struct PythonLayout {
  /// Byte offset (a line start, or the end of the text) before the first top-level statement
  /// that is neither the module docstring nor a `from __future__` import.
  std::uint32_t import_offset = 0;
  /// For each top-level or nested statement: [start byte, end byte) and its first line's start.
  struct Statement {
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::uint32_t line_start = 0;
    bool operator==(const Statement&) const = default;
  };
  std::vector<Statement> statements;  ///< pre-order: sorted by start, nested after their parent

  /// Start of the line on which the innermost statement containing `offset` begins; the start
  /// of `offset`'s own line when no statement contains it.
  std::uint32_t statementLineStart(std::uint32_t offset, std::string_view text) const;

  bool operator==(const PythonLayout&) const = default;
};

}  // namespace migrate
