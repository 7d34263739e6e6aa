#pragma once
/// Helpers shared by the fuzz targets: a scratch directory for readers that take a path, a
/// finding sink that keeps nothing, and the source tree's location.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "migrate/sdk/finding.hpp"

namespace migrate::fuzz {

/// The bytes of one fuzz input as text.
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A directory of this process for the files a reader is given by path (in /dev/shm when there
/// is one: a fuzz run writes one file per input). Removed at exit.
inline const std::filesystem::path& scratchDir() {
  static const std::filesystem::path dir = [] {
    std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/migrate-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) std::abort();
    static std::filesystem::path removed_at_exit;
    removed_at_exit = pattern;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removed_at_exit, ec);
    });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

/// Writes `content` to `name` in the scratch directory and returns its path.
inline std::filesystem::path writeScratch(const std::string& name, std::string_view content) {
  const std::filesystem::path file = scratchDir() / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) std::abort();
  return file;
}

/// Counts what it is given, so the work is not optimised away.
class CountingSink final : public sdk::FindingSink {
 public:
  void report(sdk::Finding finding) override {
    ++findings;
    bytes += finding.message.size() + finding.api.size();
  }
  void diagnose(sdk::Diagnostic diagnostic) override {
    ++diagnostics;
    bytes += diagnostic.message.size();
  }
  std::size_t findings = 0;
  std::size_t diagnostics = 0;
  std::size_t bytes = 0;
};

}  // namespace migrate::fuzz
