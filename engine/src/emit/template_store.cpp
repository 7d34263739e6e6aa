#include "emit/template_store.hpp"

#include <fstream>
#include <sstream>

#include "emit/mustache.hpp"
#include "migrate/sdk/version.hpp"

std::string_view migrateEmbeddedTemplate(std::string_view name);

namespace migrate::emit {

Result<std::string> TemplateStore::text(std::string_view name) const {
  const std::string file = std::string(name) + ".mustache";
  if (name.empty() || name.find("..") != std::string_view::npos || name.front() == '/')
    return makeError(std::string("'").append(name).append("' is not a template name"));
  if (!override_dir_.empty()) {
    const std::filesystem::path custom = override_dir_ / file;
    if (std::filesystem::exists(custom)) {
      std::ifstream in(custom, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) return makeError("cannot read template " + custom.string());
      return text.str();
    }
  }
  const std::string_view built_in = migrateEmbeddedTemplate(file);
  if (built_in.empty())
    return makeError("no template " + file + (override_dir_.empty() ? "" : " in " + override_dir_.string()) +
                     " nor among the built-in templates");
  return std::string(built_in);
}

Result<std::string> TemplateStore::render(std::string_view name, const sdk::TemplateData& data,
                                          const std::string& project) const {
  return render(name, sdk::TemplateData(data), project);
}

Result<std::string> TemplateStore::render(std::string_view name, sdk::TemplateData&& data,
                                          const std::string& project) const {
  auto source = text(name);
  if (!source) return source.error();
  if (!data.find("tool_version")) data.set("tool_version", sdk::kSdkVersion);
  if (!data.find("project")) data.set("project", project);
  if (!data.find("generated_by"))
    data.set("generated_by", std::string("migrate-pipeline ") + sdk::kSdkVersion);
  return renderMustache(std::string(name) + ".mustache", *source, data);
}

}  // namespace migrate::emit
