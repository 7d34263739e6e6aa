#pragma once
/// The kit's templates: the built-in ones (templates/*.mustache, embedded in the binary), each
/// replaceable by a file of the same name in the pipeline's emit.templates directory.

#include <filesystem>
#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"
#include "migrate/sdk/emit.hpp"

namespace migrate::emit {

class TemplateStore {
 public:
  explicit TemplateStore(std::filesystem::path override_dir = {}) : override_dir_(std::move(override_dir)) {}

  /// The text of template `name` ("npu_ops.py" → npu_ops.py.mustache).
  Result<std::string> text(std::string_view name) const;
  /// `name` rendered with `data`; tool_version, project and generated_by default to the run's.
  Result<std::string> render(std::string_view name, const sdk::TemplateData& data,
                             const std::string& project) const;
  /// The same, the defaults filled in `data` itself rather than in a copy of it (a fleet's
  /// dashboard holds a row per repository).
  Result<std::string> render(std::string_view name, sdk::TemplateData&& data,
                             const std::string& project) const;

 private:
  std::filesystem::path override_dir_;
};

}  // namespace migrate::emit
