// sdk::LineIndex: 1-based lines and columns in characters (UTF-8 lead bytes), for ASCII and
// non-ASCII text, short and long lines, against a count done the plain way.

#include <gtest/gtest.h>

#include <string>

#include "migrate/sdk/text_position.hpp"

namespace migrate {
namespace {

std::pair<std::uint32_t, std::uint32_t> plainPosition(const std::string& text, std::size_t offset) {
  std::uint32_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

TEST(LineIndex, PositionsAreTheCharactersCountedPlainly) {
  const std::string long_ascii(700, 'a');
  std::string long_mixed;
  for (int i = 0; i < 300; ++i) long_mixed += i % 7 == 0 ? "\xc3\xa9" : "b";  // é every seventh
  for (const std::string& text :
       {std::string("import torch\nx = 1\n"),
        std::string("s = \"caf\xc3\xa9\"  # \xe6\x97\xa5\xe6\x9c\xac\ny = 2"), long_ascii + "\n" + long_ascii,
        long_mixed + "\nz\n" + long_mixed, std::string(), std::string("\n\n"),
        // At and across the checkpoints' 256-byte blocks: a text of exactly one and two blocks,
        // a character split between two blocks, one non-ASCII byte as a text's last.
        std::string(256, 'a'), std::string(511, 'c') + "\n",
        std::string(255, 'd') + "\xc3\xa9" + std::string(300, 'e'), std::string(600, 'f') + "\xe6\x97\xa5"}) {
    const sdk::LineIndex index(text);
    for (std::size_t offset = 0; offset <= text.size() + 1; ++offset) {
      const auto [line, column] = index.position(static_cast<std::uint32_t>(offset));
      EXPECT_EQ(std::make_pair(line, column), plainPosition(text, offset)) << "offset " << offset;
    }
  }
}

}  // namespace
}  // namespace migrate
