#include "verify/verifier.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "migrate/engine/workspace.hpp"
#include "outputs/verify_json.hpp"
#include "outputs/verify_junit.hpp"
#include "verify/check_results.hpp"
#include "verify/outcomes.hpp"
#include "verify/target_host.hpp"
#include "verify/verify_config.hpp"

namespace migrate {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
const std::vector<std::string> kStages{"environment", "imports", "function", "precision", "benchmark"};

/// The stages whose checks also run on the original tree, as the reference (verify_npu.sh --tree).
bool comparedStage(const std::string& stage) {
  return stage == "imports" || stage == "function";
}

/// The project's dependencies as the deps plugin found them (rows and findings of DEP-001..008).
template <typename Each>
void dependencyNames(const std::string& rule, const std::string& package, Each&& each) {
  if (rule.size() == 7 && rule.rfind("DEP-00", 0) == 0 && rule[6] >= '1' && rule[6] <= '8' &&
      !package.empty())
    each(package);
}

/// The target's working directory, built locally: adapted/, original/, kit/, results/. Also
/// lists the original tree's top-level modules (a missing one is no missing package).
Status buildLayout(const VerifySpec& spec, const VerifyInputs& in, const fs::path& layout,
                   std::set<std::string>& repository_modules) {
  std::error_code ec;
  fs::remove_all(layout, ec);
  fs::create_directories(layout / "kit", ec);
  fs::create_directories(layout / "results", ec);
  if (ec) return makeError("cannot create " + layout.string() + ": " + ec.message());
  for (const char* kit : {"verify_npu.sh", "verify_precision.py", "verify_pytest_plugin.py"}) {
    fs::copy_file(in.out / kit, layout / "kit" / kit, ec);
    if (ec)
      return makeError(in.out.string() + " has no " + kit + " (" + ec.message() +
                       "); run the emit stage first (stages: [analyze, plan, emit, verify])");
  }
  if (!fs::is_directory(in.out / "adapted"))
    return makeError(in.out.string() + " has no adapted/; run the emit stage first");
  fs::copy(in.out / "adapted", layout / "adapted",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) return makeError("cannot copy the adapted tree: " + ec.message());
  std::vector<sdk::Diagnostic> ignored;
  std::vector<std::string> paths;
  for (const TreeEntry& e : listRepositoryTree(in.original_root, ignored)) {
    paths.push_back(e.path);
    const fs::path target = layout / "original" / e.path;
    fs::create_directories(target.parent_path(), ec);
    if (e.link_target.empty())
      fs::copy_file(in.original_root / e.path, target, ec);
    else
      fs::create_symlink(e.link_target, target, ec);
    if (ec) return makeError("cannot copy " + e.path + " of the original tree: " + ec.message());
  }
  repository_modules = verify::topLevelModules(paths);
  std::ofstream config(layout / "kit" / "verify_config.json", std::ios::binary | std::ios::trunc);
  config << verify::verifyConfigJson(spec, {in.project, in.modules, in.has_npu_ops, in.out / "adapted"});
  if (!config) return makeError("cannot write the verification config in " + layout.string());
  return Ok{};
}

/// The previous verification (its keyed records, and the attribution of its checks from its
/// verify.json), from `out` or else from `base`; nothing when neither has one.
struct Previous {
  verify::VerifyState state;
  std::map<std::pair<std::string, std::string>, CheckResult> results;
};

Previous previousVerification(const VerifyInputs& in,
                              const std::function<void(const std::string&)>& progress) {
  Previous p;
  std::string why;
  for (const fs::path& dir : {in.out, in.base}) {
    if (dir.empty()) continue;
    auto state = verify::readVerifyState(dir, why);
    if (!state) continue;
    p.state = std::move(state.value());
    if (auto before = outputs::readVerifyJson(dir / "verify.json"))
      for (CheckResult& c : before->checks) p.results.emplace(std::make_pair(c.stage, c.check), std::move(c));
    progress("verify: " + std::to_string(p.state.records.size()) +
             " result(s) of the previous verification in " + dir.string() +
             " are kept where their inputs did not change");
    return p;
  }
  progress("verify: every check runs (" + why + ")");
  return p;
}

/// What the target's interpreter has installed ("name version" lines, sorted), for the keys.
std::string installedDistributions(verify::TargetHost& target, const std::string& python,
                                   std::chrono::seconds timeout) {
  static const std::string kList = R"PY(import sys
try:
    from importlib import metadata
except ImportError:
    sys.exit(0)
print(sys.version)
for line in sorted("%s %s" % (d.metadata["Name"], d.version) for d in metadata.distributions()):
    print(line)
)PY";
  const verify::ProcessResult r =
      target.run(verify::shellQuote(python) + " -c " + verify::shellQuote(kList) + " 2>/dev/null", timeout);
  return r.exit_code == 0 ? r.output : "unknown";
}

/// Shell text writing `content` to the (quoted) file `to` through a here-document whose
/// delimiter the content does not hold.
std::string catInto(const std::string& to, const std::string& content) {
  std::string delimiter = "MIGRATE_EOF";
  while (content.find(delimiter) != std::string::npos) delimiter += "_";
  return "cat > " + to + " <<'" + delimiter + "'\n" + content +
         (content.empty() || content.back() == '\n' ? "" : "\n") + delimiter + "\n";
}

/// Shell text writing `lines` to `file` (relative to the working directory) on the target.
std::string writeList(const std::string& file, const std::vector<std::string>& lines) {
  std::string body;
  for (const std::string& l : lines) body += l + "\n";
  return "mkdir -p reuse && " + catInto(verify::shellQuote(file), body);
}

std::string tail(const std::string& text, std::size_t lines = 40) {
  std::size_t at = text.size();
  for (std::size_t n = 0; at > 0 && n <= lines; --at)
    if (text[at - 1] == '\n') ++n;
  return text.substr(at);
}

}  // namespace

Result<VerifyInputs> verifyInputsFrom(const fs::path& out) {
  std::ifstream in(out / "emit.json", std::ios::binary);
  if (!in)
    return makeError(out.string() +
                     " has no emit.json: it is not the output directory of a run with the emit stage");
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("original_root") || !doc["original_root"].is_string())
    return makeError((out / "emit.json").string() +
                     " is not an emit.json this version reads; run the pipeline again");
  VerifyInputs v;
  v.out = out;
  v.original_root = doc["original_root"].get<std::string>();
  v.project = doc.value("project", "project");
  if (doc.contains("modules") && doc["modules"].is_array())
    for (const auto& m : doc["modules"])
      if (m.is_string()) v.modules.push_back(m.get<std::string>());
  v.has_npu_ops = fs::exists(out / "adapted" / "npu_ops.py");
  std::ifstream findings(out / "findings.json", std::ios::binary);
  const nlohmann::json f = nlohmann::json::parse(findings, nullptr, false);
  for (const char* list : {"findings", "dependencies"})
    if (f.is_object() && f.contains(list) && f[list].is_array())
      for (const auto& d : f[list])
        if (d.is_object() && d.contains("rule_id") && d["rule_id"].is_string() && d.contains("api") &&
            d["api"].is_string())
          dependencyNames(
              d["rule_id"].get<std::string>(), d["api"].get<std::string>(),
              [&](const std::string& p) { v.declared_packages.insert(verify::normalizedPackage(p)); });
  if (f.is_object() && f.contains("plan") && f["plan"].is_object() && f["plan"].contains("import_graph") &&
      f["plan"]["import_graph"].is_array())
    for (const auto& n : f["plan"]["import_graph"]) {
      verify::ModuleImports m{n.value("path", ""), n.value("module", ""), {}};
      for (const auto& i : n.value("imports", nlohmann::json::array()))
        if (i.is_string()) m.imports.push_back(i.get<std::string>());
      if (!m.path.empty()) v.graph.push_back(std::move(m));
    }
  if (f.is_object() && f.contains("findings") && f["findings"].is_array())
    for (const auto& d : f["findings"])
      if (d.is_object() && d.value("edits", nlohmann::json::array()).is_array() &&
          !d.value("edits", nlohmann::json::array()).empty())
        v.edited.push_back({d.value("rule_id", ""), d.value("file", ""), d.value("line", 0)});
  if (!fs::is_directory(v.original_root))
    return makeError("the original tree " + v.original_root.string() +
                     " (from emit.json) is gone; run the pipeline again");
  return v;
}

VerifyInputs verifyInputsFrom(const MigrationModel& model, const fs::path& out) {
  VerifyInputs v;
  v.out = out;
  v.original_root = model.source.root;
  v.project = model.emit.project;
  v.modules = model.emit.modules;
  v.has_npu_ops = fs::exists(out / "adapted" / "npu_ops.py");
  v.tool_version = model.tool_version;
  for (const auto* list : {&model.findings, &model.dependencies})
    for (const sdk::Finding& f : *list)
      dependencyNames(f.rule_id, f.api, [&](const std::string& p) {
        v.declared_packages.insert(verify::normalizedPackage(p));
      });
  for (std::size_t i : model.emit.fixed_findings)
    if (i < model.findings.size()) {
      const sdk::Finding& f = model.findings[i];
      v.edited.push_back({f.rule_id, f.file, static_cast<int>(f.range.line)});
    }
  for (const sdk::ModuleNode& n : model.plan.graph) {
    verify::ModuleImports m{n.path, n.dotted_name, {}};
    for (std::size_t i : n.imports)
      if (i < model.plan.graph.size()) m.imports.push_back(model.plan.graph[i].path);
    v.graph.push_back(std::move(m));
  }
  return v;
}

VerifyResult runVerification(const PipelineSpec& spec, const VerifyInputs& in,
                             const std::function<void(const std::string&)>& progress) {
  VerifyResult result;
  result.computed = true;
  const auto t0 = Clock::now();
  const VerifySpec& vs = spec.verify;
  const TargetSpec& target_spec = spec.targets.at(vs.target);
  result.target = vs.target;
  const fs::path verify_dir = in.out / "verify";
  std::error_code ec;
  fs::create_directories(verify_dir, ec);
  const fs::path log = verify_dir / "verify.log";
  fs::remove(log, ec);
  const std::string dir_name = "migrate-verify-" + in.project;
  const fs::path layout = target_spec.kind == "local" && !target_spec.workdir.empty()
                              ? fs::path(target_spec.workdir) / dir_name
                              : verify_dir / dir_name;
  auto finish = [&](std::string status, std::string detail) {
    result.status = std::move(status);
    result.detail = std::move(detail);
    result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    verify::addHints(result.checks);
    (void)outputs::writeVerifyJson(result, in.tool_version, in.out / "verify.json");
    (void)outputs::writeVerifyJunit(result, in.out / "verify_junit.xml");
    return result;
  };

  auto target = verify::makeTarget(target_spec, layout, in.project, log);
  result.host = target->describe();
  verify::OutcomeContext context;
  context.declared_packages = in.declared_packages;
  if (auto st = buildLayout(vs, in, layout, context.repository_modules); !st)
    return finish("error", st.error().message);

  const auto deadline = t0 + std::chrono::seconds(vs.timeout_seconds);
  auto budget = [&](int cap) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - Clock::now());
    return std::max(std::chrono::seconds(1), std::min(std::chrono::seconds(cap), left));
  };
  progress("verify: target " + result.host + " (" + vs.target + "), working directory " + target->workdir());
  const verify::Reach reach = target->probe(budget(60));
  if (reach.status != "ok") return finish(reach.status, reach.detail);
  progress("verify: " + reach.detail + " on the target");
  const verify::ProcessResult up = target->upload(layout, budget(vs.stage_timeout_seconds));
  if (up.timed_out) return finish("timeout", "copying the working directory to the target timed out");
  if (up.exit_code != 0)
    return finish("error", "cannot copy the working directory to the target: " + tail(up.output, 5));

  std::vector<CheckResult> engine_checks;
  bool timed_out = false;
  // Each introduced check re-run on trial trees (the original with part of the adaptation), built
  // on the target from its original/ and adapted/, to name the edits that break it.
  auto attribute = [&](std::vector<CheckResult>& checks) {
    const auto fresh = std::count_if(checks.begin(), checks.end(), [](const CheckResult& c) {
      return c.outcome == "introduced" && !c.reused;
    });
    if (fresh == 0) return;
    verify::AttributionInputs a;
    a.original = in.original_root;
    a.adapted = in.out / "adapted";
    a.findings = in.edited;
    a.max_reruns = vs.attribution_max_reruns;
    a.budget = std::chrono::seconds(vs.attribution_timeout_seconds);
    a.run_check = [&](const std::string& stage, const std::string& check,
                      const std::vector<verify::TrialFile>& files) {
      std::string shell =
          "rm -rf trial results/trial.jsonl && { cp -al original trial 2>/dev/null || cp -R original trial; "
          "} || exit 3\n";
      for (const verify::TrialFile& f : files) {
        const std::string to = verify::shellQuote("trial/" + f.path);
        shell += "mkdir -p " + verify::shellQuote(fs::path("trial/" + f.path).parent_path().string()) +
                 " && rm -f " + to;
        if (!f.content) {
          shell += " && cp " + verify::shellQuote("adapted/" + f.path) + " " + to + " || exit 3\n";
          continue;
        }
        shell += " && " + catInto(to, *f.content);
      }
      shell += "bash kit/verify_npu.sh --stage " + stage + " --tree trial --only " +
               verify::shellQuote(check) + " --results results/trial.jsonl --python " +
               verify::shellQuote(target_spec.python) + " --root " + verify::shellQuote(target->workdir()) +
               " >/dev/null 2>&1; exit 0";
      const verify::ProcessResult r = target->run(shell, budget(vs.stage_timeout_seconds));
      if (r.timed_out || r.exit_code != 0) return std::optional<CheckResult>();
      if (target->download(layout, budget(vs.stage_timeout_seconds)).exit_code != 0)
        return std::optional<CheckResult>();
      for (const CheckResult& t : verify::readCheckResults(layout / "results" / "trial.jsonl"))
        if (t.stage == stage && t.check == check) return std::optional<CheckResult>(t);
      return std::optional<CheckResult>();
    };
    progress("verify: finding the edits behind " + std::to_string(fresh) + " introduced failure(s)");
    verify::attributeIntroduced(checks, a);
    (void)target->run("rm -rf trial results/trial.jsonl", budget(60));
  };
  // Each stage on the adapted tree; the stages whose checks apply to the original tree then run
  // there too, under the same limits, as the reference the outcomes compare with.
  auto runStage = [&](const std::string& stage, const std::string& tree, const verify::StageReuse& plan) {
    const std::string check = tree == "adapted" ? "stage" : "stage:" + tree;
    if (Clock::now() >= deadline) {
      engine_checks.push_back(
          {stage,
           check,
           "error",
           "not run: verify.timeout (" + std::to_string(vs.timeout_seconds) + " s) was used up",
           0.0,
           "",
           {}});
      timed_out = true;
      return;
    }
    const auto per_stage = vs.stage_timeouts.find(stage);
    const auto limit =
        budget(per_stage == vs.stage_timeouts.end() ? vs.stage_timeout_seconds : per_stage->second);
    std::string command = "bash kit/verify_npu.sh --stage " + stage + " --tree " + tree + " --python " +
                          verify::shellQuote(target_spec.python) + " --root " +
                          verify::shellQuote(target->workdir());
    if (plan.checks) {
      const std::string list = "reuse/" + stage + "-" + tree + ".checks";
      command = writeList(list, *plan.checks) + command + " --checks " + list;
    }
    if (!plan.reused_test_files.empty()) {
      const std::string list = "reuse/" + stage + "-" + tree + ".reused-tests";
      command = writeList(list, plan.reused_test_files) + command + " --reused-tests " + list;
    }
    const verify::ProcessResult r = target->run(command, limit);
    if (r.timed_out) {
      timed_out = true;
      engine_checks.push_back({stage,
                               check,
                               "error",
                               "timed out after " + std::to_string(limit.count()) +
                                   " s (verify.stage_timeout); its processes were killed",
                               r.seconds,
                               tail(r.output),
                               {}});
    } else if (r.exit_code > 2 || r.exit_code < 0) {
      engine_checks.push_back({stage,
                               check,
                               "error",
                               "verify_npu.sh exited with " + std::to_string(r.exit_code),
                               r.seconds,
                               tail(r.output),
                               {}});
    }
    progress("verify: " + stage + (tree == "adapted" ? "" : " (" + tree + " tree)") +
             (r.timed_out ? " timed out" : " done") + " (" + std::to_string(static_cast<int>(r.seconds)) +
             " s)");
  };
  // After the environment stage, the keys of the checks' inputs: a check whose key is the one it
  // had in the previous verification keeps its record and does not run again.
  const Previous previous = vs.reuse ? previousVerification(in, progress) : Previous{};
  std::optional<verify::CheckKeys> keys;
  auto makeKeys = [&] {
    std::vector<CheckResult> environment;
    if (target->download(layout, budget(vs.stage_timeout_seconds)).exit_code == 0)
      for (CheckResult& c : verify::readCheckResults(layout / "results" / "verify_results.jsonl"))
        if (c.stage == "environment") environment.push_back(std::move(c));
    const std::vector<fs::path> kit{layout / "kit" / "verify_npu.sh", layout / "kit" / "verify_precision.py",
                                    layout / "kit" / "verify_pytest_plugin.py",
                                    in.out / "adapted" / "npu_compat.py", in.out / "adapted" / "npu_ops.py"};
    verify::ConfigDigests config = verify::configDigests(layout / "kit" / "verify_config.json");
    const std::string common =
        verify::commonKey(kit, config.general, vs.target + "\n" + result.host + "\n" + target_spec.python,
                          environment, installedDistributions(*target, target_spec.python, budget(60)));
    keys.emplace(common, std::move(config), in.graph, in.out / "adapted", in.original_root);
  };
  std::vector<std::string> candidates{"npu_compat"};
  if (in.has_npu_ops) candidates.push_back("npu_ops");
  for (const std::string& m : in.modules)
    if (std::find(candidates.begin(), candidates.end(), m) == candidates.end()) candidates.push_back(m);
  std::vector<CheckResult> kept, suites_before;
  for (const std::string& stage : kStages) {
    for (const std::string tree : {"adapted", "original"}) {
      if (tree == std::string("original") && !comparedStage(stage)) continue;
      verify::StageReuse plan;
      if (keys && !previous.state.records.empty())
        plan = verify::planStage(stage, tree, previous.state, *keys,
                                 tree == std::string("adapted") ? candidates : in.modules);
      kept.insert(kept.end(), plan.kept.begin(), plan.kept.end());
      if (plan.suite_before) suites_before.push_back(*plan.suite_before);
      const std::string where =
          stage + (tree == std::string("adapted") ? "" : " (" + std::string(tree) + " tree)");
      if (!plan.kept.empty())
        progress("verify: " + where + ": " + std::to_string(plan.kept.size()) +
                 " result(s) kept, their inputs unchanged" +
                 (plan.run ? "; the rest runs" : "; nothing to run"));
      if (plan.run) runStage(stage, tree, plan);
    }
    if (stage == "environment") makeKeys();
  }
  const verify::ProcessResult down = target->download(layout, budget(vs.stage_timeout_seconds));
  if (down.exit_code != 0)
    engine_checks.push_back({"results",
                             "download",
                             "error",
                             "cannot copy the results back: " + tail(down.output, 5),
                             down.seconds,
                             "",
                             {}});
  result.checks = verify::mergeKept(verify::readCheckResults(layout / "results" / "verify_results.jsonl"),
                                    kept, suites_before, candidates);
  if (keys) {
    verify::VerifyState state;
    for (const char* tree : {"adapted", "original"}) state.test_files[tree] = keys->testFileKeys(tree);
    for (const CheckResult& c : result.checks) state.records.push_back({keys->keyOf(c), c});
    if (auto st = verify::writeVerifyState(in.out, state); !st) progress("verify: " + st.error().message);
  }
  result.checks.insert(result.checks.end(), engine_checks.begin(), engine_checks.end());
  verify::assignOutcomes(result.checks, context);
  for (CheckResult& c : result.checks)  // a kept failure keeps the edits found behind it
    if (const auto before = previous.results.find({c.stage, c.check});
        c.reused && c.outcome == "introduced" && before != previous.results.end()) {
      c.broken_by = before->second.broken_by;
      c.attribution = before->second.attribution;
    }
  attribute(result.checks);
  fs::copy_file(layout / "results" / "verify_results.jsonl", verify_dir / "verify_results.jsonl",
                fs::copy_options::overwrite_existing, ec);
  const std::size_t reused = result.reused();
  return finish(timed_out ? "timeout" : "completed",
                result.outcomeCounts() +
                    (reused ? "; " + std::to_string(reused) + " of " + std::to_string(result.checks.size()) +
                                  " kept from the previous verification"
                            : std::string()));
}

}  // namespace migrate
