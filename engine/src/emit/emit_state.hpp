#pragma once
/// What an emit leaves in its output directory for the next emit to start from
/// (emit_state.json): for each file of adapted/, the hashes of its source and of what was
/// written, the file as written (size, modification time, mode), and its part of
/// npu_migration.patch. The next emit reuses a file whose hashes and mode are unchanged and that
/// still looks as written, and a patch part whose file pair is unchanged; everything else is
/// written anew, so the kit is the one a cold emit writes.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"

namespace migrate::emit {

/// XXH3-128 of `bytes` as 32 hex digits.
std::string contentDigest(std::string_view bytes);
/// The same digest of a file's content, read in blocks; nullopt when it cannot be read.
std::optional<std::string> fileDigest(const std::filesystem::path& file);

struct TreeFile {
  std::string source_digest;   ///< the repository file's content ("" for a file the kit adds)
  std::string written_digest;  ///< what adapted/ holds
  std::uint64_t size = 0;      ///< the file as written, to tell it was not touched since
  std::int64_t mtime_ns = 0;
  std::uint32_t perms = 0;
  std::string link;  ///< a symbolic link's target (then the digests are empty)
  /// [begin, end) of the file's part of npu_migration.patch; begin == end: none.
  std::uint64_t patch_begin = 0;
  std::uint64_t patch_end = 0;
};

struct EmitState {
  std::string engine;        ///< the builds that made the patch parts (cache::loadedBuilds digest)
  std::string patch_digest;  ///< of npu_migration.patch as written
  std::map<std::string, TreeFile> files;  ///< by path under adapted/
};

inline constexpr const char* kEmitStateFile = "emit_state.json";

/// The state in `dir`, or nullopt with `why` (no file, another format, unreadable).
std::optional<EmitState> readEmitState(const std::filesystem::path& dir, std::string& why);
Status writeEmitState(const std::filesystem::path& dir, const EmitState& state);

/// Size, modification time and mode of `file` as TreeFile records them (the digests and
/// the patch part left empty); nullopt when it does not exist.
std::optional<TreeFile> statOf(const std::filesystem::path& file);

/// True when `file` still has the size and modification time recorded in `entry`.
bool untouched(const std::filesystem::path& file, const TreeFile& entry);

}  // namespace migrate::emit
