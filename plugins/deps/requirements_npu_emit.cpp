// The deps plugin's emit hook: requirements-npu.txt rendered from
// templates/requirements-npu.txt.mustache (see requirements_npu.hpp).

#include "requirements_npu.hpp"

namespace deps {

void emitNpuRequirements(migrate::sdk::EmitContext& context) {
  const auto plan = planNpuRequirements(context.findings(), context.workspace());
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
