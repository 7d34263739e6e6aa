// The file inventory: which files of the source are analysed, and why the others are not.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "acquire/git_session.hpp"
#include "acquire/ignore_candidates.hpp"
#include "migrate/engine/workspace.hpp"
#include "migrate/sdk/glob.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kBinaryProbeBytes = 8000;

/// The paths a repository's index tracks below the walk's root (relative to it), and their
/// directories: git never ignores a tracked file, whatever a .gitignore says (`*.txt` beside a
/// committed requirements.txt).
struct TrackedPaths {
  std::unordered_set<std::string> files;
  std::unordered_set<std::string> directories;
};

/// Answers "is this path ignored?" with libgit2. A directory that is not inside a repository
/// gets a throw-away repository (in a temporary directory) whose work tree is set to it without
/// writing anything there, so its .gitignore files still apply.
class IgnoreRules {
 public:
  /// `tracked` from an IgnoreRules of the same root (threads share one); none: read the index.
  explicit IgnoreRules(const fs::path& root, std::shared_ptr<const TrackedPaths> tracked = {})
      : tracked_(std::move(tracked)) {
    git_repository* repo = nullptr;
    if (git_repository_open_ext(&repo, root.c_str(), 0, nullptr) == 0) {
      repo_.reset(repo);
      const char* wd = git_repository_workdir(repo);
      if (!wd) {  // bare repository: nothing to ignore against
        repo_.reset();
        return;
      }
      std::error_code ec;
      const fs::path rel = fs::relative(root, fs::canonical(wd, ec), ec);
      if (!ec && rel != ".") prefix_ = rel.generic_string() + "/";
      if (!tracked_) tracked_ = readTracked(repo, prefix_);
      return;
    }
    char tmpl[] = "/tmp/migrate-ignore-XXXXXX";
    if (!mkdtemp(tmpl)) return;
    temp_ = tmpl;
    if (git_repository_init(&repo, temp_.c_str(), 0) != 0) return;
    repo_.reset(repo);
    if (git_repository_set_workdir(repo, root.c_str(), 0) != 0) repo_.reset();
  }
  ~IgnoreRules() {
    repo_.reset();
    if (!temp_.empty()) {
      std::error_code ec;
      fs::remove_all(temp_, ec);
    }
  }
  IgnoreRules(const IgnoreRules&) = delete;
  IgnoreRules& operator=(const IgnoreRules&) = delete;

  /// Whether the ignore patterns match (tracked or not: see tracked()).
  bool ignored(const std::string& rel, bool is_dir) const {
    if (!repo_) return false;
    return ignoredInWorkdir(prefix_ + rel + (is_dir ? "/" : ""));
  }

  /// Whether the index tracks the file, or a file below the directory.
  bool tracked(const std::string& rel, bool is_dir) const {
    return tracked_ && (is_dir ? tracked_->directories : tracked_->files).count(rel) != 0;
  }

  /// The tracked paths, for the walk's other threads.
  std::shared_ptr<const TrackedPaths> tracked() const { return tracked_; }

  /// The candidates of every ignore source that applies above the walk's root: the global
  /// excludes (core.excludesFile, and both places of the XDG default), info/exclude (of the
  /// repository and of its common directory), and the .gitignore files from the work tree down
  /// to the root's parent. Reading more files than libgit2 only adds candidates; every name is
  /// one when a source's place is unclear (a relative core.excludesFile) or when the root lies in
  /// an ignored directory (libgit2 then ignores everything below).
  std::shared_ptr<const IgnoreCandidates> candidatesAboveRoot() const {
    auto candidates = IgnoreCandidates::empty()->with(".git\n");
    if (!repo_) return candidates;
    std::vector<fs::path> sources;
    git_config* config = nullptr;
    if (git_repository_config_snapshot(&config, repo_.get()) == 0) {
      git_buf path = GIT_BUF_INIT;
      if (git_config_get_path(&path, config, "core.excludesfile") == 0) sources.emplace_back(path.ptr);
      git_buf_dispose(&path);
      git_config_free(config);
      if (!sources.empty() && !sources.back().is_absolute()) return candidates->withEverything();
    }
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
      sources.push_back(fs::path(xdg) / "git" / "ignore");
    if (const char* home = std::getenv("HOME"); home && *home)
      sources.push_back(fs::path(home) / ".config" / "git" / "ignore");
    sources.push_back(fs::path(git_repository_path(repo_.get())) / "info" / "exclude");
    sources.push_back(fs::path(git_repository_commondir(repo_.get())) / "info" / "exclude");
    if (!prefix_.empty()) {
      const fs::path workdir = git_repository_workdir(repo_.get());
      fs::path dir = workdir;
      sources.push_back(dir / ".gitignore");
      const fs::path rel(prefix_);
      for (auto part = rel.begin(); part != rel.end(); ++part) {
        if (part->empty()) continue;
        if (std::next(part) == rel.end() || std::next(part)->empty()) break;  // the root's own: the walk's
        dir /= *part;
        sources.push_back(dir / ".gitignore");
      }
      if (ignoredInWorkdir(prefix_)) return candidates->withEverything();
    }
    for (const fs::path& source : sources) candidates = withIgnoreFile(std::move(candidates), source);
    return candidates;
  }

  /// `candidates` plus the patterns of the ignore file at `path` (the same when there is no such
  /// file; every name when it cannot be read).
  static std::shared_ptr<const IgnoreCandidates> withIgnoreFile(
      std::shared_ptr<const IgnoreCandidates> candidates, const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? candidates : candidates->withEverything();
    std::string text;
    char buf[16384];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        return candidates->withEverything();
      }
      if (n == 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return candidates->with(text);
  }

 private:
  static std::shared_ptr<const TrackedPaths> readTracked(git_repository* repo, const std::string& prefix) {
    git_index* raw = nullptr;
    if (git_repository_index(&raw, repo) != 0) return {};
    const std::unique_ptr<git_index, decltype(&git_index_free)> index(raw, git_index_free);
    auto tracked = std::make_shared<TrackedPaths>();
    for (std::size_t i = 0, n = git_index_entrycount(raw); i < n; ++i) {
      std::string_view path = git_index_get_byindex(raw, i)->path;
      if (path.substr(0, prefix.size()) != prefix) continue;
      path.remove_prefix(prefix.size());
      for (std::size_t slash = path.find('/'); slash != std::string_view::npos;
           slash = path.find('/', slash + 1))
        tracked->directories.emplace(path.substr(0, slash));
      tracked->files.emplace(path);
    }
    return tracked;
  }

  bool ignoredInWorkdir(const std::string& path) const {
    int result = 0;
    if (git_ignore_path_is_ignored(&result, repo_.get(), path.c_str()) != 0) return false;
    return result == 1;
  }

  git::Session session_;
  git::Repository repo_;
  std::string prefix_;
  fs::path temp_;
  std::shared_ptr<const TrackedPaths> tracked_;
};

/// A directory opened for openat/fstatat: a file is then found by its name, not its whole path
/// again (-1, and whole paths, when it cannot be opened).
struct DirectoryHandle {
  explicit DirectoryHandle(const fs::path& dir)
      : fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~DirectoryHandle() {
    if (fd >= 0) ::close(fd);
  }
  DirectoryHandle(const DirectoryHandle&) = delete;
  DirectoryHandle& operator=(const DirectoryHandle&) = delete;
  int fd;
};

/// A file's size and its first bytes (for the inventory's checks: binary, generated), from one
/// open: `size` empty when it cannot be found out; an empty head when the file cannot be opened
/// (then neither check applies, and reading it later says why).
struct FileHead {
  std::optional<std::uintmax_t> size;
  std::string_view head;
  int error = 0;
};

FileHead probe(const DirectoryHandle& dir, const fs::path& p, char (&buf)[kBinaryProbeBytes]) {
  const int base = dir.fd >= 0 ? dir.fd : AT_FDCWD;
  const fs::path filename = p.filename();
  const char* name = dir.fd >= 0 ? filename.c_str() : p.c_str();
  FileHead out;
  struct stat st {};
  const int fd = ::openat(base, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (::fstatat(base, name, &st, 0) == 0)
      out.size = static_cast<std::uintmax_t>(st.st_size);
    else
      out.error = errno;
    return out;
  }
  if (::fstat(fd, &st) == 0)
    out.size = static_cast<std::uintmax_t>(st.st_size);
  else
    out.error = errno;
  std::size_t n = 0;
  while (out.size && n < sizeof buf) {
    const ssize_t got = ::read(fd, buf + n, sizeof buf - n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += static_cast<std::size_t>(got);
  }
  ::close(fd);
  out.head = {buf, n};
  return out;
}

bool looksBinary(std::string_view head) {
  return head.find('\0') != std::string_view::npos;
}

bool within(const fs::path& root, const fs::path& p) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return true;
}

bool selected(const std::string& rel, const InventoryOptions& o) {
  if (!o.include.empty() &&
      std::none_of(o.include.begin(), o.include.end(), [&](const auto& g) { return globMatch(g, rel); }))
    return false;
  return std::none_of(o.exclude.begin(), o.exclude.end(), [&](const auto& g) { return globMatch(g, rel); });
}

bool dirExcluded(const std::string& rel, const InventoryOptions& o) {
  const std::string probe = rel + "/";
  for (const auto& g : o.exclude) {
    // "a/b/**" excludes the directory a/b entirely.
    if (g.size() > 3 && g.compare(g.size() - 3, 3, "/**") == 0 && globMatch(g.substr(0, g.size() - 3), rel))
      return true;
    if (!g.empty() && g.back() == '/' && globMatch(g, probe)) return true;
  }
  return false;
}

}  // namespace

bool isGeneratedFile(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  return first.find("generated by migrate-pipeline") != std::string_view::npos;
}

sdk::Language languageOf(const std::string& rel) {
  const fs::path p(rel);
  const std::string ext = p.extension().string();
  const std::string name = p.filename().string();
  if (ext == ".py" || ext == ".pyi") return sdk::Language::Python;
  if (ext == ".cu" || ext == ".cuh") return sdk::Language::Cuda;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".hpp" || ext == ".hh" || ext == ".hxx" ||
      ext == ".h")
    return sdk::Language::Cpp;
  if (ext == ".c") return sdk::Language::C;
  if (name == "CMakeLists.txt" || ext == ".cmake") return sdk::Language::CMake;
  // Slurm job scripts (`#SBATCH` headers above shell) are shell scripts too.
  if (ext == ".sh" || ext == ".bash" || ext == ".zsh" || ext == ".slurm" || ext == ".sbatch")
    return sdk::Language::Shell;
  if (ext == ".txt" || ext == ".toml" || ext == ".cfg" || ext == ".ini" || ext == ".yaml" || ext == ".yml" ||
      ext == ".json" || ext == ".md" || ext == ".rst" || name == "Dockerfile" ||
      name.rfind("Dockerfile.", 0) == 0)
    return sdk::Language::Text;
  return sdk::Language::Other;
}

sdk::Language languageOf(const std::string& rel, std::string_view head) {
  const sdk::Language by_name = languageOf(rel);
  if (by_name != sdk::Language::Other || head.rfind("#!", 0) != 0) return by_name;
  // `#!/bin/bash`, `#!/usr/bin/env -S bash -e`: the interpreter is the last path part of the
  // first word, or of the word after `env` (and its options).
  std::string_view line = head.substr(
      2, head.find('\n') == std::string_view::npos ? std::string_view::npos : head.find('\n') - 2);
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (b < i) words.push_back(line.substr(b, i - b));
  }
  auto base = [](std::string_view w) {
    return w.substr(w.rfind('/') == std::string_view::npos ? 0 : w.rfind('/') + 1);
  };
  std::size_t k = 0;
  if (k < words.size() && base(words[k]) == "env")
    for (++k; k < words.size() && words[k].front() == '-';) ++k;
  if (k >= words.size()) return by_name;
  const std::string_view interpreter = base(words[k]);
  for (std::string_view shell : {"sh", "bash", "zsh", "dash", "ksh"})
    if (interpreter == shell) return sdk::Language::Shell;
  return by_name;
}

bool globMatch(std::string_view pattern, std::string_view path) {
  return sdk::globMatch(pattern, path);
}

std::optional<std::string> Workspace::read(const std::string& path) const {
  const auto it = std::lower_bound(files_.begin(), files_.end(), path,
                                   [](const sdk::FileEntry& f, const std::string& p) { return f.path < p; });
  if (it == files_.end() || it->path != path) return std::nullopt;  // only inventoried files
  // One read of the whole file into a string of its size (every Python file of every run comes
  // through here; a stream iterator costs more than the hashing of a warm run).
  const int fd = ::open((root_ / path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // The size the inventory found, and one byte more, so the read that meets the end needs no
  // bigger string. A file that changed since is read to its end all the same.
  std::string data(static_cast<std::size_t>(it->size) + 1, '\0');
  bool ok = true;
  std::size_t done = 0;
  while (ok) {
    if (done == data.size()) data.resize(2 * data.size() + 4096);  // grew since: read to the end
    const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (!ok) return std::nullopt;
  data.resize(done);
  return data;
}

namespace {

/// A directory to list, with the ignore candidates of the ignore files above it.
struct PendingDirectory {
  fs::path path;
  std::shared_ptr<const IgnoreCandidates> candidates;
  bool ignored = false;  ///< an ignored directory, listed for the tracked files below it only
};

/// The directories still to list, shared by the inventory's threads: a thread takes one, lists
/// it, and puts back its subdirectories; the walk ends when none is left and no thread is listing.
class DirectoryQueue {
 public:
  explicit DirectoryQueue(PendingDirectory root) { pending_.push_back(std::move(root)); }
  std::optional<PendingDirectory> take() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !pending_.empty() || busy_ == 0; });
    if (pending_.empty()) return std::nullopt;
    PendingDirectory dir = std::move(pending_.back());
    pending_.pop_back();
    ++busy_;
    return dir;
  }
  void push(PendingDirectory dir) {
    {
      std::lock_guard lock(mutex_);
      pending_.push_back(std::move(dir));
    }
    ready_.notify_one();
  }
  void done() {
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<PendingDirectory> pending_;
  int busy_ = 0;
};

/// What one inventory thread found.
struct WalkResult {
  std::vector<sdk::FileEntry> files;
  std::vector<sdk::Diagnostic> diagnostics;
};

/// One thread's share of the walk; `ignore` is the thread's own (a libgit2 repository is not
/// shared between threads).
void walk(const fs::path& root, const InventoryOptions& options, const IgnoreRules& ignore,
          DirectoryQueue& queue, WalkResult& out) {
  std::vector<sdk::FileEntry>& files = out.files;
  auto diag = [&](sdk::Severity sev, const char* code, const std::string& rel, std::string msg) {
    out.diagnostics.push_back({sev, code, rel, 0, std::move(msg)});
  };
  while (const auto next = queue.take()) {
    const fs::path& dir = next->path;
    struct Done {  // the directory is finished however its listing ends
      DirectoryQueue& queue;
      ~Done() { queue.done(); }
    } finished{queue};
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      diag(sdk::Severity::Warning, "unreadable", fs::relative(dir, root).generic_string(),
           "directory cannot be read: " + ec.message());
      continue;
    }
    const DirectoryHandle handle(dir);
    // This directory's .gitignore applies to its files and everything below.
    const auto candidates = IgnoreRules::withIgnoreFile(next->candidates, dir / ".gitignore");
    const std::string parent =
        dir.filename().empty() ? dir.parent_path().filename().native() : dir.filename().native();
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      const fs::path& p = it->path();
      const std::string rel = p.lexically_relative(root).generic_string();
      if (p.filename() == ".git") continue;
      // The type the directory listing gave (d_type): no lstat by path (libstdc++'s
      // symlink_status() always asks), one path walk less per entry. A file system without d_type
      // makes libstdc++ ask with lstat.
      if (it->is_symlink(ec)) {
        const fs::path target = fs::weakly_canonical(p, ec);
        if (ec || !within(root, target))
          diag(sdk::Severity::Warning, "symlink-escapes", rel,
               "symbolic link points outside the repository (" +
                   (ec ? std::string("unresolvable") : target.string()) + "); not followed");
        continue;  // in-repository targets are analysed at their own path
      }
      if (it->is_directory(ec)) {
        if (dirExcluded(rel, options)) continue;
        const bool ignored = next->ignored || (candidates->mayMatch(p.filename().native(), parent, true) &&
                                               ignore.ignored(rel, true));
        if (ignored && !ignore.tracked(rel, true)) continue;
        queue.push({p, candidates, ignored});
        continue;
      }
      if (!it->is_regular_file(ec)) continue;
      if (!selected(rel, options)) continue;
      if ((next->ignored ||
           (candidates->mayMatch(p.filename().native(), parent) && ignore.ignored(rel, false))) &&
          !ignore.tracked(rel, false))
        continue;
      char buf[kBinaryProbeBytes];
      const FileHead file = probe(handle, p, buf);
      if (!file.size) {
        diag(sdk::Severity::Warning, "unreadable", rel,
             "file size cannot be read: " + std::error_code(file.error, std::generic_category()).message());
        continue;
      }
      const std::uintmax_t size = *file.size;
      if (size > options.max_file_bytes) {
        diag(sdk::Severity::Warning, "file-too-large", rel,
             "skipped: " + std::to_string(size) + " bytes exceeds limits.max_file_bytes (" +
                 std::to_string(options.max_file_bytes) + ")");
        continue;
      }
      const std::string_view head = file.head;
      if (looksBinary(head)) {
        diag(sdk::Severity::Info, "binary-file", rel, "skipped: binary file");
        continue;
      }
      const sdk::Language language = languageOf(rel, head);
      if (language == sdk::Language::Python && isGeneratedFile(head.substr(0, 256))) {
        diag(sdk::Severity::Info, "generated-file", rel, "skipped: generated by migrate-pipeline");
        continue;
      }
      files.push_back({rel, size, language});
    }
  }
}

}  // namespace

Workspace buildInventory(const fs::path& root, const InventoryOptions& options,
                         std::vector<sdk::Diagnostic>& diagnostics) {
  // The walk is mostly system calls and .gitignore lookups, a third of an unchanged re-run: it is
  // spread over the analysis's threads like the analysis itself.
  const unsigned threads = std::max(1u, options.threads);
  // libgit2's last shutdown frees the state of the thread that calls it only: this session outlives
  // the threads' own, so that it is this thread's (the others' go when they exit).
  const git::Session session;
  const IgnoreRules first(root);  // the calling thread's; it also reads the ignore files above the root
  DirectoryQueue queue({root, first.candidatesAboveRoot()});
  std::vector<WalkResult> results(threads);
  std::vector<std::exception_ptr> failures(threads);
  auto run = [&](unsigned t) {
    try {
      if (t == 0) return walk(root, options, first, queue, results[t]);
      const IgnoreRules own(root, first.tracked());
      walk(root, options, own, queue, results[t]);
    } catch (...) {  // rethrown below, on the caller's thread, as before the walk had threads
      failures[t] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(run, t);
  run(0);
  for (auto& h : helpers) h.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
  std::vector<sdk::FileEntry> files;
  std::vector<sdk::Diagnostic> found;
  for (WalkResult& r : results) {
    std::move(r.files.begin(), r.files.end(), std::back_inserter(files));
    std::move(r.diagnostics.begin(), r.diagnostics.end(), std::back_inserter(found));
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  // In path order, whichever thread met them (one diagnostic per path and code).
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.file, a.code) < std::tie(b.file, b.code);
  });
  std::move(found.begin(), found.end(), std::back_inserter(diagnostics));
  return Workspace(root, std::move(files));
}

std::vector<TreeEntry> listRepositoryTree(const fs::path& root, std::vector<sdk::Diagnostic>& diagnostics) {
  IgnoreRules ignore(root);
  std::vector<TreeEntry> entries;
  std::vector<std::pair<fs::path, bool>> pending{{root, false}};  // a directory, and whether it is ignored
  while (!pending.empty()) {
    const auto [dir, dir_ignored] = pending.back();
    pending.pop_back();
    // Ignored by a pattern and not tracked (git keeps tracked files whatever .gitignore says).
    auto skipped = [&](const std::string& rel, bool is_dir, bool& matched) {
      matched = dir_ignored || ignore.ignored(rel, is_dir);
      return matched && !ignore.tracked(rel, is_dir);
    };
    bool matched = false;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const fs::path& p = it->path();
      const std::string name = p.filename().string();
      const std::string rel = p.lexically_relative(root).generic_string();
      if (name == ".git" || name == "__pycache__" || p.extension() == ".pyc") continue;
      const fs::file_status status = it->symlink_status(ec);
      if (fs::is_symlink(status)) {
        const fs::path target = fs::weakly_canonical(p, ec);
        if (ec || !within(root, target)) {
          diagnostics.push_back({sdk::Severity::Warning, "symlink-escapes", rel, 0,
                                 "symbolic link points outside the repository; not copied"});
          continue;
        }
        if (!skipped(rel, false, matched)) entries.push_back({rel, fs::read_symlink(p, ec).string()});
        continue;
      }
      if (fs::is_directory(status)) {
        if (!skipped(rel, true, matched)) pending.emplace_back(p, matched);
        continue;
      }
      if (fs::is_regular_file(status) && !skipped(rel, false, matched)) entries.push_back({rel, {}});
    }
    if (ec)
      diagnostics.push_back({sdk::Severity::Warning, "unreadable", fs::relative(dir, root).generic_string(),
                             0, "directory cannot be read: " + ec.message()});
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return entries;
}

}  // namespace migrate
