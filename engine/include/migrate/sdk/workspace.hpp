#pragma once
/// A read-only view of the repository under analysis.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace migrate::sdk {

enum class Language { Python, Cuda, Cpp, C, CMake, Shell, Text, Other };

struct FileEntry {
  std::string path;  ///< relative to the repository root, '/' separated
  std::uint64_t size = 0;
  Language language = Language::Other;
};

class WorkspaceView {
 public:
  virtual ~WorkspaceView() = default;
  /// Files selected for analysis (ignored, binary, oversized and escaping files excluded).
  virtual const std::vector<FileEntry>& files() const = 0;
  /// Contents of a file in `files()`; nullopt when it cannot be read.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
};

}  // namespace migrate::sdk
