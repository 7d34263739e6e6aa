#pragma once
/// CI workflow specifications (GitHub Actions, Azure Pipelines, GitLab CI, Lightning, CircleCI,
/// Buildkite): the shell steps of their jobs (`run: |` blocks, `script:` lists) are the project's
/// CI setup script, the one that installs the CUDA wheels and asks nvidia-smi for the GPUs. Plugins
/// that read setup scripts read these steps the same way, with the workflow's line numbers; the
/// rest of the YAML (job names, matrices, conditions) is not read as shell.

#include <cstddef>
#include <string>
#include <string_view>

namespace migrate::sdk {

namespace ci_workflow_detail {

inline bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Whether `key` names a shell step: GitHub's and Lightning's `run`, Azure's `script` / `bash`,
/// GitLab's `script` / `before_script` / `after_script`, CircleCI's `command`, Buildkite's `commands`.
inline bool shellKey(std::string_view key) {
  return key == "run" || key == "script" || key == "bash" || key == "sh" || key == "before_script" ||
         key == "after_script" || key == "command" || key == "commands";
}

}  // namespace ci_workflow_detail

/// Whether a repository path is a CI workflow specification (YAML): `.github/workflows/*.yml`, a
/// composite action (`.github/actions/*/action.yml`), Azure Pipelines (`azure-pipelines.yml`,
/// `.azure*/`), GitLab CI (`.gitlab-ci.yml`, `.gitlab/ci/`), Lightning (`.lightning/workflows/`),
/// CircleCI (`.circleci/config.yml`) and Buildkite (`.buildkite/`).
inline bool isCiWorkflow(std::string_view path) {
  using ci_workflow_detail::endsWith;
  if (!endsWith(path, ".yml") && !endsWith(path, ".yaml")) return false;
  const std::string_view name =
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  auto under = [&](std::string_view dir) {  // at the root or below a folder
    for (std::size_t at = path.find(dir); at != std::string_view::npos; at = path.find(dir, at + 1))
      if (at == 0 || path[at - 1] == '/') return true;
    return false;
  };
  if (under(".github/workflows/") || under(".lightning/workflows/") || under(".gitlab/ci/") ||
      under(".buildkite/") || under(".azure-pipelines/") || under(".azure/") || under(".azure_pipelines/"))
    return true;
  if (under(".github/actions/") && (name == "action.yml" || name == "action.yaml")) return true;
  if (under(".circleci/") && (name == "config.yml" || name == "config.yaml")) return true;
  return name == ".gitlab-ci.yml" || name.rfind("azure-pipelines", 0) == 0;
}

/// The shell steps of a CI workflow as one script laid out byte for byte like the file: the lines
/// of a `run: |` (or `>`) block, the value of an inline `run: cmd`, the items of a `script:` list
/// (`- cmd`); every other character is blanked to a space (newlines kept), so a position in the
/// script (line, column, byte offset) is the same position in the workflow.
inline std::string ciWorkflowScript(std::string_view text) {
  std::string script(text.size(), ' ');
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') script[i] = '\n';
  auto copy = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) script[i] = text[i];
  };
  enum class In { Nothing, Block, List } in = In::Nothing;
  std::size_t key_column = 0;  // the column of the step's key; a block's lines are indented deeper
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t indent = line.find_first_not_of(' ');
    const bool blank = indent == std::string_view::npos || line[indent] == '#';
    if (in == In::Block && (blank || indent > key_column)) {
      if (!blank) copy(begin, begin + line.size());
      begin = end + 1;
      continue;
    }
    if (in == In::List && !blank && indent >= key_column && line.compare(indent, 2, "- ") == 0) {
      std::size_t item = indent + 2;
      while (item < line.size() && line[item] == ' ') ++item;
      copy(begin + item, begin + line.size());
      begin = end + 1;
      continue;
    }
    if (in == In::List && blank) {
      begin = end + 1;
      continue;
    }
    in = In::Nothing;
    if (blank) {
      begin = end + 1;
      continue;
    }
    // `key: value`, also as a list item (`- run: pip install …`).
    std::size_t key = indent;
    while (line.compare(key, 2, "- ") == 0) {
      key += 2;
      while (key < line.size() && line[key] == ' ') ++key;
    }
    const std::size_t colon = line.find(':', key);
    if (colon == std::string_view::npos || (colon + 1 < line.size() && line[colon + 1] != ' ')) {
      begin = end + 1;
      continue;
    }
    std::string_view name = line.substr(key, colon - key);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!ci_workflow_detail::shellKey(name)) {
      begin = end + 1;
      continue;
    }
    std::size_t value = colon + 1;
    while (value < line.size() && line[value] == ' ') ++value;
    key_column = key;
    if (value >= line.size() || line[value] == '#') {
      in = In::List;  // `script:` followed by `- cmd` items
    } else if (line[value] == '|' || line[value] == '>') {
      in = In::Block;
    } else {
      std::size_t stop = line.size();
      // A quoted command: the text inside the quotes.
      if ((line[value] == '"' || line[value] == '\'') && stop > value + 1 && line[stop - 1] == line[value]) {
        ++value;
        --stop;
      }
      copy(begin + value, begin + stop);
    }
    begin = end + 1;
  }
  return script;
}

}  // namespace migrate::sdk
