#include "outputs/plan_json.hpp"

#include <nlohmann/json.hpp>

namespace migrate {
namespace {

using nlohmann::ordered_json;

ordered_json entryPointJson(const sdk::EntryPoint& e, const std::vector<sdk::ModuleNode>& graph) {
  ordered_json modules = ordered_json::array();
  for (std::size_t m : e.modules) modules.push_back(m < graph.size() ? graph[m].path : "");
  return {{"kind", sdk::toString(e.kind)}, {"name", e.name},     {"file", e.file},
          {"launcher", e.launcher},        {"modules", modules}, {"labels", e.labels}};
}

ordered_json structureJson(const CodeStructure& s, const std::vector<sdk::ModuleNode>& graph) {
  ordered_json languages = ordered_json::array();
  for (const auto& l : s.languages)
    languages.push_back({{"language", l.language}, {"files", l.files}, {"lines", l.lines}});
  ordered_json libraries = ordered_json::array();
  for (const auto& l : s.libraries)
    libraries.push_back(
        {{"name", l.name}, {"modules", l.modules}, {"declared", l.declared}, {"verdict", l.verdict}});
  ordered_json core = ordered_json::array();
  for (const auto& c : s.core_modules)
    core.push_back(
        {{"path", c.path}, {"description", c.description}, {"importers", c.importers}, {"lines", c.lines}});
  ordered_json entries = ordered_json::array();
  for (const auto& e : s.entry_points) entries.push_back(entryPointJson(e, graph));
  ordered_json models = ordered_json::array();
  for (const auto& m : s.models) {
    ordered_json layers = ordered_json::object();
    for (const auto& [cat, types] : m.layers) layers[cat] = types;
    models.push_back({{"name", m.name},
                      {"path", m.path},
                      {"line", m.line},
                      {"description", m.description},
                      {"layers", layers},
                      {"submodules", m.submodules},
                      {"custom_ops", m.custom_ops}});
  }
  return {{"files", s.files},       {"lines", s.lines},     {"languages", languages},
          {"libraries", libraries}, {"core_modules", core}, {"entry_points", entries},
          {"models", models}};
}

ordered_json bottleneckJson(const sdk::Bottleneck& b) {
  return {{"id", b.id},
          {"rule_id", b.rule_id},
          {"domain", b.domain},
          {"title", b.title},
          {"apis", b.apis},
          {"npu_alternative", b.npu_alternative},
          {"findings", b.findings},
          {"severity", sdk::toString(b.severity)},
          {"difficulty", sdk::toString(b.difficulty)},
          {"autofix", b.autofix},
          {"scope", b.scope},
          {"scope_reason", b.scope_reason},
          {"steps", b.steps},
          {"effort_first", b.effort_first},
          {"effort_each", b.effort_each},
          {"effort_days", b.effort_days}};
}

ordered_json goalJson(const sdk::GoalResult& g) {
  return {{"name", g.name},
          {"title", g.title},
          {"bottlenecks", g.bottlenecks},
          {"findings", g.findings},
          {"effort_days", g.effort_days},
          {"effort_weeks", g.effort_weeks},
          {"verdict", g.verdict},
          {"blockers", g.blockers}};
}

ordered_json assessmentJson(const sdk::Assessment& a) {
  ordered_json matrix = ordered_json::array();
  for (const auto& r : a.matrix)
    matrix.push_back({{"dependency", r.dependency},
                      {"domain", r.domain},
                      {"phases", r.phases},
                      {"priority", r.priority},
                      {"replacement", r.replacement},
                      {"bottlenecks", r.bottlenecks},
                      {"effort_days", r.effort_days}});
  ordered_json goals = ordered_json::array();
  for (const auto& g : a.goals) goals.push_back(goalJson(g));
  return {{"producer", a.producer},
          {"active_phases", a.active_phases},
          {"matrix", matrix},
          {"full", goalJson(a.full)},
          {"goals", goals},
          {"chosen_goal", a.chosen_goal},
          {"unreached_files", a.unreached_files},
          {"notes", a.notes}};
}

}  // namespace

ordered_json planJson(const PlanResult& plan) {
  ordered_json graph = ordered_json::array();
  for (const auto& n : plan.graph) {
    ordered_json imports = ordered_json::array();
    for (std::size_t i : n.imports) imports.push_back(plan.graph[i].path);
    graph.push_back(
        {{"path", n.path}, {"module", n.dotted_name}, {"imports", imports}, {"libraries", n.libraries}});
  }
  ordered_json bottlenecks = ordered_json::array();
  for (const auto& b : plan.bottlenecks) bottlenecks.push_back(bottleneckJson(b));
  return {{"structure", structureJson(plan.structure, plan.graph)},
          {"import_graph", graph},
          {"bottlenecks", bottlenecks},
          {"assessment", plan.assessment ? assessmentJson(*plan.assessment) : ordered_json(nullptr)}};
}

}  // namespace migrate
