#include "fleet/delivery.hpp"

#include <git2.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "acquire/git_session.hpp"
#include "fleet/mirror.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Diff = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using Index = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using Commit = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using Tree = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using Remote = std::unique_ptr<git_remote, Deleter<git_remote, git_remote_free>>;
using Signature = std::unique_ptr<git_signature, Deleter<git_signature, git_signature_free>>;
using Reference = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;

/// The mirror's refs outside the fetched namespaces (refs/heads, refs/tags), so fetches never
/// prune them: the commit being pushed, and the last one delivered per branch pattern.
constexpr const char* kOutgoing = "refs/migrate-pipeline/outgoing";
constexpr const char* kDelivered = "refs/migrate-pipeline/delivered";

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string oidText(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

/// The commit message: a title, then the report's executive summary up to its stage table.
std::string message(const RepoSpec& repo, const std::string& commit, const fs::path& out) {
  std::string summary;
  std::error_code ec;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("CodeReview_Results_", 0) != 0) continue;
    std::istringstream report(readText(it->path()));
    bool in = false;
    for (std::string line; std::getline(report, line);) {
      if (line.rfind("## 1.", 0) == 0) {
        in = true;
        continue;
      }
      if (in && (line.rfind("## ", 0) == 0 || line.rfind("Run stages", 0) == 0)) break;
      if (in) summary += line + "\n";
    }
  }
  while (!summary.empty() && summary.front() == '\n') summary.erase(0, 1);
  return "Adapt " + repo.name + " for Ascend NPUs (migrate-pipeline)\n\nThe adaptation of commit " +
         commit.substr(0, 12) + " written by migrate-pipeline; review it before merging.\n\n" + summary;
}

struct PushState {
  std::string rejected;  ///< the remote's reason, when it refused the update
  const std::atomic<bool>* stop;
  int credential_attempts = 0;
};

int onPushUpdate(const char* refname, const char* status, void* payload) {
  if (status) static_cast<PushState*>(payload)->rejected = std::string(refname) + ": " + status;
  return 0;
}

int onCredentials(git_credential** out, const char*, const char* username_from_url, unsigned int allowed,
                  void* payload) {
  return git::agentCredentials(out, username_from_url, allowed,
                               static_cast<PushState*>(payload)->credential_attempts);
}

int onPushProgress(unsigned int, unsigned int, size_t, void* payload) {
  return static_cast<PushState*>(payload)->stop->load() ? -1 : 0;
}

Error failed(const std::string& step) {
  return makeError("delivery failed: " + step + ": " + git::lastError());
}

}  // namespace

std::string deliveryBranch(const std::string& pattern, const std::string& repo, const std::string& label) {
  std::string out = pattern;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{date}", label}, {"{name}", repo}})
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
      out.replace(at, key.size(), value);
  return out;
}

Result<Delivery> deliver(const DeliverSpec& spec, const RepoSpec& repo, const fs::path& mirror,
                         const std::string& commit, const fs::path& out, const std::string& label,
                         const std::atomic<bool>& stop) {
  git::Session session;
  Delivery d;
  d.branch = deliveryBranch(spec.branch, repo.name, label);
  d.remote = spec.remote == "source" ? repo.location : deliveryBranch(spec.remote, repo.name, label);
  const std::string patch = readText(out / "npu_migration.patch");
  if (patch.empty()) {
    d.state = "nothing";
    return d;
  }
  git_repository* raw_repo = nullptr;
  if (git_repository_open_bare(&raw_repo, mirror.c_str()) != 0) return failed("opening the mirror");
  git::Repository repo_handle(raw_repo);
  git_repository* r = repo_handle.get();

  // The default branch is never written.
  Reference head;
  {
    git_reference* h = nullptr;
    if (git_reference_lookup(&h, r, "HEAD") == 0) head.reset(h);
    const char* target = head ? git_reference_symbolic_target(head.get()) : nullptr;
    if (target && std::string(target) == "refs/heads/" + d.branch)
      return makeError("delivery failed: deliver.branch '" + d.branch +
                       "' is the repository's default branch; choose another, e.g. npu-migration/{date}");
  }

  // The analysed commit with the patch applied.
  git_oid base_oid;
  if (git_oid_fromstr(&base_oid, commit.c_str()) != 0) return failed("reading the analysed commit");
  git_commit* base_raw = nullptr;
  if (git_commit_lookup(&base_raw, r, &base_oid) != 0) return failed("finding the analysed commit");
  Commit base(base_raw);
  git_tree* base_tree_raw = nullptr;
  if (git_commit_tree(&base_tree_raw, base.get()) != 0) return failed("reading the analysed tree");
  Tree base_tree(base_tree_raw);
  git_diff* diff_raw = nullptr;
  if (git_diff_from_buffer(&diff_raw, patch.data(), patch.size()) != 0)
    return failed("reading npu_migration.patch");
  Diff diff(diff_raw);
  git_index* index_raw = nullptr;
  if (git_apply_to_tree(&index_raw, r, base_tree.get(), diff.get(), nullptr) != 0)
    return failed("applying npu_migration.patch to " + commit.substr(0, 12));
  Index index(index_raw);
  git_oid tree_oid;
  if (git_index_write_tree_to(&tree_oid, index.get(), r) != 0) return failed("writing the adapted tree");

  // The same adaptation of the same commit as last time: nothing new to review.
  const std::string delivered_ref = std::string(kDelivered) + "/" + repo.name;
  git_oid last;
  if (git_reference_name_to_id(&last, r, delivered_ref.c_str()) == 0) {
    git_commit* last_raw = nullptr;
    if (git_commit_lookup(&last_raw, r, &last) == 0) {
      Commit previous(last_raw);
      if (git_oid_equal(git_commit_tree_id(previous.get()), &tree_oid) &&
          git_commit_parentcount(previous.get()) == 1 &&
          git_oid_equal(git_commit_parent_id(previous.get(), 0), &base_oid)) {
        d.state = "unchanged";
        d.commit = oidText(last);
        return d;
      }
    }
  }

  git_tree* tree_raw = nullptr;
  if (git_tree_lookup(&tree_raw, r, &tree_oid) != 0) return failed("reading the adapted tree");
  Tree tree(tree_raw);
  git_signature* sig_raw = nullptr;
  if (git_signature_now(&sig_raw, spec.author_name.c_str(), spec.author_email.c_str()) != 0)
    return failed("deliver.author_name / author_email");
  Signature sig(sig_raw);
  const git_commit* parents[] = {base.get()};
  git_oid new_oid;
  const std::string text = message(repo, commit, out);
  if (git_commit_create(&new_oid, r, nullptr, sig.get(), sig.get(), "UTF-8", text.c_str(), tree.get(), 1,
                        parents) != 0)
    return failed("committing the adaptation");
  git_reference* outgoing = nullptr;
  if (git_reference_create(&outgoing, r, kOutgoing, &new_oid, 1, "migrate-pipeline: delivery") != 0)
    return failed("marking the commit to push");
  git_reference_free(outgoing);

  // Push it as the branch (forced: the branch is the tool's, renewed with each adaptation).
  // An anonymous remote with the URL rewritten here: libgit2's own insteadOf leaks (see rewrittenUrl).
  git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
  create.repository = r;
  create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
  git_remote* remote_raw = nullptr;
  if (git_remote_create_with_opts(&remote_raw, rewrittenUrl(r, d.remote, true).c_str(), &create) != 0)
    return failed("remote " + d.remote);
  Remote remote(remote_raw);
  PushState state{{}, &stop};
  git_push_options opts = GIT_PUSH_OPTIONS_INIT;
  opts.callbacks.push_update_reference = onPushUpdate;
  opts.callbacks.credentials = onCredentials;
  opts.callbacks.push_transfer_progress = onPushProgress;
  opts.callbacks.payload = &state;
  const std::string refspec = std::string("+") + kOutgoing + ":refs/heads/" + d.branch;
  char* specs[] = {const_cast<char*>(refspec.c_str())};
  const git_strarray refspecs{specs, 1};
  if (git_remote_push(remote.get(), &refspecs, &opts) != 0) return failed("pushing to " + d.remote);
  if (!state.rejected.empty())
    return makeError("delivery failed: " + d.remote + " refused " + state.rejected);
  git_reference* delivered = nullptr;
  if (git_reference_create(&delivered, r, delivered_ref.c_str(), &new_oid, 1,
                           "migrate-pipeline: delivered") == 0)
    git_reference_free(delivered);
  d.state = "delivered";
  d.commit = oidText(new_oid);
  return d;
}

}  // namespace migrate::fleet
