#pragma once
/// Parses Python source with tree-sitter and extracts the module facts in one tree walk.

#include <cstdint>
#include <memory>
#include <string>

#include "migrate/engine/result.hpp"
#include "parse/python_module.hpp"

struct TSLanguage;

namespace migrate::parse {

/// The Python grammar as the engine parses with it: tree-sitter-python with its parse table made
/// dense (parse/dense_parse_table.h), built on the first call and kept for the process's life.
const TSLanguage* pythonLanguage();

/// How long a parse may take before it is abandoned (limits.parse_timeout_ms).
constexpr std::uint64_t kDefaultParseTimeoutMs = 30'000;

/// Parses `source` (one TSParser per thread, reused) and returns the module with its facts.
/// A file with syntax errors still yields the facts of the parts that parsed; only a parser
/// failure (a parse longer than `timeout_ms`) or a file the parser cannot be given (more than
/// 10,000 brackets left open at its end) is an error; see PythonModule::truncated() for trees
/// nested too deeply.
Result<std::unique_ptr<PythonModule>> parsePython(std::string relative_path, std::string source,
                                                  std::uint64_t timeout_ms = kDefaultParseTimeoutMs);

}  // namespace migrate::parse
