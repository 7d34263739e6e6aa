// The file inventory: which files of the source are analysed, and why the others are not.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "acquire/git_session.hpp"
#include "migrate/engine/workspace.hpp"
#include "migrate/sdk/glob.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kBinaryProbeBytes = 8000;

/// Answers "is this path ignored?" with libgit2. A directory that is not inside a repository
/// gets a throw-away repository (in a temporary directory) whose work tree is set to it without
/// writing anything there, so its .gitignore files still apply.
class IgnoreRules {
 public:
  explicit IgnoreRules(const fs::path& root) {
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

  bool ignored(const std::string& rel, bool is_dir) const {
    if (!repo_) return false;
    int result = 0;
    const std::string p = prefix_ + rel + (is_dir ? "/" : "");
    if (git_ignore_path_is_ignored(&result, repo_.get(), p.c_str()) != 0) return false;
    return result == 1;
  }

 private:
  git::Session session_;
  git::Repository repo_;
  std::string prefix_;
  fs::path temp_;
};

bool looksBinary(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char buf[kBinaryProbeBytes];
  in.read(buf, sizeof buf);
  const auto n = static_cast<std::size_t>(in.gcount());
  return std::find(buf, buf + n, '\0') != buf + n;
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
  if (ext == ".sh" || ext == ".bash") return sdk::Language::Shell;
  if (ext == ".txt" || ext == ".toml" || ext == ".cfg" || ext == ".ini" || ext == ".yaml" || ext == ".yml" ||
      ext == ".json" || ext == ".md" || ext == ".rst" || name == "Dockerfile" ||
      name.rfind("Dockerfile.", 0) == 0)
    return sdk::Language::Text;
  return sdk::Language::Other;
}

bool globMatch(std::string_view pattern, std::string_view path) {
  return sdk::globMatch(pattern, path);
}

std::optional<std::string> Workspace::read(const std::string& path) const {
  const auto it = std::lower_bound(files_.begin(), files_.end(), path,
                                   [](const sdk::FileEntry& f, const std::string& p) { return f.path < p; });
  if (it == files_.end() || it->path != path) return std::nullopt;  // only inventoried files
  std::ifstream in(root_ / path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return data;
}

Workspace buildInventory(const fs::path& root, const InventoryOptions& options,
                         std::vector<sdk::Diagnostic>& diagnostics) {
  IgnoreRules ignore(root);
  std::vector<sdk::FileEntry> files;
  auto diag = [&](sdk::Severity sev, const char* code, const std::string& rel, std::string msg) {
    diagnostics.push_back({sev, code, rel, 0, std::move(msg)});
  };
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    const fs::path dir = pending.back();
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      diag(sdk::Severity::Warning, "unreadable", fs::relative(dir, root).generic_string(),
           "directory cannot be read: " + ec.message());
      continue;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      const fs::path& p = it->path();
      const std::string rel = p.lexically_relative(root).generic_string();
      if (p.filename() == ".git") continue;
      const fs::file_status link_status = it->symlink_status(ec);
      if (fs::is_symlink(link_status)) {
        const fs::path target = fs::weakly_canonical(p, ec);
        if (ec || !within(root, target))
          diag(sdk::Severity::Warning, "symlink-escapes", rel,
               "symbolic link points outside the repository (" +
                   (ec ? std::string("unresolvable") : target.string()) + "); not followed");
        continue;  // in-repository targets are analysed at their own path
      }
      if (fs::is_directory(link_status)) {
        if (ignore.ignored(rel, true) || dirExcluded(rel, options)) continue;
        pending.push_back(p);
        continue;
      }
      if (!fs::is_regular_file(link_status)) continue;
      if (ignore.ignored(rel, false) || !selected(rel, options)) continue;
      const std::uintmax_t size = it->file_size(ec);
      if (ec) {
        diag(sdk::Severity::Warning, "unreadable", rel, "file size cannot be read: " + ec.message());
        continue;
      }
      if (size > options.max_file_bytes) {
        diag(sdk::Severity::Warning, "file-too-large", rel,
             "skipped: " + std::to_string(size) + " bytes exceeds limits.max_file_bytes (" +
                 std::to_string(options.max_file_bytes) + ")");
        continue;
      }
      if (looksBinary(p)) {
        diag(sdk::Severity::Info, "binary-file", rel, "skipped: binary file");
        continue;
      }
      files.push_back({rel, size, languageOf(rel)});
    }
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return Workspace(root, std::move(files));
}

}  // namespace migrate
