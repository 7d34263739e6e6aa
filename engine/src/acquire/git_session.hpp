#pragma once
/// RAII for libgit2: its global state and the objects it hands out.

#include <git2.h>

#include <memory>
#include <string>

namespace migrate::git {

/// Keeps libgit2 initialised for its lifetime (init/shutdown are reference counted).
class Session {
 public:
  Session() { git_libgit2_init(); }
  ~Session() { git_libgit2_shutdown(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

struct RepositoryDeleter {
  void operator()(git_repository* r) const { git_repository_free(r); }
};
struct ObjectDeleter {
  void operator()(git_object* o) const { git_object_free(o); }
};
using Repository = std::unique_ptr<git_repository, RepositoryDeleter>;
using Object = std::unique_ptr<git_object, ObjectDeleter>;

/// The message of libgit2's last error.
inline std::string lastError() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

/// Credentials for a clone, fetch or push: the user's ssh-agent for ssh URLs, default
/// credentials where the host accepts them. `attempts` counts the calls, so that a refused key
/// fails after three tries instead of looping.
inline int agentCredentials(git_credential** out, const char* username_from_url, unsigned int allowed,
                            int& attempts) {
  if (++attempts > 3) return GIT_EAUTH;
  if ((allowed & GIT_CREDENTIAL_SSH_KEY) != 0)
    return git_credential_ssh_key_from_agent(out, username_from_url ? username_from_url : "git");
  if ((allowed & GIT_CREDENTIAL_DEFAULT) != 0) return git_credential_default_new(out);
  return GIT_PASSTHROUGH;
}

}  // namespace migrate::git
