#pragma once
/// A read-only view of the repository under analysis.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace migrate::sdk {

/// A file's language, from its name; a file of no known extension whose first line is a shell's
/// shebang (`#!/usr/bin/env bash`) is Shell.
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

  /// Per-file memos of a repository pass, for passes that summarise every file of a kind and then
  /// combine the summaries (so that one changed file costs one summary, not all of them).
  /// `remember` stores `value` under `kind` for the content this pass last `read()` of `path`;
  /// `recall` returns what a run stored for the file's current content (its path, the plugin's
  /// build and options, the pass and `kind` alike), and counts as reading the file: the pass's
  /// cached result then depends on it. Without the analysis cache (`--no-cache`, or outside a
  /// run) `recall` finds nothing and `remember` does nothing. A value comes from disk: decode it
  /// defensively and treat a value that does not decode as not found. Change `kind` (e.g.
  /// "summary/2") when the value's format changes.
  virtual std::optional<std::string> recall(const std::string& path, std::string_view kind) const {
    (void)path;
    (void)kind;
    return std::nullopt;
  }
  virtual void remember(const std::string& path, std::string_view kind, std::string value) const {
    (void)path;
    (void)kind;
    (void)value;
  }
};

}  // namespace migrate::sdk
