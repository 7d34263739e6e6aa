#pragma once
/// Fact extraction from a parsed Python tree (see python_facts.cpp).

#include <tree_sitter/api.h>

#include "parse/python_module.hpp"

namespace migrate::parse {

/// Fills `module`'s facts from the tree rooted at `root`. Returns false when part of the tree was
/// too deeply nested to walk (the facts of the rest are kept).
bool extractFacts(PythonModule& module, TSNode root, const TSLanguage* language);

}  // namespace migrate::parse
