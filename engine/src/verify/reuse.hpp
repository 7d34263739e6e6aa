#pragma once
/// Verification that re-uses what did not change. Every record of a check gets a key, the
/// digest of what its result depends on:
///  - every check: the kit (verify_npu.sh, verify_precision.py, verify_pytest_plugin.py,
///    verify_config.json but its `tests`, `precision` and `benchmark` sections, adapted/npu_compat.py
///    and npu_ops.py), the target, and its interpreter (the environment stage's records and the
///    installed distributions): the `common` part;
///  - the checks that read a section of verify_config.json of their own: that section (the
///    repository's tests: `tests`; precision: `precision`; benchmark: `benchmark`);
///  - the import of module M, and the tests of test file M: M's file and the repository modules
///    it imports, transitively (the plan's import graph), in the tree checked; for a test file
///    also the conftest.py files above it and the tree's pytest configuration;
///  - precision, benchmark, a repository test command without per-test records, and a module
///    the graph does not know: the whole tree(s).
/// A check whose key equals the key its record had in the previous verification keeps that
/// record (marked `reused`). Records of errors are never kept (the verification could not run
/// the check) — but a test's pytest "error" (its setup or collection failed) is its result and
/// is kept — nor those of the environment stage, which runs every time.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::verify {

/// A repository module and the modules it imports directly (paths relative to the tree).
struct ModuleImports {
  std::string path;
  std::string dotted_name;
  std::vector<std::string> imports;
};

/// verify_config.json digested in parts: what every check reads, and the sections only some
/// checks read, so that a changed test command or precision check re-runs only those checks.
struct ConfigDigests {
  std::string general;  ///< every key but the three below
  std::string tests;
  std::string precision;
  std::string benchmark;
};
/// The parts of the configuration file at `path`; a file that is missing or not a JSON object is
/// digested whole into `general` (every check runs again when it changes).
ConfigDigests configDigests(const std::filesystem::path& path);

/// Keys of records, from the trees as they are now ("adapted" and "original" directories).
class CheckKeys {
 public:
  CheckKeys(std::string common, ConfigDigests config, const std::vector<ModuleImports>& graph,
            std::filesystem::path adapted, std::filesystem::path original);
  /// The record's key; "" when it is never kept.
  std::string keyOf(const CheckResult& record);
  /// The files of `tree` ("adapted" / "original") pytest collects by default (test_*.py,
  /// *_test.py), each with the key of its inputs.
  std::map<std::string, std::string> testFileKeys(const std::string& tree);

 private:
  struct Tree {
    std::filesystem::path dir;
    std::optional<std::vector<std::string>> files;  ///< listed on first use
    std::map<std::string, std::string> digests;     ///< file digests, on first use
    std::map<std::string, std::string> closures;    ///< a module's import closure, digested
    std::optional<std::string> whole;
  };
  Tree& tree(bool reference);
  const std::vector<std::string>& files(Tree& t);
  std::string fileDigest(Tree& t, const std::string& path);
  std::string closureDigest(Tree& t, const std::string& path);
  std::string wholeDigest(Tree& t);
  std::string testFileDigest(Tree& t, const std::string& path);

  std::string common_;
  ConfigDigests config_;
  std::map<std::string, std::size_t> index_;    ///< path -> graph node
  std::map<std::string, std::string> path_of_;  ///< dotted name -> path
  std::vector<std::vector<std::size_t>> imports_;
  std::vector<std::string> paths_;
  Tree adapted_, original_;
};

/// The common part of every key (see above), digested: the kit's files but verify_config.json,
/// the general part of that (`config_general`), the target's description, its environment
/// stage's records and its installed distributions.
std::string commonKey(const std::vector<std::filesystem::path>& kit_files, const std::string& config_general,
                      const std::string& target, const std::vector<CheckResult>& environment,
                      const std::string& distributions);

/// A record of the previous verification with the key it had.
struct KeyedRecord {
  std::string key;
  CheckResult record;
};

inline constexpr const char* kVerifyStateFile = "verify/verify_state.json";

/// The previous verification's keyed records in output directory `dir` (verify/verify_state.json),
/// or nullopt with `why` (none there, another format, unreadable).
struct VerifyState {
  std::vector<KeyedRecord> records;  ///< only records with a key
  /// Per tree ("adapted", "original"): its test files and their keys (CheckKeys::testFileKeys)
  /// when the state was written: a test file that is new or changed since makes the suite run.
  std::map<std::string, std::map<std::string, std::string>> test_files;
};

std::optional<VerifyState> readVerifyState(const std::filesystem::path& dir, std::string& why);
/// Writes the state; records without a key are left out.
Status writeVerifyState(const std::filesystem::path& dir, const VerifyState& state);

/// What one stage runs on one tree, and the records it keeps.
struct StageReuse {
  bool run = true;                                 ///< false: every record is kept
  std::optional<std::vector<std::string>> checks;  ///< only these run (verify_npu.sh --checks)
  std::vector<std::string> reused_test_files;      ///< tests not collected (--reused-tests)
  std::vector<CheckResult> kept;                   ///< marked reused
  /// The test suite's previous record, when the suite runs only for some test files: it stands
  /// if the run collects none of them (they held no tests).
  std::optional<CheckResult> suite_before;
};

/// The reuse of `stage` on `tree` ("adapted" / "original"): `modules` are the checks of the
/// imports stage (the kit's and the repository's modules the adapted tree imports).
StageReuse planStage(const std::string& stage, const std::string& tree, const VerifyState& previous,
                     CheckKeys& keys, const std::vector<std::string>& modules);

/// This run's records, with the kept ones added where this run has no record of the same check
/// (stage, check, tree), in the order a run of every check lists them: by stage; imports in
/// the order of `modules` (the adapted tree's: the kit's, then the repository's); function: the
/// tests by file, the suite, npu-compat-info, then device-round-trip and the npu-ops checks. A
/// test suite that ran for a few test files and collected none of them ("pytest collected no
/// tests") gives way to its record in `suites_before`; one that ran beside kept tests says how
/// many were kept.
std::vector<CheckResult> mergeKept(std::vector<CheckResult> fresh, const std::vector<CheckResult>& kept,
                                   const std::vector<CheckResult>& suites_before,
                                   const std::vector<std::string>& modules);

}  // namespace migrate::verify
