#pragma once
/// Which names of files and directories an ignore pattern in scope could match: a superset of what .gitignore
/// files, the repository's info/exclude and the user's global excludes can ignore. The inventory asks libgit2
/// only about the paths whose names are in it: libgit2 re-reads the state of every ancestor's ignore file for
/// each path it is asked about, which was a quarter of an unchanged re-run, while most files of a repository
/// match no pattern at all.
///
/// Sound because a path is ignored only when a positive pattern matches it or one of its
/// directories is ignored, the inventory never enters an ignored directory, and a pattern's
/// last component must match the path's name for the pattern to match the path (and, in a
/// pattern with a slash, the component before it the name of the path's directory, unless it is
/// `**`). Negations and the rest of a pattern's directories are left to libgit2,
/// directory-only patterns (`build/`) name directory candidates only; what this reading cannot follow simply
/// (escapes,
/// `**` in the last component, non-ASCII, an unreadable ignore file) makes every name a candidate.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace migrate {

class IgnoreCandidates {
 public:
  /// No pattern yet.
  static std::shared_ptr<const IgnoreCandidates> empty();
  /// These candidates plus the patterns of one ignore file's text.
  std::shared_ptr<const IgnoreCandidates> with(std::string_view ignore_file) const;
  /// These candidates with every name one (an ignore file that cannot be read).
  std::shared_ptr<const IgnoreCandidates> withEverything() const;
  /// False when no pattern can match a file (or directory) named `name` in a directory named
  /// `parent`: then libgit2 would not ignore it, once its directories are not ignored.
  bool mayMatch(std::string_view name, std::string_view parent, bool is_dir = false) const;

 private:
  /// The last components of some patterns.
  struct Names {
    bool everything = false;
    std::unordered_set<std::string> literals;  ///< lowercase
    std::vector<std::string> suffixes;         ///< `*.pyc` as ".pyc", lowercase
    std::vector<std::string> globs;            ///< the rest, for fnmatch(3) without case
    /// `experimental/*`: (directory, name) globs of patterns whose directory is named
    std::vector<std::pair<std::string, std::string>> scoped;
    void add(std::string_view pattern);
    bool match(std::string_view name, std::string_view parent) const;
  };
  void add(std::string_view line);

  Names any_;   ///< patterns for files and directories
  Names dirs_;  ///< directory-only patterns (`build/`)
};

}  // namespace migrate
