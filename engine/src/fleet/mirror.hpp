#pragma once
/// Bare mirrors of the fleet's git repositories (DIR/mirrors/<name>.git), kept with libgit2 and
/// fetched incrementally each night; and the digest of a plain directory source.

#include <atomic>
#include <filesystem>
#include <string>

#include "fleet/fleet_spec.hpp"
#include "migrate/engine/result.hpp"

struct git_repository;

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

/// `url` as git rewrites it with `repo`'s configuration (all levels): the base of the longest
/// url.<base>.insteadOf value that is a prefix of it, for a push url.<base>.pushInsteadOf first.
/// Read without libgit2's patterns: libgit2 1.5 (Debian 12) leaks a PCRE2 match block (24 KiB
/// with PCRE2 10.42) for every entry a pattern does not match (libgit2#6382, fixed in 1.6), and
/// its own insteadOf, in git_remote_lookup and git_remote_create*, matches every entry of the
/// configuration twice per call: most of a fleet runner's memory after a cold night. Remotes are
/// created with GIT_REMOTE_CREATE_SKIP_INSTEADOF and this URL instead.
std::string rewrittenUrl(git_repository* repo, const std::string& url, bool push);

/// True when `path` is the top of a git repository (a work tree or a bare repository).
bool isGitRepository(const std::filesystem::path& path);

/// "tree:<sha1>" over the paths, link targets and contents of the files a run of `root` reads
/// (.gitignore'd paths and .git left out): a plain directory's stand-in for a commit.
Result<std::string> directoryDigest(const std::filesystem::path& root);

/// SHA-1 (hex) of `text`, and of a file's contents (empty on a read error): the fleet's digests.
std::string digest(const std::string& text);
std::string fileDigest(const std::filesystem::path& file);

}  // namespace migrate::fleet
