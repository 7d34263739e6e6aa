#pragma once
/// The parts of a PythonLayout (migrate/engine/python_layout.hpp) the fact walk takes from the
/// syntax tree: the statements are recorded as the walk meets them (FactExtractor::visit).

#include <tree_sitter/api.h>

#include <cstdint>
#include <string_view>

#include "migrate/engine/python_layout.hpp"

namespace migrate::parse {

/// The start of the line holding byte `offset` (clamped to the text).
std::uint32_t lineStartOf(std::string_view text, std::uint32_t offset);

/// PythonLayout::import_offset of the module node `module` of `text`.
std::uint32_t importOffsetOf(TSNode module, std::string_view text);

}  // namespace migrate::parse
