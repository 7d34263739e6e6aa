// DIST-008..011 in launch scripts: NCCL_* / TORCH_NCCL_* variables set or read in shell scripts
// (*.sh, *.bash), Makefiles (`mpirun -x NCCL_MIN_NRINGS=4` in a recipe), Dockerfiles, the shell
// steps of CI workflows and the shell blocks of a Markdown guide (the README's training command). Comments
// and echo/printf lines are prose, not settings (an assignment echoed into a file, `echo "NCCL_P2P_DISABLE=1"
// >> ~/.deepspeed_env`, is one). And in Python, settings named after such a variable and given a string
// (checkEnvironmentFields).

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "distributed_checks.hpp"
#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/container_recipe.hpp"
#include "migrate/sdk/install_guide.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/shell_text.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

bool isScript(const FileEntry& file) {
  if (file.language == Language::Shell || plugin_support::isMakefile(file.path)) return true;
  const std::string& p = file.path;
  return plugin_support::isDockerfile(p) || (p.size() >= 4 && p.compare(p.size() - 4, 4, ".zsh") == 0);
}

/// The edits renaming every occurrence of `name` on the line (NCCL → HCCL inside the name).
void renameAll(std::string_view code, std::uint32_t line_offset, const std::string& name, Finding& f) {
  const std::size_t nccl = name.find("NCCL");
  for (std::size_t pos = code.find(name); pos != std::string_view::npos; pos = code.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    const bool before =
        pos == 0 || !(std::isalnum(static_cast<unsigned char>(code[pos - 1])) || code[pos - 1] == '_');
    const bool after =
        end >= code.size() || !(std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_');
    if (!before || !after) continue;
    const auto at = static_cast<std::uint32_t>(line_offset + pos + nccl);
    f.edits.push_back({at, at + 4, "HCCL"});
  }
}

/// `kind` is "script", or "guide" for a Markdown page's shell blocks: reported there without the
/// rename edits, since the page shows the command rather than runs it.
void scanScript(const std::string& path, const std::string& text, const RuleTable& rules, FindingSink& sink,
                const char* kind = "script") {
  static const RE2 kVariable(R"((^|[^\w])((?:TORCH_)?NCCL_[A-Z0-9_]+))", plugin_support::bytePattern());
  const LineIndex index(text);
  plugin_support::forEachShellCodeLine(text, [&](std::size_t offset, const std::string& code) {
    std::vector<std::string> seen;
    plugin_support::forEachMatch(kVariable, code, [&](const auto& groups) {
      const std::string name = plugin_support::str(groups[2]);
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) return;
      seen.push_back(name);
      const RuleInfo* rule = environmentRule(name, rules);
      if (rule == nullptr) return;
      const auto start =
          static_cast<std::uint32_t>(offset + static_cast<std::size_t>(groups[2].data() - code.data()));
      const SourceRange range = index.range(start, start + static_cast<std::uint32_t>(name.size()));
      Finding f = findingFrom(*rule, path, range, name, {}, {{"value", name}});
      f.details["variable"] = name;
      f.details["file_kind"] = kind;
      if ((rule == rules.env_ifname || rule == rules.env_errors) && std::string_view(kind) == "script")
        renameAll(code, static_cast<std::uint32_t>(offset), name, f);
      sink.report(std::move(f));
    });
  });
}

}  // namespace

const RuleInfo* environmentRule(std::string_view name, const RuleTable& rules) {
  // Whole names (FullMatch).
  static const RE2 kIfname(R"(NCCL_SOCKET_IFNAME)", plugin_support::bytePattern());
  static const RE2 kErrors(R"((?:TORCH_)?NCCL_(?:ASYNC_ERROR_HANDLING|BLOCKING_WAIT|DESYNC_DEBUG))",
                           plugin_support::bytePattern());
  static const RE2 kDebug(R"(NCCL_DEBUG(?:_SUBSYS|_FILE)?)", plugin_support::bytePattern());
  static const RE2 kAny(R"((?:TORCH_)?NCCL_[A-Z0-9_]+)", plugin_support::bytePattern());
  // Build and install variables (the NCCL package itself belongs to the deps domain).
  static const RE2 kInstall(
      R"((?:TORCH_)?NCCL_(?:VERSION|VER|HOME|ROOT|ROOT_DIR|DIR|INCLUDE|INCLUDE_DIR|LIB|LIB_DIR|LIBRARY|LIBRARIES|PATH))",
      plugin_support::bytePattern());
  const re2::StringPiece n(name.data(), name.size());
  if (RE2::FullMatch(n, kIfname)) return rules.env_ifname;
  if (RE2::FullMatch(n, kErrors)) return rules.env_errors;
  if (RE2::FullMatch(n, kDebug)) return rules.env_debug;
  if (RE2::FullMatch(n, kInstall)) return nullptr;
  if (RE2::FullMatch(n, kAny)) return rules.env_other;
  return nullptr;
}

void checkScriptEnvironment(const WorkspaceView& workspace, const RuleTable& rules, FindingSink& sink) {
  for (const FileEntry& file : workspace.files()) {
    const bool workflow = isCiWorkflow(file.path);         // its shell steps (`run: |`)
    const bool recipe = isContainerRecipePath(file.path);  // a Singularity recipe's `%post`, …
    const bool page = mayBeInstallGuide(file.path);        // a guide's shell blocks, once read
    if (!isScript(file) && !workflow && !recipe && !page) continue;
    const auto text = workspace.read(file.path);
    if (!text || text->find("NCCL_") == std::string::npos) continue;
    if (page) {
      if (isInstallGuide(file.path, *text))
        scanScript(file.path, installGuideScript(*text), rules, sink, "guide");
    } else if (workflow)
      scanScript(file.path, ciWorkflowScript(*text), rules, sink);
    else if (recipe && isContainerRecipe(file.path, *text))  // not a C macro table named *.def
      scanScript(file.path, containerRecipeScript(*text), rules, sink);
    else if (isScript(file))
      scanScript(file.path, *text, rules, sink);
  }
}

void checkEnvironmentFields(const Module& module, const RuleTable& rules, FindingSink& sink) {
  const std::string_view source = module.source();
  if (source.find("NCCL_") == std::string_view::npos) return;
  for (const StringFact& s : module.strings()) {
    if (s.context != StringContext::Assignment || s.name.find("NCCL_") == std::string::npos) continue;
    // The target as written: `NCCL_DEBUG: str = "INFO"` in a settings class, `self.NCCL_…`; a dict
    // key (`{"NCCL_DEBUG": "INFO"}`) is a string, which the environment rules read themselves.
    const std::string name =
        s.name.substr(s.name.rfind('.') == std::string::npos ? 0 : s.name.rfind('.') + 1);
    const RuleInfo* rule = environmentRule(name, rules);
    if (rule == nullptr) continue;
    const std::size_t line_start = source.rfind('\n', s.range.start_byte) + 1;  // npos + 1 == 0
    const std::string_view before = source.substr(line_start, s.range.start_byte - line_start);
    if (before.find('"' + name) != std::string_view::npos ||
        before.find('\'' + name) != std::string_view::npos)
      continue;
    Finding f = findingFrom(*rule, std::string(module.path()), s.range, name, {}, {{"value", name}});
    f.details["variable"] = name;
    f.details["context"] = "assigned-to:" + s.name;
    sink.report(std::move(f));
  }
}

}  // namespace distributed
