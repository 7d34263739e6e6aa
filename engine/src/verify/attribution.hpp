#pragma once
/// Attribution of the verification's `introduced` failures to the edits that cause them: the one
/// check re-run on trial trees — the original tree with part of the adaptation applied — first
/// per changed file, then per edit (a hunk of the file's line diff) of the files that matter,
/// narrowed by delta debugging to the smallest set that still fails; the hunks are then named by
/// the findings whose edits they hold ("ACME-001 at shop/core.py:5").

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"

namespace migrate::verify {

/// One hunk of a line diff with no context: lines [old_start, old_start + old_lines) of the old
/// text become [new_start, new_start + new_lines) of the new one (1-based; a count of 0 is an
/// insertion or a deletion at that place).
struct Hunk {
  int old_start = 0;
  int old_lines = 0;
  int new_start = 0;
  int new_lines = 0;
};

/// The hunks from `before` to `after` (libgit2's diff, no context lines).
std::vector<Hunk> lineHunks(const std::string& before, const std::string& after);

/// `before` with the hunks `chosen` (indices into `hunks`) applied from `after`.
std::string applyHunks(const std::string& before, const std::string& after, const std::vector<Hunk>& hunks,
                       const std::vector<std::size_t>& chosen);

/// The smallest subset of `items` for which `fails` holds (delta debugging, ddmin), given that
/// it holds for all of them; `fails` returns nullopt when the budget is spent (the search then
/// stops with what it has and `complete` is false).
std::vector<std::size_t> minimalFailingSet(
    std::size_t items, const std::function<std::optional<bool>(const std::vector<std::size_t>&)>& fails,
    bool& complete);

/// A finding with an automatic fix: the place of the edit that attribution can name.
struct EditedFinding {
  std::string rule_id;
  std::string file;
  int line = 0;
};

/// A file of a trial tree that differs from the original: the adapted tree's (no content), or
/// the original with some of the adaptation's hunks applied.
struct TrialFile {
  std::string path;
  std::optional<std::string> content;
};

/// What attribution needs: the two trees (locally), the findings with their edits, a way to run
/// one check on a trial tree, and its limits.
struct AttributionInputs {
  std::filesystem::path original;  ///< the original tree
  std::filesystem::path adapted;   ///< the adapted tree
  std::vector<EditedFinding> findings;
  /// Runs check `check` of `stage` on a trial tree: the original tree with the given files
  /// replaced — by the adapted tree's file (no content) or by the content given; returns the
  /// check's record (its status: passed, failed, …), or nullopt when it could not run.
  std::function<std::optional<CheckResult>(const std::string& stage, const std::string& check,
                                           const std::vector<TrialFile>& files)>
      run_check;
  int max_reruns = 12;               ///< per introduced check
  std::chrono::seconds budget{600};  ///< for all of them
};

/// Fills `broken_by` and `attribution` of each `introduced` check of `checks`.
void attributeIntroduced(std::vector<CheckResult>& checks, const AttributionInputs& inputs);

}  // namespace migrate::verify
