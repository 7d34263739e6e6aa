#pragma once
/// npu_migration.patch: a unified git diff, made with libgit2, from the original repository
/// files to their adapted versions (and the files the adaptation adds), that `git apply` takes
/// on the original tree.

#include <optional>
#include <string>
#include <string_view>

#include "acquire/git_session.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::emit {

class PatchWriter {
 public:
  /// Appends the diff of `path` from `before` (nullopt: a new file) to `after`, for a file with
  /// the executable bit when `executable`. Identical texts add nothing.
  Status add(const std::string& path, const std::optional<std::string>& before, const std::string& after,
             bool executable = false);
  /// Appends a part an earlier writer made (a whole file's diff).
  void append(std::string_view part) {
    text_ += part;
    ++files_;
  }
  const std::string& text() const { return text_; }
  std::size_t files() const { return files_; }

 private:
  git::Session session_;  // libgit2 initialised while the writer lives
  std::string text_;
  std::size_t files_ = 0;
};

}  // namespace migrate::emit
