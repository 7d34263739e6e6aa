#include "emit/emitter.hpp"

#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "analysis_cache/cache_key.hpp"
#include "csv/csv_writer.hpp"
#include "emit/emit_context.hpp"
#include "emit/patch_writer.hpp"
#include "emit/siblings.hpp"
#include "emit/source_edits.hpp"
#include "emit/support_modules.hpp"
#include "emit/template_store.hpp"
#include "emit/tree_writer.hpp"
#include "outputs/emit_json.hpp"
#include "parse/python_module.hpp"
#include "plugin_host/crash_report.hpp"
#include "verify/verify_config.hpp"

namespace migrate {
namespace fs = std::filesystem;

namespace {

Status writeText(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return makeError("cannot write " + path.string());
  return Ok{};
}

std::optional<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void runPluginHooks(const Workspace& workspace, const emit::TemplateStore& templates,
                    const std::vector<ActivePlugin>& plugins, const fs::path& out, const std::string& project,
                    MigrationModel& model, emit::PluginContributions& contributions) {
  for (const ActivePlugin& p : plugins) {
    const std::string& name = p.loaded->info.name;
    emit::EngineEmitContext context(model, workspace, templates, out, project, name, contributions,
                                    model.diagnostics);
    const PluginCallScope scope(name, "emit", "");
    try {
      p.loaded->plugin->emit(context);
    } catch (const std::exception& e) {
      model.diagnostics.push_back(
          {sdk::Severity::Error, "plugin-error", "", 0, "plugin " + name + " failed in emit: " + e.what()});
    } catch (...) {
      model.diagnostics.push_back({sdk::Severity::Error, "plugin-error", "", 0,
                                   "plugin " + name + " failed in emit with an unknown exception"});
    }
  }
}

/// Manual work from a file's adaptation: places without an automatic fix, and conflicting fixes.
void collectManualWork(const emit::FileAdaptation& a, const std::vector<const sdk::Finding*>& findings,
                       std::vector<sdk::ManualWork>& work) {
  for (std::size_t i : a.manual) {
    const sdk::Finding& f = *findings[i];
    work.push_back({f.rule_id, f.file, f.range.line,
                    f.npu_alternative.empty() ? f.message : f.message + " NPU: " + f.npu_alternative});
  }
  for (std::size_t i : a.conflicting) {
    const sdk::Finding& f = *findings[i];
    work.push_back(
        {f.rule_id, f.file, f.range.line,
         "its automatic fix overlaps another fix on the same code; apply it by hand: " + f.message});
  }
}

/// change_list.csv's rows for one adapted file: each change's line, kind, rule, the original
/// text it replaced and what replaced it.
void listChanges(const std::string& file, const std::string& original, const emit::FileAdaptation& a,
                 CsvWriter& changes) {
  std::int64_t line = 1;
  std::size_t pos = 0;
  for (const emit::Change& c : a.changes) {
    for (; pos < c.start && pos < original.size(); ++pos) line += original[pos] == '\n' ? 1 : 0;
    changes.row(file, line, c.kind, c.rule, original.substr(c.start, c.end - c.start), c.text);
  }
}

/// The adapted copy of the repository under adapted/ (placed by `tree`), its patch and its
/// change list; returns the support modules the repository already has as generated files (kept
/// as they are).
Result<std::set<std::string>> adaptTree(const Workspace& workspace, const EmitSpec& spec,
                                        MigrationModel& model, emit::TreeWriter& tree,
                                        emit::PatchWriter& patch, CsvWriter& changes,
                                        const std::function<void(const std::string&)>& progress) {
  EmitResult& result = model.emit;
  std::map<std::string, std::vector<const sdk::Finding*>> by_file;
  for (const sdk::Finding& f : model.findings) by_file[f.file].push_back(&f);

  const std::vector<TreeEntry> entries = listRepositoryTree(model.source.root, model.diagnostics);
  auto original_of = [&](const std::string& path) {
    auto text = workspace.read(path);
    return text ? text : readText(model.source.root / path);
  };
  auto layout_of = [&](const std::string& path) -> const PythonLayout* {
    const auto found = model.layouts.find(path);
    return found == model.layouts.end() ? nullptr : &found->second;
  };
  const bool siblings = spec.layout == "siblings";
  std::set<std::string> adapted_modules;  // siblings: dotted names of the modules that change
  if (siblings)
    for (const auto& [path, findings] : by_file)
      if (fs::path(path).extension() == ".py")
        if (auto text = original_of(path);
            text && emit::adaptSource(path, *text, findings, layout_of(path)).text != *text)
          adapted_modules.insert(parse::dottedModuleName(path));

  std::set<std::string> existing_generated;  // support modules the repository already has
  std::size_t done = 0;
  std::error_code ec;
  for (const TreeEntry& entry : entries) {
    const fs::path source = model.source.root / entry.path;
    if (!entry.link_target.empty()) {
      if (auto st = tree.link(entry.path, entry.link_target); !st) return st.error();
      continue;
    }
    const fs::perms perms = fs::status(source, ec).permissions();
    const auto found = by_file.find(entry.path);
    if (found == by_file.end()) {
      const auto digest = emit::fileDigest(source);
      if (!digest) return makeError("cannot read " + entry.path + " from the repository");
      if (auto st = tree.copy(entry.path, source, *digest, perms); !st) return st.error();
      if (entry.path == emit::kCompatModule || entry.path == emit::kOpsModule)
        if (auto text = readText(source); text && isGeneratedFile(*text))
          existing_generated.insert(entry.path);
      continue;
    }
    const auto original = original_of(entry.path);
    if (!original) return makeError("cannot read " + entry.path + " from the repository");
    const std::string digest = emit::contentDigest(*original);
    std::vector<const sdk::Finding*> findings = found->second;
    const std::size_t own = findings.size();
    std::vector<sdk::Finding> redirects;
    const bool python = fs::path(entry.path).extension() == ".py";
    const bool sibling = siblings && python && adapted_modules.count(parse::dottedModuleName(entry.path));
    if (sibling) redirects = emit::siblingImportEdits(entry.path, *original, adapted_modules);
    for (const sdk::Finding& f : redirects) findings.push_back(&f);
    const emit::FileAdaptation a = emit::adaptSource(entry.path, *original, findings, layout_of(entry.path));
    result.edits_applied += a.edits_applied;
    result.conflicts += a.conflicting.size();
    for (std::size_t i : a.fixed)
      if (i < own) {
        ++result.findings_fixed;
        result.fixed_findings.push_back(static_cast<std::size_t>(findings[i] - model.findings.data()));
      }
    collectManualWork(a, findings, result.manual_work);
    const std::string written = sibling ? emit::siblingPath(entry.path) : entry.path;
    const bool added = written != entry.path;
    if (a.text == *original || added)  // the original as it is (beside its sibling)
      if (auto st = tree.copy(entry.path, source, digest, perms); !st) return st.error();
    if (a.text == *original) continue;
    if (auto st = tree.write(written, a.text, digest, perms); !st) return st.error();
    const bool executable = (perms & fs::perms::owner_exec) != fs::perms::none;
    if (auto st = tree.addPatch(patch, written, added ? std::nullopt : original, a.text, executable); !st)
      return st.error();
    listChanges(written, *original, a, changes);
    result.adapted.push_back({written, added ? "added" : "modified", a.edits_applied, a.todos_added});
    if (++done % 200 == 0) progress("emit: " + std::to_string(done) + " files adapted");
  }

  return existing_generated;
}

/// npu_compat.py and npu_ops.py (with the sections asked for, and those a generated npu_ops.py in
/// the repository already has) in the kit and at the root of the adapted tree.
Status writeSupportModules(const emit::TemplateStore& templates, const std::string& project,
                           std::set<std::string> sections, const std::set<std::string>& existing_generated,
                           MigrationModel& model, const fs::path& out, emit::TreeWriter& tree,
                           emit::PatchWriter& patch) {
  EmitResult& result = model.emit;
  if (existing_generated.count(emit::kOpsModule)) {
    const auto text = readText(model.source.root / emit::kOpsModule);
    const std::set<std::string> recorded = emit::recordedSections(text.value_or(""));
    sections.insert(recorded.begin(), recorded.end());
  }
  result.npu_ops_sections.assign(sections.begin(), sections.end());
  struct Support {
    const char* name;
    bool needed;
    Result<std::string> text;
  };
  Support supports[] = {
      {emit::kCompatModule, !model.findings.empty(), emit::renderCompatModule(templates, project)},
      {emit::kOpsModule, !sections.empty(), emit::renderOpsModule(templates, project, sections)},
  };
  for (Support& s : supports) {
    if (!s.needed) continue;
    if (!s.text) return s.text.error();
    const std::string name = s.name;
    const fs::path in_repo = model.source.root / name;
    const auto kept = readText(in_repo);
    const bool keep = existing_generated.count(name) &&
                      (name != emit::kOpsModule || emit::recordedSections(kept.value_or("")) == sections);
    const std::string& text = keep ? *kept : *s.text;
    if (auto st = writeText(out / name, text); !st) return st;
    result.files.push_back({name, "support-module"});
    if (keep) continue;
    const bool in_tree = fs::exists(in_repo);
    if (in_tree && !existing_generated.count(name)) {
      model.diagnostics.push_back({sdk::Severity::Warning, "support-module-clash", name, 0,
                                   "the repository has its own " + name +
                                       "; the adapted tree keeps it, and the "
                                       "adapted sources' imports of it will not find the generated one"});
      continue;
    }
    if (auto st = tree.write(name, text, "", std::nullopt); !st) return st;
    if (auto st = tree.addPatch(patch, name, in_tree ? readText(in_repo) : std::nullopt, text, false); !st)
      return st;
    result.adapted.push_back({name, in_tree ? "modified" : "added", 0, 0});
  }
  return Ok{};
}

/// The plugins' manual work joined with the engine's: a plugin's item says more than the generic
/// one for the same rule and place, so it replaces it. Sorted by file, line, rule id.
void mergeManualWork(std::vector<sdk::ManualWork>& work, const std::vector<sdk::ManualWork>& from_plugins) {
  std::set<std::tuple<std::string, std::string, std::uint32_t>> specific;
  for (const sdk::ManualWork& w : from_plugins) specific.emplace(w.rule_id, w.file, w.line);
  std::erase_if(work, [&](const sdk::ManualWork& w) {
    return specific.count({w.rule_id, w.file, w.line}) != 0;
  });
  work.insert(work.end(), from_plugins.begin(), from_plugins.end());
  std::stable_sort(work.begin(), work.end(), [](const auto& a, const auto& b) {
    return std::tie(a.file, a.line, a.rule_id) < std::tie(b.file, b.line, b.rule_id);
  });
}

/// The adapted modules verification may import: inside a directory, or guarded by `__main__`
/// (a top-level script without the guard would run when imported); never setup.py / conftest.py.
std::vector<std::string> importableModules(const MigrationModel& model) {
  std::map<std::string, bool> main_block;
  for (const ModuleSummary& m : model.modules) main_block[m.path] = m.main_block;
  std::vector<std::string> modules;
  for (const AdaptedFile& f : model.emit.adapted) {
    const fs::path p(f.path);
    const std::string name = p.filename().string();
    if (p.extension() != ".py" || name == "setup.py" || name == "conftest.py" ||
        name == emit::kCompatModule || name == emit::kOpsModule)
      continue;
    std::string original = f.path;  // a _npu sibling stands for its original's summary
    if (const std::size_t at = original.rfind("_npu.py"); f.status == "added" && at != std::string::npos)
      original = original.substr(0, at) + ".py";
    if (f.path.find('/') != std::string::npos || main_block[original])
      modules.push_back(parse::dottedModuleName(f.path));
  }
  std::sort(modules.begin(), modules.end());
  return modules;
}

/// verify_npu.sh, verify_precision.py, verify_pytest_plugin.py and verify_config.json in the kit.
Status writeVerificationKit(const emit::TemplateStore& templates, const std::string& project,
                            const VerifySpec& verify, MigrationModel& model, const fs::path& out) {
  EmitResult& result = model.emit;
  for (const char* name : {"verify_npu.sh", "verify_precision.py", "verify_pytest_plugin.py"}) {
    auto text = templates.render(name, sdk::TemplateData{}, project);
    if (!text) return text.error();
    if (auto st = writeText(out / name, *text); !st) return st;
    result.files.push_back({name, "verification"});
  }
  std::error_code ec;
  fs::permissions(out / "verify_npu.sh",
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  const bool has_ops = std::find(result.files.begin(), result.files.end(),
                                 EmittedFile{emit::kOpsModule, "support-module"}) != result.files.end();
  const std::string config =
      verify::verifyConfigJson(verify, {project, result.modules, has_ops, out / result.adapted_dir});
  if (auto st = writeText(out / "verify_config.json", config); !st) return st;
  result.files.push_back({"verify_config.json", "verification"});
  return Ok{};
}

}  // namespace

std::string projectNameOf(const SourceInfo& source) {
  std::string name = source.location;
  while (!name.empty() && (name.back() == '/' || name.back() == '\\')) name.pop_back();
  name = name.substr(name.find_last_of("/\\:") == std::string::npos ? 0 : name.find_last_of("/\\:") + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
  return name.empty() ? "project" : name;
}

Status emitKit(const Workspace& workspace, const EmitSpec& spec, const VerifySpec& verify,
               const std::vector<ActivePlugin>& plugins, MigrationModel& model, const fs::path& out,
               const std::function<void(const std::string&)>& progress) {
  EmitResult& result = model.emit;
  result = EmitResult{};
  result.layout = spec.layout;
  result.adapted_dir = "adapted";
  const std::string project = projectNameOf(model.source);
  const emit::TemplateStore templates(spec.templates);

  // 0. The emit to start from (this directory's, or the base's), then what an earlier run wrote
  // into this directory goes: no stale kit file survives. The adapted tree is brought up to date
  // in place when its state is there; its state goes until this emit has finished.
  const fs::path adapted = out / result.adapted_dir;
  const std::string engine = emit::contentDigest(cache::loadedBuilds(plugins));
  const emit::PreviousEmit previous =
      emit::previousEmit(spec.base.empty() ? out : fs::path(spec.base), engine);
  emit::TreeWriter tree(adapted, previous, engine);
  std::error_code ec;
  fs::remove(out / emit::kEmitStateFile, ec);
  for (const std::string& path : outputs::previousKitFiles(out / "emit.json")) {
    if (tree.inPlace() && path == result.adapted_dir + "/") continue;
    fs::remove_all(out / path, ec);
    for (fs::path dir = (out / path).parent_path(); dir != out && fs::is_empty(dir, ec);
         dir = dir.parent_path())
      fs::remove(dir, ec);
  }

  // 1. The plugins' contributions (files of their own, npu_ops sections, manual work).
  emit::PluginContributions contributions;
  runPluginHooks(workspace, templates, plugins, out, project, model, contributions);

  // 2. The adapted copy of the repository, and the patch.
  if (!tree.inPlace()) fs::remove_all(adapted, ec);
  if (ec) return makeError("cannot clear " + adapted.string() + ": " + ec.message());
  fs::create_directories(adapted, ec);
  if (ec) return makeError("cannot create " + adapted.string() + ": " + ec.message());
  emit::PatchWriter patch;
  CsvWriter changes;
  changes.row("file", "line", "kind", "rule", "before", "after");
  auto existing_generated = adaptTree(workspace, spec, model, tree, patch, changes, progress);
  if (!existing_generated) return existing_generated.error();

  // 3. The support modules, in the kit and at the root of the adapted tree.
  if (auto st = writeSupportModules(templates, project, contributions.sections[emit::kOpsModule],
                                    *existing_generated, model, out, tree, patch);
      !st)
    return st;
  if (auto st = tree.removeOthers(); !st) return st;
  result.tree_files = tree.placed();
  result.tree_reused = tree.reused();
  result.files.push_back({result.adapted_dir + "/", "adapted-tree"});
  result.project = project;
  result.original_root = model.source.root.string();
  result.modules = importableModules(model);
  if (auto st = writeVerificationKit(templates, project, verify, model, out); !st) return st;

  if (auto st = writeText(out / "npu_migration.patch", patch.text()); !st) return st;
  result.files.push_back({"npu_migration.patch", "patch"});
  if (auto st = writeText(out / "change_list.csv", changes.take()); !st) return st;
  result.files.push_back({"change_list.csv", "table"});
  result.files.insert(result.files.end(), contributions.files.begin(), contributions.files.end());
  mergeManualWork(result.manual_work, contributions.manual_work);
  std::sort(result.fixed_findings.begin(), result.fixed_findings.end());
  std::sort(result.files.begin(), result.files.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  result.computed = true;
  if (auto st = outputs::writeEmitManifest(model, out / "emit.json"); !st) return st;
  return emit::writeEmitState(out, tree.state(patch.text()));
}

}  // namespace migrate
