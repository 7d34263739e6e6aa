// Singularity / Apptainer recipes: the Docker image a recipe starts from is judged as a
// Dockerfile's FROM (DEP-010), and its shell sections (`%post`, …) are read as a shell script.

#include "manifest.hpp"
#include "migrate/sdk/container_recipe.hpp"
#include "migrate/sdk/text_position.hpp"

namespace deps {

void readContainerRecipe(const std::string& path, std::string_view text, Manifests& out) {
  if (!migrate::sdk::isContainerRecipe(path, text)) return;  // a C macro table named *.def
  if (const auto from = migrate::sdk::containerRecipeBaseImage(text)) {
    const std::string image(text.substr(from->first, from->second - from->first));
    BaseImageUse img{path, migrate::sdk::LineIndex(text).range(from->first, from->second), image, image};
    img.source = "singularity";
    out.images.push_back(std::move(img));
  }
  readShellScript(path, migrate::sdk::containerRecipeScript(text), out);
}

}  // namespace deps
