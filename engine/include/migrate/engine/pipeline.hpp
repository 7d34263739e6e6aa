#pragma once
/// A pipeline file (pipelines/*.yaml) as typed, validated structs. See docs/pipeline.md.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"
#include "migrate/sdk/plan.hpp"

namespace migrate {

/// The stages of a run, in order.
inline const std::vector<std::string> kAllStages{"analyze", "plan", "emit", "verify", "report"};

struct SourceSpec {
  std::string path;  ///< local directory; relative paths are relative to the pipeline file
  std::string url;   ///< git URL to clone (exclusive with path)
  std::string ref;   ///< branch, tag or commit for `url` (default: the remote's HEAD)
  /// A local mirror of `url` (a bare repository) to clone from instead of the network; the
  /// outputs still name `url`.
  std::string mirror;
};

/// An option value as written (scalar text or list items) and where it was written.
struct OptionInput {
  bool is_list = false;
  std::string scalar;
  std::vector<std::string> items;
  std::string location;
};

struct PluginSelection {
  std::string name;
  bool enabled = true;
  std::map<std::string, OptionInput> options;
  std::string location;
};

/// Person-days of a bottleneck: `first` for its first place, `each` for every further one.
struct EffortRate {
  double first = 0.0;
  double each = 0.0;
};

/// The plan stage's settings (`plan:`), over the defaults of engine/data/plan_defaults.yaml.
struct PlanSpec {
  std::string goal;  ///< the goal the summary leads with; one of `goals`
  sdk::EffortSettings effort;
  std::map<std::string, EffortRate> difficulty;  ///< "low", "medium", "high"
  std::map<std::string, EffortRate> rules;       ///< per rule id
  std::vector<sdk::PhaseSpec> phases;
  std::vector<sdk::GoalSpec> goals;
};

/// The emit stage's settings (`emit:`).
struct EmitSpec {
  /// Directory whose *.mustache files replace the built-in templates of the same name; relative
  /// paths are relative to the pipeline file. Empty: the built-in templates only.
  std::string templates;
  /// "copy": the adapted repository is a full copy (adapted/). "siblings": adapted Python
  /// modules are written next to the originals as <name>_npu.py, with the project's imports
  /// between adapted modules pointing to the _npu versions.
  std::string layout = "copy";
  /// An earlier output directory whose kit this emit starts from (a fleet's previous night):
  /// files it already holds are hard-linked, not written. Empty: the output directory itself.
  std::string base;
};

/// The report stage's settings (`report:`).
struct ReportSpec {
  /// Where CodeReview_Results_<date>.md is written besides the output directory; relative paths
  /// are relative to the working directory of the run. Empty: the output directory only.
  std::string directory = ".";
  /// Rows a long list of the report shows (places of a bottleneck excepted, which show 5);
  /// the rest is counted and left to findings.json / emit.json.
  int max_items = 200;
};

/// A host verification runs on (`targets.<name>`; `local` always exists).
struct TargetSpec {
  std::string name;
  std::string kind = "local";      ///< "local" | "ssh"
  std::string host;                ///< ssh
  int port = 22;                   ///< ssh
  std::string user;                ///< ssh; empty = the ssh client's default
  std::string identity_file;       ///< ssh; `~/` expanded; empty = the client's default keys
  std::string known_hosts_file;    ///< ssh; empty = the client's default; host keys are accepted on first use
  std::string python = "python3";  ///< interpreter on the target
  /// Where the target's working copy goes (its subdirectory migrate-verify-<project> is
  /// replaced by each run). Empty: <output>/verify/work for local, /tmp/migrate-verify for ssh.
  std::string workdir;
  std::string location;  ///< where it was written, for messages
};

/// One precision comparison: `command` run in the original and in the adapted tree.
struct PrecisionCheckSpec {
  std::string name;
  std::string command;               ///< shell text; {python} and {out} are substituted
  std::vector<std::string> outputs;  ///< files under {out} to compare
  double rtol = 1e-5;
  double atol = 1e-8;
};

/// The verify stage's settings (`verify:`).
struct VerifySpec {
  std::string target = "local";               ///< a key of `targets`
  int timeout_seconds = 3600;                 ///< the whole verification
  int stage_timeout_seconds = 1200;           ///< each of its stages, on each tree
  std::map<std::string, int> stage_timeouts;  ///< per stage, over stage_timeout_seconds
  /// The repository's test command ({python} substituted), "auto" (pytest when the repository
  /// configures it or has a tests/ or test/ directory and the target has pytest, else unittest
  /// on such a directory) or "none".
  std::string tests = "auto";
  int tests_timeout_seconds = 0;            ///< the whole suite, per tree; 0 = stage_timeout
  int per_test_timeout_seconds = 300;       ///< each pytest test; 0 = none
  std::vector<std::string> tests_select;    ///< pytest node ids (or prefixes) to run; empty = all
  std::vector<std::string> tests_deselect;  ///< pytest node ids (or prefixes) to leave out
  int attribution_max_reruns = 12;          ///< per introduced check; 0 = no attribution
  int attribution_timeout_seconds = 600;    ///< for the attribution of all introduced checks
  std::vector<PrecisionCheckSpec> precision;
  bool benchmark = false;
  /// Keep the result of a check whose inputs did not change since the previous verification
  /// (verify/reuse.hpp); false (`--rerun-verify`) runs every check.
  bool reuse = true;
};

/// The per-file analysis cache (docs/pipeline.md#cache).
struct CacheSpec {
  bool enabled = true;
  /// Where analysis.db lives; empty = $XDG_CACHE_HOME/migrate-pipeline (~/.cache/migrate-pipeline).
  /// Relative paths are relative to the working directory of the run.
  std::string dir;
  std::uint64_t max_size_mb = 1024;  ///< least recently used entries go beyond this
};

struct PipelineSpec {
  std::filesystem::path file;
  std::string name;
  SourceSpec source;
  std::string output = "out";  ///< relative paths are relative to the working directory
  int jobs = 0;                ///< 0 = number of cores
  std::vector<std::string> stages = kAllStages;
  std::vector<std::string> include;  ///< globs; empty = everything
  std::vector<std::string> exclude;
  std::uint64_t max_file_bytes = 2 * 1024 * 1024;
  std::uint64_t parse_timeout_ms = 30'000;  ///< a Python file whose parse takes longer is skipped
  std::string plugin_dir;                   ///< empty = defaultPluginDir()
  std::string work_dir;                     ///< where git sources are cloned; empty = <output>/_work
  std::vector<PluginSelection> plugins;
  /// Rule pack directories (docs/rule-packs.md), absolute after loading (relative paths are
  /// relative to the pipeline file).
  std::vector<std::string> rule_packs;
  PlanSpec plan;
  EmitSpec emit;
  VerifySpec verify;
  ReportSpec report;
  CacheSpec cache;
  std::map<std::string, TargetSpec> targets;  ///< always has "local"
};

/// One `--set dotted.key=value` (value parsed as YAML: `jobs=4`, `stages=[analyze]`).
struct Override {
  std::string key;
  std::string value;
};

/// Reads, applies `overrides` and validates a pipeline. Errors name file:line:column (or the
/// --set that caused them), what was expected, and a hint.
Result<PipelineSpec> loadPipeline(const std::filesystem::path& file, const std::vector<Override>& overrides);

/// Parses "key=value".
Result<Override> parseOverride(const std::string& text);

/// The effective pipeline as YAML (what `migrate-pipeline config dump` prints).
std::string dumpPipeline(const PipelineSpec& spec);

}  // namespace migrate
