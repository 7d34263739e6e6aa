// The deps plugin's emit hook: requirements-npu.txt rendered from
// templates/requirements-npu.txt.mustache (see requirements_npu.hpp).

#include <algorithm>
#include <iterator>
#include <tuple>

#include "requirements_npu.hpp"

namespace deps {

void emitNpuRequirements(migrate::sdk::EmitContext& context) {
  // Every dependency: the findings and the rows that need no change (kept as declared), merged
  // back into findings.json's order.
  // Only this plugin's findings are read, so only they are copied.
  std::vector<migrate::sdk::Finding> own;
  std::copy_if(context.findings().begin(), context.findings().end(), std::back_inserter(own),
               [](const migrate::sdk::Finding& f) { return f.domain == "deps"; });
  std::vector<migrate::sdk::Finding> all;
  auto key = [](const migrate::sdk::Finding& f) {
    return std::tie(f.file, f.range.line, f.range.column, f.rule_id, f.range.end_line, f.range.end_column);
  };
  std::merge(own.begin(), own.end(), context.dependencies().begin(), context.dependencies().end(),
             std::back_inserter(all), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  const auto plan = planNpuRequirements(all, context.workspace());
  if (!plan) return;
  migrate::sdk::TemplateData data;
  data.setEmptyList("sources");
  data.setEmptyList("notes");
  data.setEmptyList("sections");
  for (const auto& s : plan->sources) data.addItem("sources").set("text", s);
  for (const auto& n : plan->notes) data.addItem("notes").set("text", n);
  for (const auto& section : plan->sections) {
    if (section.lines.empty()) continue;
    auto& item = data.addItem("sections");
    item.set("title", section.title);
    item.setEmptyList("lines");
    for (const auto& line : section.lines) item.addItem("lines").set("text", line);
  }
  context.writeFile("requirements-npu.txt", context.render("requirements-npu.txt", data));
}

}  // namespace deps
