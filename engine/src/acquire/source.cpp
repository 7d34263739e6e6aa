// Acquiring the source: a local directory as it is, or a git URL cloned with libgit2.

#include <algorithm>

#include "acquire/git_session.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

std::string headCommit(git_repository* repo) {
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo, "HEAD") != 0) return {};
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

struct CloneProgress {
  const std::function<void(const std::string&)>* sink;
  unsigned last_percent = 101;
  int credential_attempts = 0;
};

int onTransfer(const git_indexer_progress* stats, void* payload) {
  auto* p = static_cast<CloneProgress*>(payload);
  if (!*p->sink || stats->total_objects == 0) return 0;
  const unsigned percent = 100 * stats->received_objects / stats->total_objects;
  if (percent / 10 != p->last_percent / 10) {
    p->last_percent = percent;
    (*p->sink)("cloning: " + std::to_string(percent) + "% of " + std::to_string(stats->total_objects) +
               " objects");
  }
  return 0;
}

int onCredentials(git_credential** out, const char* /*url*/, const char* username_from_url,
                  unsigned int allowed_types, void* payload) {
  return git::agentCredentials(out, username_from_url, allowed_types,
                               static_cast<CloneProgress*>(payload)->credential_attempts);
}

/// Checks out `ref` (remote branch, tag, or commit) detached.
Status checkoutRef(git_repository* repo, const std::string& ref) {
  git::Object target;
  git_object* obj = nullptr;
  for (const std::string& spec : {"refs/remotes/origin/" + ref, "refs/tags/" + ref, ref}) {
    if (git_revparse_single(&obj, repo, spec.c_str()) == 0) break;
    obj = nullptr;
  }
  if (!obj) return makeError("ref '" + ref + "' is neither a branch, a tag nor a commit of the repository");
  target.reset(obj);
  git_object* commit_obj = nullptr;
  if (git_object_peel(&commit_obj, target.get(), GIT_OBJECT_COMMIT) != 0)
    return makeError("ref '" + ref + "' does not name a commit: " + git::lastError());
  git::Object commit(commit_obj);
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_FORCE;
  if (git_checkout_tree(repo, commit.get(), &opts) != 0 ||
      git_repository_set_head_detached(repo, git_object_id(commit.get())) != 0)
    return makeError("cannot check out '" + ref + "': " + git::lastError());
  return Ok{};
}

bool looksLikeLocalPath(const std::string& url) {
  return url.find("://") == std::string::npos && url.find('@') == std::string::npos;
}

}  // namespace

Result<SourceInfo> acquireSource(const SourceSpec& source, const fs::path& work_dir,
                                 const std::function<void(const std::string&)>& progress) {
  git::Session session;
  SourceInfo info;
  std::error_code ec;
  if (!source.path.empty()) {
    info.kind = "path";
    info.location = source.path;
    if (!fs::is_directory(source.path, ec))
      return makeError("source path " + source.path +
                       " does not exist or is not a directory; pass an existing repository with "
                       "--source PATH or set source.path in the pipeline");
    info.root = fs::canonical(source.path, ec);
    git_repository* repo = nullptr;
    if (git_repository_open_ext(&repo, info.root.c_str(), 0, nullptr) == 0) {
      git::Repository owned(repo);
      info.commit = headCommit(repo);
    }
    return info;
  }

  info.kind = "git";
  info.location = source.url;
  info.ref = source.ref;
  const std::string& from = source.mirror.empty() ? source.url : source.mirror;
  if (looksLikeLocalPath(from) && !fs::exists(from, ec))
    return makeError("cannot clone " + from + ": no such local repository");
  const fs::path dest = work_dir / "source";
  fs::remove_all(dest, ec);
  fs::create_directories(work_dir, ec);
  if (ec) return makeError("cannot create work directory " + work_dir.string() + ": " + ec.message());

  CloneProgress cp{&progress};
  git_clone_options opts = GIT_CLONE_OPTIONS_INIT;
  opts.fetch_opts.callbacks.transfer_progress = onTransfer;
  opts.fetch_opts.callbacks.credentials = onCredentials;
  opts.fetch_opts.callbacks.payload = &cp;
  git_repository* repo = nullptr;
  if (git_clone(&repo, from.c_str(), dest.c_str(), &opts) != 0)
    return makeError(
        "cannot clone " + from + ": " + git::lastError() +
        (cp.credential_attempts > 3 ? " (authentication failed: load a key into ssh-agent)" : "") +
        "; check the URL, network access and credentials");
  git::Repository owned(repo);
  if (from != source.url)
    git_remote_set_url(repo, "origin", source.url.c_str());  // the clone names the real remote
  if (!source.ref.empty()) {
    if (auto st = checkoutRef(repo, source.ref); !st)
      return makeError("cloned " + source.url + " but " + st.error().message);
  }
  info.commit = headCommit(repo);
  info.root = fs::canonical(dest, ec);
  return info;
}

}  // namespace migrate
