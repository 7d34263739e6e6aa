#pragma once
/// Bare mirrors of the fleet's git repositories (DIR/mirrors/<name>.git), kept with libgit2 and
/// fetched incrementally each night; and the digest of a plain directory source.

#include <atomic>
#include <filesystem>
#include <string>

#include "fleet/fleet_spec.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// What a mirror update resolved.
struct MirrorState {
  std::string commit;  ///< the commit `ref` (or the default branch) names, full SHA
  int attempts = 0;    ///< fetches tried
};

/// Clones `url` into the bare repository `mirror` (branches and tags) when it is missing, else
/// fetches what changed (pruning deleted branches), then resolves `ref` (branch, tag, commit;
/// empty: the remote's default branch). Errors read "clone failed: <libgit2 message>", "fetch
/// failed: ..." or "ref 'x' not found ..." with the branches there are. Transient network errors are retried
/// `fetch.attempts` times with a doubling backoff; `stop` cancels a transfer and the waiting.
Result<MirrorState> updateMirror(const std::filesystem::path& mirror, const std::string& url,
                                 const std::string& ref, const FetchSpec& fetch,
                                 const std::atomic<bool>& stop);

/// True when `path` is the top of a git repository (a work tree or a bare repository).
bool isGitRepository(const std::filesystem::path& path);

/// "tree:<sha1>" over the paths, link targets and contents of the files a run of `root` reads
/// (.gitignore'd paths and .git left out): a plain directory's stand-in for a commit.
Result<std::string> directoryDigest(const std::filesystem::path& root);

/// SHA-1 (hex) of `text`, and of a file's contents (empty on a read error): the fleet's digests.
std::string digest(const std::string& text);
std::string fileDigest(const std::filesystem::path& file);

}  // namespace migrate::fleet
