#pragma once
/// Byte offsets to 1-based line/column positions (columns count Unicode characters), for
/// plugins that report findings in files they read themselves.

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "migrate/sdk/source_range.hpp"

namespace migrate::sdk {

/// Line starts of a text, for turning byte offsets into positions.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(static_cast<std::uint32_t>(i + 1));
  }

  /// 1-based line and column of a byte offset.
  std::pair<std::uint32_t, std::uint32_t> position(std::uint32_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const auto line = static_cast<std::uint32_t>(it - starts_.begin());
    const std::uint32_t start = starts_[line - 1];
    std::uint32_t column = 1;
    for (std::uint32_t i = start; i < offset && i < text_.size(); ++i)
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
    return {line, column};
  }

  SourceRange range(std::uint32_t start, std::uint32_t end) const {
    SourceRange r;
    std::tie(r.line, r.column) = position(start);
    std::tie(r.end_line, r.end_column) = position(end);
    r.start_byte = start;
    r.end_byte = end;
    return r;
  }

  std::size_t lineCount() const { return starts_.size(); }

 private:
  std::string_view text_;
  std::vector<std::uint32_t> starts_;
};

}  // namespace migrate::sdk
