// The dense parse table (parse/dense_parse_table.h): the engine's Python language parses every
// Python file of this repository, and broken versions of them, to the same trees as the grammar
// as published, node by node, with the same parse states.

#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "parse/python_parser.hpp"

extern "C" const TSLanguage* tree_sitter_python();

namespace migrate::parse {
namespace {

namespace fs = std::filesystem;

/// Every node of the tree in pre-order: symbol, byte range, parse state and flags, one line each.
std::string nodes(const TSLanguage* language, const std::string& text) {
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), ts_parser_delete);
  EXPECT_TRUE(ts_parser_set_language(parser.get(), language));
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<std::uint32_t>(text.size())),
      ts_tree_delete);
  std::ostringstream out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree.get()));
  for (bool more = true; more;) {
    const TSNode n = ts_tree_cursor_current_node(&cursor);
    out << ts_node_symbol(n) << ' ' << ts_node_start_byte(n) << ' ' << ts_node_end_byte(n) << ' '
        << ts_node_parse_state(n) << ' ' << ts_node_next_parse_state(n) << ' ' << ts_node_is_missing(n)
        << ts_node_is_error(n) << ts_node_has_error(n) << '\n';
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
  return out.str();
}

std::vector<fs::path> repositoryPythonFiles() {
  std::vector<fs::path> files;
  const fs::path root = MIGRATE_SOURCE_DIR;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.starts_with("build") || name.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".py") files.push_back(it->path());
  }
  return files;
}

/// The text, and broken versions of it: cut at a third and at two thirds, and with a syntax error
/// in the middle (error recovery looks up many more table entries than a clean parse).
std::vector<std::string> variants(const std::string& text) {
  const std::size_t third = text.size() / 3;
  std::string broken = text;
  broken.insert(text.find('\n', third) == std::string::npos ? text.size() : text.find('\n', third) + 1,
                "def f(:\n  x = [1, (2\n");
  return {text, text.substr(0, third), text.substr(0, 2 * third), broken};
}

TEST(DenseParseTable, IsACopyWithEveryStateDense) {
  const TSLanguage* dense = pythonLanguage();
  ASSERT_NE(dense, tree_sitter_python())
      << "the copy was refused: the grammar's ABI is not one the file knows";
  EXPECT_EQ(ts_language_state_count(dense), ts_language_state_count(tree_sitter_python()));
  EXPECT_EQ(ts_language_symbol_count(dense), ts_language_symbol_count(tree_sitter_python()));
  EXPECT_EQ(pythonLanguage(), dense) << "built once";
}

TEST(DenseParseTable, ParsesTheRepositorysPythonToTheSameTrees) {
  const std::vector<fs::path> files = repositoryPythonFiles();
  ASSERT_GE(files.size(), 50u) << "the repository's own Python files are the test's input";
  std::size_t compared = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& v : variants(text)) {
      const std::string published = nodes(tree_sitter_python(), v);
      ASSERT_EQ(nodes(pythonLanguage(), v), published) << file << " (" << v.size() << " bytes)";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4 * files.size());
}

}  // namespace
}  // namespace migrate::parse
