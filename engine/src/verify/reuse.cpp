#include "verify/reuse.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "emit/emit_state.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate::verify {
namespace fs = std::filesystem;

namespace {

constexpr int kStateFormat = 3;  // 2: pytest errors are kept; 3: the test files and their keys

/// Parts hashed together, each length-prefixed so that no two lists of parts collide.
class Digest {
 public:
  Digest& add(std::string_view part) {
    text_ += std::to_string(part.size());
    text_ += ':';
    text_ += part;
    return *this;
  }
  std::string value() const { return emit::contentDigest(text_); }

 private:
  std::string text_;
};

bool startsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool isTestFile(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0 &&
         (startsWith(name, "test_") ||
          (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0));
}

/// The kit's own checks of the function stage: they run only the kit's modules.
bool kitCheck(const std::string& check) {
  return check != "tests" && !startsWith(check, "test:");
}

}  // namespace

ConfigDigests configDigests(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const bool opened = in.is_open();
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  ConfigDigests out;
  if (!opened || !doc.is_object()) {
    out.general = Digest().add(opened ? text : "missing").value();
    return out;
  }
  auto section = [&doc](const char* key) {
    std::string digest = Digest().add(key).add(doc.contains(key) ? doc[key].dump() : "absent").value();
    doc.erase(key);
    return digest;
  };
  out.tests = section("tests");
  out.precision = section("precision");
  out.benchmark = section("benchmark");
  out.general = Digest().add(doc.dump()).value();
  return out;
}

CheckKeys::CheckKeys(std::string common, ConfigDigests config, const std::vector<ModuleImports>& graph,
                     fs::path adapted, fs::path original)
    : common_(std::move(common)), config_(std::move(config)) {
  adapted_.dir = std::move(adapted);
  original_.dir = std::move(original);
  for (const ModuleImports& m : graph) {
    index_.emplace(m.path, paths_.size());
    paths_.push_back(m.path);
    if (!m.dotted_name.empty()) path_of_.emplace(m.dotted_name, m.path);
  }
  imports_.resize(paths_.size());
  for (std::size_t i = 0; i < graph.size(); ++i)
    for (const std::string& target : graph[i].imports)
      if (auto it = index_.find(target); it != index_.end()) imports_[i].push_back(it->second);
}

CheckKeys::Tree& CheckKeys::tree(bool reference) {
  return reference ? original_ : adapted_;
}

const std::vector<std::string>& CheckKeys::files(Tree& t) {
  if (!t.files) {
    std::vector<sdk::Diagnostic> ignored;
    t.files.emplace();
    for (const TreeEntry& e : listRepositoryTree(t.dir, ignored)) {
      t.files->push_back(e.path);
      if (!e.link_target.empty()) t.digests[e.path] = "link:" + e.link_target;
    }
  }
  return *t.files;
}

std::string CheckKeys::fileDigest(Tree& t, const std::string& path) {
  auto [it, fresh] = t.digests.try_emplace(path);
  if (fresh) it->second = emit::fileDigest(t.dir / path).value_or("missing");
  return it->second;
}

std::string CheckKeys::closureDigest(Tree& t, const std::string& path) {
  if (auto it = t.closures.find(path); it != t.closures.end()) return it->second;
  std::set<std::size_t> seen{index_.at(path)};
  std::vector<std::size_t> todo(seen.begin(), seen.end());
  while (!todo.empty()) {
    const std::size_t at = todo.back();
    todo.pop_back();
    for (std::size_t next : imports_[at])
      if (seen.insert(next).second) todo.push_back(next);
  }
  std::vector<std::string> closure;
  for (std::size_t i : seen) closure.push_back(paths_[i]);
  std::sort(closure.begin(), closure.end());
  Digest d;
  for (const std::string& p : closure) d.add(p).add(fileDigest(t, p));
  return t.closures[path] = d.value();
}

std::string CheckKeys::wholeDigest(Tree& t) {
  if (!t.whole) {
    Digest d;
    for (const std::string& p : files(t)) d.add(p).add(fileDigest(t, p));
    t.whole = d.value();
  }
  return *t.whole;
}

std::string CheckKeys::testFileDigest(Tree& t, const std::string& path) {
  if (!index_.count(path)) return wholeDigest(t);
  Digest d;
  d.add(closureDigest(t, path));
  // pytest reads the conftest.py files above a test and the tree's configuration.
  for (fs::path dir = fs::path(path).parent_path();; dir = dir.parent_path()) {
    const std::string conftest = (dir / "conftest.py").generic_string();
    d.add(conftest).add(fileDigest(t, conftest));
    if (dir.empty()) break;
  }
  for (const char* config : {"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"})
    d.add(config).add(fileDigest(t, config));
  return d.value();
}

std::string CheckKeys::keyOf(const CheckResult& r) {
  // An error is the verification's failing to run the check, never kept; but a test's "error" is
  // pytest's outcome for it (its setup or collection failed), as reproducible as a failure.
  if ((r.status == "error" && !startsWith(r.check, "test:")) || r.stage == "environment") return {};
  Tree& t = tree(r.reference);
  const std::string side = r.reference ? "original" : "adapted";
  Digest d;
  d.add(common_).add(r.stage).add(r.check).add(side);
  if (r.stage == "imports") {
    if (r.reference || (r.check != "npu_compat" && r.check != "npu_ops")) {
      const auto path = path_of_.find(r.check);
      d.add(path == path_of_.end() ? wholeDigest(t) : closureDigest(t, path->second));
    }
  } else if (r.stage == "function") {
    if (startsWith(r.check, "test:"))
      d.add(config_.tests).add(r.file.empty() ? wholeDigest(t) : testFileDigest(t, r.file));
    else if (r.check == "tests")
      d.add(config_.tests).add(wholeDigest(t));
    else if (r.reference)
      return {};  // the kit's checks run on the adapted tree only
  } else if (r.stage == "precision" || r.stage == "benchmark") {
    d.add(r.stage == "precision" ? config_.precision : config_.benchmark);
    d.add(wholeDigest(adapted_)).add(wholeDigest(original_));
  } else {
    return {};
  }
  return d.value();
}

std::map<std::string, std::string> CheckKeys::testFileKeys(const std::string& name) {
  Tree& t = tree(name == "original");
  std::map<std::string, std::string> out;
  for (const std::string& p : files(t))
    if (isTestFile(p))
      out[p] = Digest()
                   .add(common_)
                   .add(config_.tests)
                   .add("test file")
                   .add(name)
                   .add(testFileDigest(t, p))
                   .value();
  return out;
}

std::string commonKey(const std::vector<fs::path>& kit_files, const std::string& config_general,
                      const std::string& target, const std::vector<CheckResult>& environment,
                      const std::string& distributions) {
  Digest d;
  for (const fs::path& f : kit_files)
    d.add(f.filename().string()).add(emit::fileDigest(f).value_or("missing"));
  d.add(config_general).add(target).add(distributions);
  for (const CheckResult& c : environment) d.add(c.check).add(c.status).add(c.detail);
  return d.value();
}

std::optional<VerifyState> readVerifyState(const fs::path& dir, std::string& why) {
  std::ifstream in(dir / kVerifyStateFile, std::ios::binary);
  if (!in) {
    why = "no " + std::string(kVerifyStateFile) + " in " + dir.string();
    return std::nullopt;
  }
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || doc.value("format", 0) != kStateFormat || !doc.contains("records") ||
      !doc["records"].is_array()) {
    why = (dir / kVerifyStateFile).string() + " is not a state this version reads";
    return std::nullopt;
  }
  VerifyState out;
  if (doc.contains("test_files") && doc["test_files"].is_object())
    for (const auto& [tree, files] : doc["test_files"].items())
      if (files.is_object())
        for (const auto& [file, key] : files.items())
          if (key.is_string()) out.test_files[tree][file] = key.get<std::string>();
  for (const auto& j : doc["records"]) {
    if (!j.is_object()) continue;
    auto text = [&](const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    KeyedRecord k;
    k.key = text("key");
    k.record.stage = text("stage");
    k.record.check = text("check");
    k.record.status = text("status");
    k.record.detail = text("detail");
    k.record.output = text("output");
    k.record.file = text("file");
    k.record.reference = text("tree") == "reference";
    if (j.contains("duration") && j["duration"].is_number()) k.record.duration = j["duration"].get<double>();
    if (!k.key.empty()) out.records.push_back(std::move(k));
  }
  return out;
}

Status writeVerifyState(const fs::path& dir, const VerifyState& state) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const KeyedRecord& k : state.records) {
    if (k.key.empty()) continue;
    const CheckResult& c = k.record;
    nlohmann::ordered_json j{{"key", k.key},       {"stage", c.stage},   {"check", c.check},
                             {"status", c.status}, {"detail", c.detail}, {"duration", c.duration},
                             {"output", c.output}};
    if (!c.file.empty()) j["file"] = c.file;
    if (c.reference) j["tree"] = "reference";
    list.push_back(std::move(j));
  }
  const nlohmann::ordered_json doc{
      {"format", kStateFormat}, {"test_files", state.test_files}, {"records", std::move(list)}};
  const fs::path file = dir / kVerifyStateFile;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return makeError("cannot write " + file.string());
  return Ok{};
}

StageReuse planStage(const std::string& stage, const std::string& tree, const VerifyState& previous,
                     CheckKeys& keys, const std::vector<std::string>& modules) {
  StageReuse plan;
  const bool reference = tree == "original";
  std::vector<const KeyedRecord*> mine;
  for (const KeyedRecord& k : previous.records)
    if (k.record.stage == stage && k.record.reference == reference) mine.push_back(&k);
  if (mine.empty() || stage == "environment") return plan;
  auto reusable = [&](const KeyedRecord& k) { return k.key == keys.keyOf(k.record); };
  auto keep = [&](const KeyedRecord& k) {
    plan.kept.push_back(k.record);
    plan.kept.back().reused = true;
  };

  if (stage == "imports") {
    std::set<std::string> kept;
    for (const KeyedRecord* k : mine)
      if (std::find(modules.begin(), modules.end(), k->record.check) != modules.end() && reusable(*k) &&
          kept.insert(k->record.check).second)
        keep(*k);
    plan.checks.emplace();
    for (const std::string& m : modules)
      if (!kept.count(m)) plan.checks->push_back(m);
    plan.run = !plan.checks->empty();
    return plan;
  }
  if (stage == "function") {
    const KeyedRecord* suite = nullptr;
    std::map<std::string, bool> files;  // test file -> all its records reusable
    bool per_test = false, anonymous_test = false, kit_reusable = true;
    std::set<std::string> kit_seen;
    for (const KeyedRecord* k : mine) {
      const std::string& check = k->record.check;
      if (check == "tests") {
        suite = k;
      } else if (startsWith(check, "test:")) {
        per_test = true;
        if (k->record.file.empty()) anonymous_test = true;
        auto [it, fresh] = files.try_emplace(k->record.file, true);
        it->second = it->second && reusable(*k);
      } else {
        kit_seen.insert(check);
        kit_reusable = kit_reusable && reusable(*k);
      }
    }
    plan.checks.emplace();
    // The kit's checks: npu-compat-info, and device-round-trip with the npu-ops records it writes.
    if (!reference) {
      if (kit_reusable && kit_seen.count("npu-compat-info") && kit_seen.count("device-round-trip")) {
        for (const KeyedRecord* k : mine)
          if (kitCheck(k->record.check)) keep(*k);
      } else {
        plan.checks->insert(plan.checks->end(), {"npu-compat-info", "device-round-trip"});
      }
    }
    // The repository's tests: per test file when pytest recorded them one by one.
    if (!suite || anonymous_test || (!per_test && !reusable(*suite))) {
      plan.checks->push_back("tests");
    } else if (!per_test) {
      keep(*suite);
    } else {
      bool all = true;
      for (const auto& [file, ok] : files) all = all && ok;
      const auto before = previous.test_files.find(tree);
      for (const auto& [file, key] : keys.testFileKeys(tree)) {  // none new, none changed
        const bool same = before != previous.test_files.end() && before->second.count(file) &&
                          before->second.at(file) == key;
        all = all && same;
      }
      if (all) {
        for (const KeyedRecord* k : mine)
          if (startsWith(k->record.check, "test:")) keep(*k);
        keep(*suite);
      } else if (suite->record.status != "passed") {
        // The suite failed as a whole (collection errors, an interrupted run): what a part of it
        // says about the whole is not what the whole says. It runs whole.
        plan.checks->push_back("tests");
      } else {
        for (const KeyedRecord* k : mine)
          if (startsWith(k->record.check, "test:") && files[k->record.file]) keep(*k);
        plan.checks->push_back("tests");
        plan.suite_before = suite->record;
        plan.suite_before->reused = true;
        for (const auto& [file, ok] : files)
          if (ok) plan.reused_test_files.push_back(file);
      }
    }
    plan.run = !plan.checks->empty();
    return plan;
  }
  // precision, benchmark: all or nothing (their commands run the whole trees).
  if (std::all_of(mine.begin(), mine.end(), [&](const KeyedRecord* k) { return reusable(*k); })) {
    for (const KeyedRecord* k : mine) keep(*k);
    plan.run = false;
  }
  return plan;
}

std::vector<CheckResult> mergeKept(std::vector<CheckResult> fresh, const std::vector<CheckResult>& kept,
                                   const std::vector<CheckResult>& suites_before,
                                   const std::vector<std::string>& modules) {
  std::set<std::tuple<std::string, std::string, bool>> ran;
  for (const CheckResult& c : fresh) ran.emplace(c.stage, c.check, c.reference);
  std::map<bool, std::size_t> kept_tests;  // by tree
  for (const CheckResult& c : kept)
    if (!ran.count({c.stage, c.check, c.reference})) {
      fresh.push_back(c);
      if (c.stage == "function" && startsWith(c.check, "test:")) ++kept_tests[c.reference];
    }
  // As a verification that ran every check lists them (verify_npu.sh's order).
  static const std::vector<std::string> kOrder{"environment", "imports", "function", "precision",
                                               "benchmark"};
  const auto place = [&](const CheckResult& c) {
    const auto stage = std::find(kOrder.begin(), kOrder.end(), c.stage) - kOrder.begin();
    std::ptrdiff_t group = 0;
    std::string within;
    if (c.stage == "imports") {
      group = std::find(modules.begin(), modules.end(), c.check) - modules.begin();
    } else if (c.stage == "function") {
      group = startsWith(c.check, "test:")   ? 0
              : c.check == "tests"           ? 1
              : c.check == "npu-compat-info" ? 2
                                             : 3;
      if (group == 0) within = c.file;
    }
    return std::tuple(stage, group, within);
  };
  std::stable_sort(fresh.begin(), fresh.end(),
                   [&](const CheckResult& a, const CheckResult& b) { return place(a) < place(b); });
  for (CheckResult& c : fresh) {
    if (c.stage != "function" || c.check != "tests" || c.reused || !kept_tests[c.reference]) continue;
    const auto before = std::find_if(suites_before.begin(), suites_before.end(),
                                     [&](const CheckResult& s) { return s.reference == c.reference; });
    if (c.status == "skipped" && startsWith(c.detail, "pytest collected no tests") &&
        before != suites_before.end())
      c = *before;
    else
      c.detail += "; " + std::to_string(kept_tests[c.reference]) +
                  " more test(s) kept from the previous verification, their inputs unchanged";
  }
  return fresh;
}

}  // namespace migrate::verify
