#include "emit/support_modules.hpp"

#include <sstream>

namespace migrate::emit {

std::set<std::string> recordedSections(std::string_view text) {
  static constexpr std::string_view kPrefix = "# sections:";
  std::set<std::string> sections;
  const std::size_t at = text.find(kPrefix);
  if (at == std::string_view::npos || (at > 0 && text[at - 1] != '\n')) return sections;
  const std::size_t end = text.find('\n', at);
  std::istringstream words(std::string(text.substr(at + kPrefix.size(), end - at - kPrefix.size())));
  for (std::string w; words >> w;)
    if (w != "none") sections.insert(w);
  return sections;
}

bool isKnownSection(const TemplateStore& templates, const std::string& module, const std::string& section) {
  auto text = templates.text(module);
  return text && text->find("{{#" + section + "}}") != std::string::npos;
}

Result<std::string> renderCompatModule(const TemplateStore& templates, const std::string& project) {
  return templates.render(kCompatModule, sdk::TemplateData{}, project);
}

Result<std::string> renderOpsModule(const TemplateStore& templates, const std::string& project,
                                    const std::set<std::string>& sections) {
  sdk::TemplateData data;
  std::string listed;
  for (const std::string& s : sections) {
    data.setFlag(s);
    listed += (listed.empty() ? "" : " ") + s;
  }
  data.set("sections", listed.empty() ? "none" : listed);
  return templates.render(kOpsModule, data, project);
}

}  // namespace migrate::emit
