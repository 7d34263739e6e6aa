#pragma once
/// The entries of the analysis cache: what analysing one Python file yields, and what one
/// plugin's repository pass reported with the files it read. Encoded as CBOR (compact, binary,
/// read and written by the JSON library the engine already uses).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/engine/plan.hpp"
#include "migrate/engine/python_layout.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate::cache {

struct FileAnalysis {
  std::vector<sdk::Finding> findings;
  std::vector<sdk::Diagnostic> diagnostics;
  ModuleSummary summary;  ///< path empty when the file did not parse
  std::uint64_t lines = 0;
  /// Kept when the file's own analysis reported on it: emit inserts lines there.
  std::optional<PythonLayout> layout;
};

/// A plugin's repository pass: what it reported, and each file it read with its content hash
/// (the entry holds while those files are unchanged).
struct RepositoryAnalysis {
  std::vector<std::pair<std::string, std::array<unsigned char, 16>>> reads;
  std::vector<sdk::Finding> findings;
  std::vector<sdk::Diagnostic> diagnostics;
};

/// The encoding's version, written first; an entry of another version is not read.
inline constexpr int kEntryFormat = 2;

/// `analysis` as bytes. Finding and diagnostic files equal to `path` are not repeated.
std::string encode(const FileAnalysis& analysis, std::string_view path);

/// The inverse of encode; nullopt with `why` set when `bytes` is not an entry of this format.
std::optional<FileAnalysis> decode(std::string_view bytes, std::string_view path, std::string& why);

std::string encode(const RepositoryAnalysis& analysis);
std::optional<RepositoryAnalysis> decodeRepository(std::string_view bytes, std::string& why);

}  // namespace migrate::cache
