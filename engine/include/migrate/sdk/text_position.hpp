#pragma once
/// Byte offsets to 1-based line/column positions (columns count Unicode characters), for
/// plugins that report findings in files they read themselves.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <tuple>
#include <vector>

#include "migrate/sdk/source_range.hpp"

namespace migrate::sdk {

/// Line starts of a text, for turning byte offsets into positions.
class LineIndex {
 public:
  /// Line starts found with memchr, and each block's characters counted by a loop without
  /// branches that the compiler vectorises: every file analysed is indexed (a byte-by-byte loop
  /// testing three things per byte was 3 % of a cold run).
  explicit LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    for (const char* p = begin; p != end; ++p) {
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!p) break;
      starts_.push_back(static_cast<std::uint32_t>(p - begin + 1));
    }
    chars_before_.reserve(text.size() / kStride + 2);
    std::uint32_t chars = 0;
    unsigned char high = 0;  // every byte OR-ed: its top bit says whether one is above 0x7F
    for (std::size_t block = 0; block < text.size(); block += kStride) {
      chars_before_.push_back(chars);
      const std::size_t stop = std::min(text.size(), block + kStride);
      std::uint32_t continuations = 0;
      for (std::size_t i = block; i < stop; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        continuations += (c & 0xC0) == 0x80 ? 1u : 0u;
        high |= c;
      }
      chars += static_cast<std::uint32_t>(stop - block) - continuations;
    }
    if (text.size() % kStride == 0) chars_before_.push_back(chars);
    ascii_ = (high & 0x80) == 0;
  }

  /// 1-based line and column of a byte offset.
  std::pair<std::uint32_t, std::uint32_t> position(std::uint32_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const auto line = static_cast<std::uint32_t>(it - starts_.begin());
    return {line, 1 + charsBetween(starts_[line - 1], offset)};
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
  /// Characters are counted from checkpoints every kStride bytes: a column costs at most that
  /// many steps, not the length of its line (a minified line of megabytes has thousands of facts).
  static constexpr std::size_t kStride = 256;

  static bool isLead(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

  /// Characters in [start, offset) (`start` a line's first byte): the bytes in ASCII text,
  /// counted directly on a short stretch, from the checkpoints on a long one (a column is asked
  /// for twice per fact: this was 3 % of a cold run when every column walked from a checkpoint).
  std::uint32_t charsBetween(std::size_t start, std::size_t offset) const {
    offset = std::min(offset, text_.size());
    if (offset <= start) return 0;
    if (ascii_) return static_cast<std::uint32_t>(offset - start);
    if (offset - start > kStride) return charsBefore(offset) - charsBefore(start);
    std::uint32_t n = 0;
    for (std::size_t i = start; i < offset; ++i)
      if (isLead(text_[i])) ++n;
    return n;
  }

  /// Characters (UTF-8 lead bytes) in the text before byte `offset`.
  std::uint32_t charsBefore(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    const std::size_t block = offset / kStride;
    std::uint32_t n = chars_before_[block];
    for (std::size_t i = block * kStride; i < offset; ++i)
      if (isLead(text_[i])) ++n;
    return n;
  }

  std::string_view text_;
  std::vector<std::uint32_t> starts_;
  std::vector<std::uint32_t> chars_before_;  ///< characters before byte k * kStride
  bool ascii_ = true;                        ///< no byte of the text is above 0x7F
};

}  // namespace migrate::sdk
