#include "parse/python_layout.hpp"

#include <algorithm>
#include <cstring>

namespace migrate {

std::uint32_t PythonLayout::statementLineStart(std::uint32_t offset, std::string_view text) const {
  const Statement* inner = nullptr;
  for (const Statement& s : statements) {
    if (s.start > offset) break;
    if (offset < s.end || (offset == s.start && s.start == s.end)) inner = &s;  // later = more nested
  }
  return inner ? inner->line_start : parse::lineStartOf(text, offset);
}

namespace parse {
namespace {

bool isDocstring(TSNode node) {
  return std::strcmp(ts_node_type(node), "expression_statement") == 0 &&
         ts_node_named_child_count(node) == 1 &&
         std::strcmp(ts_node_type(ts_node_named_child(node, 0)), "string") == 0;
}

}  // namespace

std::uint32_t lineStartOf(std::string_view text, std::uint32_t offset) {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text.size()));
  while (offset > 0 && text[offset - 1] != '\n') --offset;
  return offset;
}

std::uint32_t importOffsetOf(TSNode module, std::string_view text) {
  bool first = true;
  TSTreeCursor cursor = ts_tree_cursor_new(module);
  std::uint32_t offset = static_cast<std::uint32_t>(text.size());
  for (bool more = ts_tree_cursor_goto_first_child(&cursor); more;
       more = ts_tree_cursor_goto_next_sibling(&cursor)) {
    const TSNode child = ts_tree_cursor_current_node(&cursor);
    if (!ts_node_is_named(child)) continue;
    const char* type = ts_node_type(child);
    if (std::strcmp(type, "comment") == 0) continue;
    const bool skip = (first && isDocstring(child)) || std::strcmp(type, "future_import_statement") == 0;
    first = false;
    if (skip) continue;
    offset = lineStartOf(text, ts_node_start_byte(child));
    break;
  }
  ts_tree_cursor_delete(&cursor);
  return offset;
}

}  // namespace parse
}  // namespace migrate
