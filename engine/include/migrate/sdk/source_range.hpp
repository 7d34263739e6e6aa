#pragma once
/// Positions in a source file.

#include <cstdint>

namespace migrate::sdk {

/// A span of a file: 1-based lines and columns (columns count Unicode characters) plus the byte
/// offsets edits are expressed in.
struct SourceRange {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_line = 0;
  std::uint32_t end_column = 0;
  std::uint32_t start_byte = 0;
  std::uint32_t end_byte = 0;
};

}  // namespace migrate::sdk
