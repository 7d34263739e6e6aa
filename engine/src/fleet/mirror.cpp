#include "fleet/mirror.hpp"

#include <git2.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "acquire/git_session.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

struct RemoteDeleter {
  void operator()(git_remote* r) const { git_remote_free(r); }
};
using Remote = std::unique_ptr<git_remote, RemoteDeleter>;
struct ConfigDeleter {
  void operator()(git_config* c) const { git_config_free(c); }
};
using Config = std::unique_ptr<git_config, ConfigDeleter>;

struct Callbacks {
  const std::atomic<bool>* stop;
  int credential_attempts = 0;
};

int onTransfer(const git_indexer_progress*, void* payload) {
  return static_cast<Callbacks*>(payload)->stop->load() ? -1 : 0;
}

int onCredentials(git_credential** out, const char*, const char* username_from_url, unsigned int allowed,
                  void* payload) {
  return git::agentCredentials(out, username_from_url, allowed,
                               static_cast<Callbacks*>(payload)->credential_attempts);
}

/// Network, TLS and HTTP errors — a refused or dropped connection, a timeout, a host name not
/// resolved — may pass on a new try; "not found" and authentication errors do not.
bool transient() {
  const git_error* e = git_error_last();
  if (!e) return false;
  const std::string m = e->message ? e->message : "";
  for (const char* permanent : {"not found", "404", "401", "403", "authentication", "does not exist",
                                "not a git repository", "could not find repository", "resolve path"})
    if (m.find(permanent) != std::string::npos) return false;
  if (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSL || e->klass == GIT_ERROR_HTTP) return true;
  for (const char* network : {"failed to connect", "Connection refused", "timed out", "reset by peer",
                              "resolve host", "resolve address", "unexpected disconnect", "early EOF"})
    if (m.find(network) != std::string::npos) return true;
  return false;
}

std::string oidText(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

/// Branch names of the mirror, for "ref not found" hints.
std::string branchList(git_repository* repo) {
  git_strarray refs{};
  if (git_reference_list(&refs, repo) != 0) return {};
  std::vector<std::string> names;
  for (std::size_t i = 0; i < refs.count; ++i) {
    const std::string r = refs.strings[i];
    if (r.rfind("refs/heads/", 0) == 0) names.push_back(r.substr(11));
  }
  git_strarray_dispose(&refs);
  std::sort(names.begin(), names.end());
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 8) out += ", ...";
  return out.empty() ? "none" : out;
}

/// The fetched namespaces: every branch and every tag, as they are on the remote.
constexpr const char* kBranchSpec = "+refs/heads/*:refs/heads/*";
constexpr const char* kTagSpec = "+refs/tags/*:refs/tags/*";

/// Records `url` as the mirror's remote.origin.url (for people who look at the mirror) when it is
/// not that yet; a failure to record it costs nothing, the fetch does not read it.
void recordOrigin(git_repository* repo, const std::string& url) {
  git_config* raw = nullptr;
  if (git_repository_config(&raw, repo) != 0) return;
  Config config(raw);
  git_buf current = GIT_BUF_INIT;
  const bool same = git_config_get_string_buf(&current, config.get(), "remote.origin.url") == 0 &&
                    current.ptr != nullptr && url == current.ptr;
  git_buf_dispose(&current);
  if (!same) (void)git_config_set_string(config.get(), "remote.origin.url", url.c_str());
}

/// One fetch of every branch and tag (a clone when the mirror is new); sets the mirror's HEAD
/// to the remote's default branch. The remote is an in-memory one, neither looked up nor created
/// in the mirror's configuration: libgit2 1.5 would match every configuration entry against a
/// pattern there (see rewrittenUrl), leaking a PCRE2 match block per entry and call.
Status fetchOnce(git_repository* repo, const std::string& url, Callbacks& cb, bool fresh) {
  recordOrigin(repo, url);
  git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
  create.repository = repo;
  create.name = nullptr;  // anonymous: nothing is read from or written to the configuration
  create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
  git_remote* raw = nullptr;
  if (git_remote_create_with_opts(&raw, rewrittenUrl(repo, url, false).c_str(), &create) != 0)
    return makeError(git::lastError());
  Remote remote(raw);
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  callbacks.transfer_progress = onTransfer;
  callbacks.credentials = onCredentials;
  callbacks.payload = &cb;
  if (git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) != 0)
    return makeError(git::lastError());
  git_buf head = GIT_BUF_INIT;
  std::string default_branch;
  if (git_remote_default_branch(&head, remote.get()) == 0) default_branch = head.ptr;
  git_buf_dispose(&head);
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  opts.callbacks = callbacks;
  opts.prune = GIT_FETCH_PRUNE;
  opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  char* specs[] = {const_cast<char*>(kBranchSpec), const_cast<char*>(kTagSpec)};
  const git_strarray refspecs{specs, 2};
  if (git_remote_fetch(remote.get(), &refspecs, &opts,
                       fresh ? "migrate-pipeline: mirror" : "migrate-pipeline: fetch") != 0)
    return makeError(git::lastError());
  if (!default_branch.empty()) git_repository_set_head(repo, default_branch.c_str());
  return Ok{};
}

Result<std::string> resolve(git_repository* repo, const std::string& url, const std::string& ref) {
  git_object* obj = nullptr;
  if (ref.empty()) {
    if (git_revparse_single(&obj, repo, "HEAD") != 0)
      return makeError(url + " has no default branch (an empty repository?); set ref (branches: " +
                       branchList(repo) + ")");
  } else {
    for (const std::string& spec : {"refs/heads/" + ref, "refs/tags/" + ref, ref})
      if (git_revparse_single(&obj, repo, spec.c_str()) == 0) break;
    if (!obj)
      return makeError("ref '" + ref + "' not found in " + url + " (branches: " + branchList(repo) +
                       "); fix ref in the manifest");
  }
  git::Object target(obj);
  git_object* commit = nullptr;
  if (git_object_peel(&commit, target.get(), GIT_OBJECT_COMMIT) != 0)
    return makeError("ref '" + ref + "' of " + url + " does not name a commit");
  git::Object owned(commit);
  return oidText(*git_object_id(commit));
}

/// libgit2 ready for hashing, started once for the process: digests are taken per repository
/// name and per file, far too often to start and stop the library each time.
void hashing() {
  static const git::Session session;
}

/// What to do when `url` is a local shallow clone (libgit2 cannot fetch from one); "" otherwise.
std::string shallowHint(const std::string& url) {
  std::string path = url;
  if (path.rfind("file://", 0) == 0)
    path = path.substr(7);
  else if (path.find("://") != std::string::npos)
    return {};
  std::error_code ec;
  if (!fs::exists(fs::path(path) / ".git" / "shallow", ec) && !fs::exists(fs::path(path) / "shallow", ec))
    return {};
  return "; " + path +
         " is a shallow clone, which libgit2 cannot fetch from: run `git fetch --unshallow` there, "
         "or give the repository's URL";
}

}  // namespace

Result<MirrorState> updateMirror(const fs::path& mirror, const std::string& url, const std::string& ref,
                                 const FetchSpec& fetch, const std::atomic<bool>& stop) {
  git::Session session;
  std::error_code ec;
  const bool fresh = !fs::exists(mirror / "HEAD", ec);
  git_repository* raw = nullptr;
  if (fresh) {
    fs::remove_all(mirror, ec);  // a clone that died half-way
    fs::create_directories(mirror.parent_path(), ec);
    if (git_repository_init(&raw, mirror.c_str(), 1) != 0)
      return makeError("clone failed: cannot create the mirror " + mirror.string() + ": " + git::lastError());
  } else if (git_repository_open_bare(&raw, mirror.c_str()) != 0) {
    return makeError("fetch failed: the mirror " + mirror.string() + " is damaged (" + git::lastError() +
                     "); remove it and run again");
  }
  git::Repository repo(raw);
  MirrorState state;
  auto backoff = fetch.backoff;
  for (;;) {
    ++state.attempts;
    Callbacks cb{&stop};
    const Status st = fetchOnce(repo.get(), url, cb, fresh);
    if (st) break;
    if (stop.load()) return makeError("fetch interrupted");
    const bool retry = transient() && state.attempts < fetch.attempts;
    if (!retry) {
      std::string msg = st.error().message;
      std::replace(msg.begin(), msg.end(), '\n', ' ');
      return makeError(
          std::string(fresh ? "clone" : "fetch") + " failed: " + msg +
          (state.attempts > 1 ? " (after " + std::to_string(state.attempts) + " tries)" : "") +
          (cb.credential_attempts > 3 ? "; authentication failed: load a key into ssh-agent" : "") +
          shallowHint(url));
    }
    for (auto waited = std::chrono::milliseconds(0); waited < backoff && !stop.load();
         waited += std::chrono::milliseconds(50))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    backoff *= 2;
  }
  auto commit = resolve(repo.get(), url, ref);
  if (!commit) return commit.error();
  state.commit = commit.value();
  return state;
}

std::string rewrittenUrl(git_repository* repo, const std::string& url, bool push) {
  git_config* raw = nullptr;
  if (git_repository_config_snapshot(&raw, repo) != 0) return url;
  Config config(raw);
  git_config_iterator* it = nullptr;
  if (git_config_iterator_new(&it, config.get()) != 0) return url;  // every entry: no pattern
  // Names come lower-cased but for the subsection: url.<base>.insteadof, url.<base>.pushinsteadof.
  constexpr std::string_view kSection = "url.";
  constexpr std::string_view kFetch = ".insteadof";
  constexpr std::string_view kPush = ".pushinsteadof";
  std::string fetch_base, push_base;
  std::size_t fetch_length = 0, push_length = 0;
  git_config_entry* entry = nullptr;
  while (git_config_next(&entry, it) == 0) {
    const std::string_view name = entry->name;
    const std::string_view value = entry->value != nullptr ? entry->value : "";
    if (!name.starts_with(kSection) || value.empty() || url.compare(0, value.size(), value) != 0) continue;
    for (auto [suffix, base, length] :
         {std::tuple{kFetch, &fetch_base, &fetch_length}, std::tuple{kPush, &push_base, &push_length}}) {
      if (name.size() <= kSection.size() + suffix.size() || !name.ends_with(suffix) ||
          value.size() <= *length)
        continue;
      *length = value.size();  // the longest prefix wins, as in git
      *base = std::string(name.substr(kSection.size(), name.size() - kSection.size() - suffix.size()));
    }
  }
  git_config_iterator_free(it);
  if (push && push_length > 0) return push_base + url.substr(push_length);
  return fetch_length > 0 ? fetch_base + url.substr(fetch_length) : url;
}

bool isGitRepository(const fs::path& path) {
  git::Session session;
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) return false;
  git_repository_free(raw);
  return true;
}

std::string digest(const std::string& text) {
  hashing();
  git_oid oid;
  git_odb_hash(&oid, text.data(), text.size(), GIT_OBJECT_BLOB);
  return oidText(oid);
}

std::string fileDigest(const fs::path& file) {
  hashing();
  git_oid oid;
  if (git_odb_hashfile(&oid, file.c_str(), GIT_OBJECT_BLOB) != 0) return {};
  return oidText(oid);
}

Result<std::string> directoryDigest(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return makeError(root.string() + " is neither a git repository nor a directory");
  std::vector<sdk::Diagnostic> ignored;
  std::string listing;
  for (const TreeEntry& e : listRepositoryTree(root, ignored)) {
    listing += e.path;
    listing += '\0';
    listing += e.link_target.empty() ? fileDigest(root / e.path) : "link:" + e.link_target;
    listing += '\n';
  }
  return "tree:" + digest(listing);
}

}  // namespace migrate::fleet
