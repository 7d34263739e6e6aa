#pragma once
/// The adapted tree (adapted/) as one emit places it, starting from what the previous emit left:
/// a file whose content and mode the previous emit already wrote, and that nobody touched since,
/// is kept (in place) or hard-linked (from an earlier output directory, a fleet's previous
/// night); every other file is written anew. Parts of npu_migration.patch are reused the same
/// way. Whatever the previous emit left, the tree and the patch are those a cold emit writes.

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "emit/emit_state.hpp"
#include "emit/patch_writer.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::emit {

/// The previous emit to start from: its state, and the directory holding its adapted/ tree and
/// patch. Without a state, nothing is reused.
struct PreviousEmit {
  std::optional<EmitState> state;
  std::filesystem::path dir;
  std::string patch;  ///< its npu_migration.patch, when the state's digest matches
};

/// Loads the emit in `dir` when one is there; a state made by other builds keeps its files
/// (checked by content) but not its patch parts.
PreviousEmit previousEmit(const std::filesystem::path& dir, const std::string& engine);

class TreeWriter {
 public:
  TreeWriter(std::filesystem::path adapted, const PreviousEmit& previous, std::string engine);

  /// `path` as a copy of the repository file `source` (content digest `digest`).
  Status copy(const std::string& path, const std::filesystem::path& source, const std::string& digest,
              std::filesystem::perms perms);
  /// `path` holding `text`, made from a repository file with digest `source_digest` ("" for a
  /// file the kit adds); `perms` nullopt: the default mode of a new file.
  Status write(const std::string& path, const std::string& text, const std::string& source_digest,
               std::optional<std::filesystem::perms> perms);
  /// `path` as a symbolic link to `target`.
  Status link(const std::string& path, const std::string& target);
  /// The patch part of the file placed last at `path`: reused when the previous emit made it for
  /// the same pair of contents and mode, else made by `patch`.
  Status addPatch(PatchWriter& patch, const std::string& path, const std::optional<std::string>& before,
                  const std::string& after, bool executable);

  /// Removes what adapted/ holds besides the files placed (left by an earlier emit), and the
  /// directories that leaves empty.
  Status removeOthers();
  /// The state to leave for the next emit, for a patch whose text is `patch_text`.
  EmitState state(const std::string& patch_text) const;

  /// True when the previous emit's tree is the one being brought up to date (its directory is
  /// this output's and its state was read); else adapted/ starts empty.
  bool inPlace() const { return in_place_; }
  std::size_t placed() const { return state_.files.size(); }
  std::size_t reused() const { return reused_; }

 private:
  const TreeFile* previousOf(const std::string& path) const;
  /// Keeps or links the previous emit's `path` when it holds `digest` with `perms`.
  bool reuse(const std::string& path, const std::string& digest, std::filesystem::perms perms,
             const std::string& source_digest);
  Status record(const std::string& path, TreeFile entry);

  std::filesystem::path adapted_;
  const PreviousEmit& previous_;
  std::filesystem::path previous_adapted_;
  bool in_place_ = false;
  EmitState state_;
  std::size_t reused_ = 0;
};

}  // namespace migrate::emit
