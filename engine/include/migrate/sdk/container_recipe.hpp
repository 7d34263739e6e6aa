#pragma once
/// Singularity / Apptainer definition files (`Singularity`, `Singularity.gpu`, `Apptainer`, a `*.def`
/// that opens with a `Bootstrap:` header), the container recipes of HPC clusters. The image a recipe
/// starts from (`From: nvidia/cuda:…` under `Bootstrap: docker`) is what a Dockerfile's FROM is,
/// and its shell sections (`%post`, `%environment`, `%runscript`, …) are the project's setup script.
/// Plugins read those sections as they read a shell script, with the recipe's line numbers.

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace migrate::sdk {

namespace container_recipe_detail {

inline std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Calls `line(begin, text_of_line)` for every line of `text` (a trailing `\r` dropped).
template <typename F>
void forEachLine(std::string_view text, F&& line) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(begin, end - begin);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!line(begin, l)) return;
    begin = end + 1;
  }
}

/// `Key: value` of a header line, the key lower-cased; an empty key when the line is no such line.
inline std::pair<std::string, std::string_view> headerField(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  std::string_view key = line.substr(0, colon);
  for (char c : key)
    if (!std::isalpha(static_cast<unsigned char>(c))) return {};
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return {lowered(key), value};
}

/// Sections whose body the build or the container runs as shell (the others hold labels, help
/// text, file lists or arguments).
inline bool shellSection(std::string_view name) {
  const std::string n = lowered(name);
  for (const char* s : {"post", "setup", "environment", "runscript", "startscript", "test", "appinstall",
                        "appenv", "apprun", "appsetup", "apptest", "appstart"})
    if (n == s) return true;
  return false;
}

}  // namespace container_recipe_detail

/// Whether a repository path is named like a Singularity / Apptainer recipe. A `*.def` is also the
/// name of C macro tables and Windows module definitions: `isContainerRecipe` checks the text too.
inline bool isContainerRecipePath(std::string_view path) {
  const std::string_view name =
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  for (std::string_view stem : {std::string_view("Singularity"), std::string_view("Apptainer")})
    if (name == stem || (name.size() > stem.size() + 1 && name.compare(0, stem.size(), stem) == 0 &&
                         name[stem.size()] == '.'))
      return true;
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".def") == 0;
}

/// Whether a file is a Singularity / Apptainer recipe: named like one, and its first line that is
/// neither blank nor a comment is the `Bootstrap:` header.
inline bool isContainerRecipe(std::string_view path, std::string_view text) {
  if (!isContainerRecipePath(path)) return false;
  bool recipe = false;
  container_recipe_detail::forEachLine(text, [&](std::size_t, std::string_view line) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') return true;
    recipe = container_recipe_detail::headerField(line.substr(first)).first == "bootstrap";
    return false;
  });
  return recipe;
}

/// The byte range of the Docker image a recipe starts from: the `From:` value of a header whose
/// `Bootstrap:` agent pulls from a Docker registry or daemon (`docker`, `docker-daemon`,
/// `docker-archive` names a file); none for other agents (`localimage`, `library`, `debootstrap`).
inline std::optional<std::pair<std::size_t, std::size_t>> containerRecipeBaseImage(std::string_view text) {
  std::string agent;
  std::optional<std::pair<std::size_t, std::size_t>> from;
  container_recipe_detail::forEachLine(text, [&](std::size_t begin, std::string_view line) {
    if (!line.empty() && line.front() == '%') return false;  // the header ends at the first section
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') return true;
    const auto [key, value] = container_recipe_detail::headerField(line.substr(first));
    if (key == "bootstrap") agent = container_recipe_detail::lowered(value);
    if (key == "from" && !value.empty()) {
      const std::size_t at = begin + static_cast<std::size_t>(value.data() - line.data());
      from = std::make_pair(at, at + value.size());
    }
    return true;
  });
  if (agent != "docker" && agent != "docker-daemon") return std::nullopt;
  return from;
}

/// The shell sections of a recipe as one script laid out byte for byte like the file: the lines
/// under `%post`, `%environment`, `%runscript`, … are kept, every other character (the header,
/// section lines, `%labels`, `%help`, `%files`) is blanked to a space (newlines kept), so a
/// position in the script is the same position in the recipe.
inline std::string containerRecipeScript(std::string_view text) {
  std::string script(text.size(), ' ');
  bool shell = false;
  container_recipe_detail::forEachLine(text, [&](std::size_t begin, std::string_view line) {
    if (!line.empty() && line.front() == '%') {
      std::size_t end = 1;
      while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
        ++end;
      shell = container_recipe_detail::shellSection(line.substr(1, end - 1));
      return true;
    }
    if (shell) script.replace(begin, line.size(), line);
    return true;
  });
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') script[i] = '\n';
  return script;
}

}  // namespace migrate::sdk
