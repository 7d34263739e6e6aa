#pragma once
/// Parses Python source with tree-sitter and extracts the module facts in one tree walk.

#include <memory>
#include <string>

#include "migrate/engine/result.hpp"
#include "parse/python_module.hpp"

namespace migrate::parse {

/// Parses `source` (one TSParser per thread, reused) and returns the module with its facts.
/// A file with syntax errors still yields the facts of the parts that parsed; only a parser
/// failure (time-out) or a file the parser cannot be given (more than 10,000 brackets left open at
/// its end) is an error; see PythonModule::truncated() for trees nested too deeply.
Result<std::unique_ptr<PythonModule>> parsePython(std::string relative_path, std::string source);

}  // namespace migrate::parse
