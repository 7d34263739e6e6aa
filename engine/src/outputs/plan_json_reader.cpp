#include "outputs/plan_json_reader.hpp"

#include <map>
#include <string>

namespace migrate {
namespace {

using json::Field;

const std::vector<std::string> kSeverities{"info", "warning", "error"};
const std::vector<std::string> kLevels{"low", "medium", "high"};
const std::vector<std::string> kEntryKinds{"main_block", "console_script", "launch_script", "test_module",
                                           "library"};

/// Paths of the import graph → their index.
using GraphIndex = std::map<std::string, std::size_t>;

std::vector<std::size_t> modulePaths(const Field& list, const GraphIndex& index) {
  return list.list([&](const Field& f) {
    const std::string path = f.string();
    const auto it = index.find(path);
    if (it == index.end()) f.fail("\"" + path + "\" is not the path of a module of plan.import_graph");
    return it->second;
  });
}

std::vector<std::size_t> findingIndices(const Field& list, std::size_t count) {
  return list.list([&](const Field& f) {
    const std::size_t i = f.size();
    if (i >= count)
      f.fail("finding index " + std::to_string(i) + " is out of range: the file has " +
             std::to_string(count) + " findings");
    return i;
  });
}

std::vector<sdk::ModuleNode> readGraph(const Field& graph, GraphIndex& index) {
  const std::vector<Field> nodes = graph.elements();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Field path = nodes[i]["path"];
    if (!index.emplace(path.string(), i).second) path.fail("the path appears twice in the import graph");
  }
  std::vector<sdk::ModuleNode> out;
  for (const Field& n : nodes) {
    sdk::ModuleNode node;
    node.path = n["path"].string();
    node.dotted_name = n["module"].string();
    node.imports = modulePaths(n["imports"], index);
    node.libraries = n["libraries"].strings();
    out.push_back(std::move(node));
  }
  return out;
}

sdk::EntryPoint readEntryPoint(const Field& f, const GraphIndex& index) {
  sdk::EntryPoint e;
  e.kind = f["kind"].as<sdk::EntryPoint::Kind>(sdk::entryPointKindFromString, kEntryKinds);
  e.name = f["name"].string();
  e.file = f["file"].string();
  e.launcher = f["launcher"].string();
  e.modules = modulePaths(f["modules"], index);
  e.labels = f["labels"].strings();
  return e;
}

ModelClass readModel(const Field& f) {
  ModelClass m;
  m.name = f["name"].string();
  m.path = f["path"].string();
  m.line = f["line"].uint32();
  m.description = f["description"].string();
  for (const auto& [category, types] : f["layers"].members()) m.layers[category] = types.strings();
  m.submodules = f["submodules"].strings();
  m.custom_ops = f["custom_ops"].strings();
  return m;
}

CodeStructure readStructure(const Field& f, const GraphIndex& index) {
  CodeStructure s;
  s.files = f["files"].size();
  s.lines = f["lines"].unsignedInt();
  s.languages = f["languages"].list([](const Field& l) {
    return LanguageStats{l["language"].string(), l["files"].size(), l["lines"].unsignedInt()};
  });
  // declared_by_install is not written; it stays false.
  s.libraries = f["libraries"].list([](const Field& l) {
    LibraryUse u;
    u.name = l["name"].string();
    u.modules = l["modules"].size();
    u.declared = l["declared"].string();
    u.verdict = l["verdict"].string();
    return u;
  });
  s.core_modules = f["core_modules"].list([](const Field& c) {
    return CoreModule{c["path"].string(), c["description"].string(), c["importers"].size(),
                      c["lines"].unsignedInt()};
  });
  s.entry_points = f["entry_points"].list([&](const Field& e) { return readEntryPoint(e, index); });
  s.models = f["models"].list(readModel);
  return s;
}

sdk::Bottleneck readBottleneck(const Field& f, std::size_t finding_count) {
  sdk::Bottleneck b;
  b.id = f["id"].string();
  b.rule_id = f["rule_id"].string();
  b.domain = f["domain"].string();
  b.title = f["title"].string();
  b.apis = f["apis"].strings();
  b.npu_alternative = f["npu_alternative"].string();
  b.findings = findingIndices(f["findings"], finding_count);
  b.severity = f["severity"].as<sdk::Severity>(sdk::severityFromString, kSeverities);
  b.difficulty = f["difficulty"].as<sdk::Level>(sdk::levelFromString, kLevels);
  b.autofix = f["autofix"].boolean();
  b.scope = f["scope"].string();
  b.scope_reason = f["scope_reason"].string();
  b.steps = f["steps"].strings();
  b.effort_first = f["effort_first"].number();
  b.effort_each = f["effort_each"].number();
  b.effort_days = f["effort_days"].number();
  return b;
}

sdk::GoalResult readGoal(const Field& f) {
  sdk::GoalResult g;
  g.name = f["name"].string();
  g.title = f["title"].string();
  g.bottlenecks = f["bottlenecks"].strings();
  g.findings = f["findings"].size();
  g.effort_days = f["effort_days"].number();
  g.effort_weeks = f["effort_weeks"].number();
  g.verdict = f["verdict"].string();
  g.blockers = f["blockers"].strings();
  return g;
}

sdk::Assessment readAssessment(const Field& f) {
  sdk::Assessment a;
  a.producer = f["producer"].string();
  a.active_phases = f["active_phases"].strings();
  a.matrix = f["matrix"].list([](const Field& r) {
    sdk::MatrixRow row;
    row.dependency = r["dependency"].string();
    row.domain = r["domain"].string();
    row.phases = r["phases"].strings();
    row.priority = r["priority"].string();
    row.replacement = r["replacement"].string();
    row.bottlenecks = r["bottlenecks"].strings();
    row.effort_days = r["effort_days"].number();
    return row;
  });
  a.full = readGoal(f["full"]);
  a.goals = f["goals"].list(readGoal);
  a.chosen_goal = f["chosen_goal"].string();
  a.unreached_files = f["unreached_files"].strings();
  a.notes = f["notes"].strings();
  return a;
}

}  // namespace

PlanResult readPlanJson(const Field& plan, std::size_t finding_count) {
  PlanResult p;
  p.computed = true;
  GraphIndex index;
  p.graph = readGraph(plan["import_graph"], index);
  p.structure = readStructure(plan["structure"], index);
  p.bottlenecks = plan["bottlenecks"].list([&](const Field& b) { return readBottleneck(b, finding_count); });
  const Field assessment = plan["assessment"];
  if (!assessment.isNull()) p.assessment = readAssessment(assessment);
  return p;
}

}  // namespace migrate
