// The deps plugin: third-party dependencies: requirements, setup.py/cfg, pyproject, environment.yml,
// Dockerfiles, NVIDIA-only imports. Imports are rules (data, rules/imports.yaml); the manifests are
// read here and every dependency gets a verdict from the compatibility table
// (data/compatibility.yaml). See README.md for one entry per rule id and the details keys.

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <re2/re2.h>

#include "compat_table.hpp"
#include "deps_embedded_rules.hpp"
#include "manifest.hpp"
#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/install_guide.hpp"
#include "migrate/sdk/plugin.hpp"
#include "repo_path.hpp"
#include "requirements_npu.hpp"

namespace {

using namespace migrate::sdk;
using deps::DependencyUse;
using deps::Manifests;
using deps::Verdict;

/// The rule files of this plugin, in id order.
constexpr const char* kRuleFiles[] = {
    "rules/dependencies.yaml",       // DEP-001..008
    "rules/build_environment.yaml",  // DEP-009..011, DEP-024, DEP-025, DEP-030
    "rules/imports.yaml",            // DEP-012..023, DEP-026, DEP-029
    "rules/switches.yaml",           // DEP-027, DEP-028
};

/// The rules this plugin's code reports.
enum RuleIndex {
  kCompatible,
  kTorch,
  kTorchUnpaired,
  kNeedsReplacement,
  kUnsupported,
  kNotInvolved,
  kUnknown,
  kCudaBuild,
  kCudaIndex,
  kCudaImage,
  kCudaEnvironment,
  kCudaModule,
  kNvidiaApt,
  kGpuContainer,
  kRuleCount
};
constexpr const char* kRuleIds[kRuleCount] = {"DEP-001", "DEP-002", "DEP-003", "DEP-004", "DEP-005",
                                              "DEP-006", "DEP-007", "DEP-008", "DEP-009", "DEP-010",
                                              "DEP-011", "DEP-024", "DEP-025", "DEP-030"};

/// CUDA settings of container images and what replaces them on an Ascend host.
struct EnvironmentEntry {
  std::string_view name;
  std::string_view replacement;
};
constexpr EnvironmentEntry kCudaSettings[] = {
    {"CUDA_HOME", "ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME, set by sourcing CANN's set_env.sh"},
    {"CUDA_PATH", "ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME, set by sourcing CANN's set_env.sh"},
    {"CUDA_ROOT", "ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME, set by sourcing CANN's set_env.sh"},
    {"CUDA_TOOLKIT_ROOT_DIR", "ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME, set by sourcing CANN's set_env.sh"},
    {"CUDACXX", "remove it (there is no nvcc; NPU kernels are built with CANN's toolchain)"},
    {"TORCH_CUDA_ARCH_LIST", "remove it (GPU architectures mean nothing on an NPU)"},
    {"FORCE_CUDA", "remove it (it forces CUDA extension builds)"},
    {"CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"},
    {"NVIDIA_VISIBLE_DEVICES", "ASCEND_VISIBLE_DEVICES (Ascend Docker Runtime)"},
    {"NVIDIA_DRIVER_CAPABILITIES", "remove it (NVIDIA container runtime setting)"},
    {"NVIDIA_REQUIRE_CUDA", "remove it (NVIDIA container runtime setting)"},
    {"CUDA_LAUNCH_BLOCKING", "ASCEND_LAUNCH_BLOCKING"},
    {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF"},
    {"TORCH_USE_CUDA_DSA", "remove it (CUDA device-side assertions; the NPU runtime does not read it)"},
    {"CUBLAS_WORKSPACE_CONFIG",
     "remove it (cuBLAS determinism; on Ascend torch.use_deterministic_algorithms "
     "and HCCL_DETERMINISTIC=true)"},
    {"CUDA_DEVICE_MAX_CONNECTIONS", "remove it (the NPU runtime does not read it)"},
    {"CUDA_MODULE_LOADING", "remove it (the NPU runtime does not read it)"},
    {"NVIDIA_TF32_OVERRIDE", "remove it (torch.npu.matmul.allow_tf32 / the NPU's HF32 switch)"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// True for a base image that ships the CUDA stack.
// Matchers written as loops: std::regex recurses once per character and overflows the stack on a
// hostile word of megabytes (found by fuzzing; docs/fuzzing.md).

/// `gpu` as a word of an image reference: between start/end and any of - _ . / :
bool hasGpuWord(std::string_view r) {
  auto separator = [](char c) { return c == '-' || c == '_' || c == '.' || c == '/' || c == ':'; };
  for (auto at = r.find("gpu"); at != std::string_view::npos; at = r.find("gpu", at + 1))
    if ((at == 0 || separator(r[at - 1])) && (at + 3 == r.size() || separator(r[at + 3]))) return true;
  return false;
}

bool wordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool spaceChar(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// The first `name = "pkg"` (either quote) of a setup.py: the package the repository builds.
std::optional<std::string> setupPyName(std::string_view t) {
  for (auto at = t.find("name"); at != std::string_view::npos; at = t.find("name", at + 1)) {
    if (at > 0 && wordChar(t[at - 1])) continue;
    std::size_t i = at + 4;
    while (i < t.size() && spaceChar(t[i])) ++i;
    if (i == t.size() || t[i] != '=') continue;
    for (++i; i < t.size() && spaceChar(t[i]);) ++i;
    if (i == t.size() || (t[i] != '"' && t[i] != '\'')) continue;
    const std::size_t begin = ++i;
    if (i == t.size() || !std::isalnum(static_cast<unsigned char>(t[i]))) continue;
    while (i < t.size() &&
           (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '.' || t[i] == '_' || t[i] == '-'))
      ++i;
    if (i < t.size() && (t[i] == '"' || t[i] == '\'')) return std::string(t.substr(begin, i - begin));
  }
  return std::nullopt;
}

/// A PyTorch CUDA wheel index in `l`: download.pytorch.org/whl/[nightly/]cuNNN.
struct CudaIndex {
  std::string nightly;  ///< "nightly/" or empty
  std::string cuda;     ///< "cu121"
};
std::optional<CudaIndex> pytorchCudaIndex(std::string_view l) {
  static constexpr std::string_view kHost = "download.pytorch.org/whl/";
  for (auto at = l.find(kHost); at != std::string_view::npos; at = l.find(kHost, at + 1)) {
    std::size_t i = at + kHost.size();
    CudaIndex x;
    if (l.substr(i, 8) == "nightly/") {
      x.nightly = "nightly/";
      i += 8;
    }
    if (l.substr(i, 2) != "cu" || i + 2 >= l.size() || !std::isdigit(static_cast<unsigned char>(l[i + 2])))
      continue;
    std::size_t e = i + 2;
    while (e < l.size() && std::isdigit(static_cast<unsigned char>(l[e]))) ++e;
    x.cuda = std::string(l.substr(i, e - i));
    return x;
  }
  return std::nullopt;
}

bool isCudaImage(const std::string& ref, std::string& kind) {
  const std::string r = lower(ref);
  std::string repo = r.substr(0, r.find('@'));
  std::string tag;
  const auto colon = repo.rfind(':');
  if (colon != std::string::npos && repo.find('/', colon) == std::string::npos) {
    tag = repo.substr(colon + 1);
    repo = repo.substr(0, colon);
  }
  if (repo.find("nvidia/cuda") != std::string::npos) {
    kind = "nvidia/cuda";
    return true;
  }
  if (repo.rfind("nvcr.io/nvidia/", 0) == 0) {
    kind = "NGC";
    return true;
  }
  const std::string plain = repo.rfind("docker.io/", 0) == 0 ? repo.substr(10) : repo;  // Docker Hub's
  if (plain == "pytorch/pytorch") {
    kind = "pytorch/pytorch";
    return true;
  }
  // Project images whose plain name is their GPU build, on nvidia/cuda; the CPU build is
  // published as <name>-cpu (Docker Hub pages of each project).
  static const std::set<std::string> kGpuBuilds{"horovod/horovod", "stablebaselines/stable-baselines3",
                                                "stablebaselines/rl-baselines3-zoo"};
  // vLLM's server image is its CUDA build; vLLM Ascend publishes quay.io/ascend/vllm-ascend.
  if (plain == "vllm/vllm-openai") {
    kind = "vLLM's CUDA build; quay.io/ascend/vllm-ascend is vLLM Ascend's image";
    return true;
  }
  if (kGpuBuilds.count(plain)) {
    kind = "the project's GPU build; " + plain + "-cpu is the CPU one";
    return true;
  }
  if (!deps::cudaTag(tag).empty() || !deps::cudaTag(repo).empty() || hasGpuWord(r)) {
    kind = "CUDA image";
    return true;
  }
  return false;
}

class DepsPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"deps",
            "0.1.0",
            "deps",
            "third-party dependencies: requirements, setup.py/cfg, pyproject, environment.yml, Dockerfiles, "
            "NVIDIA-only imports",
            {}};
  }

  std::vector<RuleSource> ruleSources() const override {
    return embeddedRuleSources(kRuleFiles, migrateEmbeddedRule);
  }

  void configure(const PluginContext& context) override {
    for (int i = 0; i < kRuleCount; ++i) rules_[i] = &context.requireRule(kRuleIds[i]);
    for (const deps::ImportEntry& e : deps::importTable())
      import_rules_.emplace(std::string(e.rule), &context.requireRule(e.rule));
  }

  void analyzeModule(const Module& module, FindingSink& sink) const override {
    const std::string_view path = module.path();
    const auto slash = path.rfind('/');
    const bool setup_py = path.substr(slash == std::string_view::npos ? 0 : slash + 1) == "setup.py";
    Manifests m;
    if (setup_py) deps::readSetupPy(module, m);
    deps::readEmbeddedImages(module, m);
    deps::readEmbeddedCommands(module, m);
    if (!setup_py && m.images.empty() && m.dependencies.empty() && m.indexes.empty() &&
        m.nvidia_apt.empty() && m.toolkit_modules.empty() && m.gpu_containers.empty())
      return;
    report(m, {{std::string(path), std::string(module.source())}}, sink);
  }

  void analyzeRepository(const WorkspaceView& workspace, FindingSink& sink) const override {
    Manifests m;
    std::map<std::string, std::string> texts;  // files read, for fixes
    std::set<std::string> files;
    for (const FileEntry& f : workspace.files()) files.insert(f.path);
    std::set<std::string> done;
    // `text`: the file's content when the kind was told by it (read once, not twice).
    auto read = [&](const std::string& path, deps::ManifestKind kind, std::optional<std::string> text = {}) {
      if (kind == deps::ManifestKind::None || !done.insert(path).second) return;
      if (!text) text = workspace.read(path);
      if (!text) return;
      switch (kind) {
        case deps::ManifestKind::Requirements:
        case deps::ManifestKind::Constraints:
          deps::readRequirementsFile(path, *text, kind == deps::ManifestKind::Constraints, m);
          break;
        case deps::ManifestKind::SetupCfg:
          deps::readSetupCfg(path, *text, m);
          break;
        case deps::ManifestKind::Pyproject:
          deps::readPyproject(path, *text, m);
          break;
        case deps::ManifestKind::CondaEnvironment:
          deps::readCondaEnvironment(path, *text, m);
          break;
        case deps::ManifestKind::OtherYaml:  // `semantic_design.yml`: conda's by its content
          if (!deps::looksLikeCondaEnvironment(*text)) {
            // A job, deployment or Compose spec naming its container (`image: nvidia/cuda:…`).
            const auto before = m.images.size() + m.config_targets.size();
            deps::readYamlImages(path, *text, m);
            deps::readConfigTargets(path, *text, m);  // `_target_: apex.optimizers.FusedAdam`
            if (m.images.size() + m.config_targets.size() == before) return;
            break;
          }
          deps::readCondaEnvironment(path, *text, m);
          break;
        case deps::ManifestKind::Dockerfile:
          deps::readDockerfile(path, *text, m);
          break;
        case deps::ManifestKind::CogConfig:
          deps::readCogConfig(path, *text, m);
          break;
        case deps::ManifestKind::Shell:
          deps::readShellScript(path, *text, m);
          break;
        case deps::ManifestKind::Makefile:
          deps::readMakefile(path, *text, m);
          break;
        case deps::ManifestKind::InstallDoc:
          deps::readShellScript(path, migrate::sdk::installGuideScript(*text), m);
          break;
        case deps::ManifestKind::CiWorkflow:  // the job's container and its shell steps
          deps::readYamlImages(path, *text, m);
          deps::readShellScript(path, migrate::sdk::ciWorkflowScript(*text), m);
          break;
        case deps::ManifestKind::ContainerRecipe:
          deps::readContainerRecipe(path, *text, m);
          break;
        case deps::ManifestKind::None:
          return;
      }
      texts[path] = std::move(*text);
    };
    for (const FileEntry& f : workspace.files()) {
      deps::ManifestKind kind = deps::manifestKind(f.path);
      std::optional<std::string> sniffed;  // read when the kind depends on the content
      if (kind == deps::ManifestKind::None && deps::dockerfileByNameOnly(f.path))
        if (sniffed = workspace.read(f.path); sniffed && deps::looksLikeDockerfile(*sniffed))
          kind = deps::ManifestKind::Dockerfile;
      // A Markdown page with a section on setting up (`## Installation`) is a guide too.
      if (kind == deps::ManifestKind::None && migrate::sdk::mayBeInstallGuide(f.path))
        if (sniffed = workspace.read(f.path); sniffed && migrate::sdk::hasSetupHeading(*sniffed))
          kind = deps::ManifestKind::InstallDoc;
      // A script of no known extension, known by its shebang (`bin/install-apex`).
      if (kind == deps::ManifestKind::None && f.language == migrate::sdk::Language::Shell)
        kind = deps::ManifestKind::Shell;
      if (kind == deps::ManifestKind::None && deps::requirementsByNameOnly(f.path))
        if (sniffed = workspace.read(f.path); sniffed && deps::looksLikeRequirements(*sniffed))
          kind = deps::ManifestKind::Requirements;
      read(f.path, kind, std::move(sniffed));
      const auto slash = f.path.rfind('/');
      if (f.path.substr(slash == std::string::npos ? 0 : slash + 1) == "setup.py")
        if (auto text = workspace.read(f.path)) {
          if (auto name = setupPyName(*text)) m.self_names.insert(deps::normalizeName(*name));
        }
    }
    // Includes (-r, -c, file:) are read as requirements files, wherever they are and whatever
    // their name; the list grows while included files are read.
    for (std::size_t i = 0; i < m.includes.size(); ++i) {
      const deps::IncludeRef inc = m.includes[i];
      if (inc.path.find_first_of("${") != std::string::npos) continue;  // set at run time
      if (inc.path.find("://") != std::string::npos) {
        m.diagnostics.push_back(
            {Severity::Info, "include-remote", inc.from, inc.line,
             "requirements file " + inc.path + " is fetched at install time; not analysed"});
        continue;
      }
      const auto kind = inc.constraints ? deps::ManifestKind::Constraints : deps::ManifestKind::Requirements;
      const auto resolved = deps::normalizePath(deps::dirOf(inc.from), inc.path);
      if (!resolved) {
        if (inc.report_missing)
          m.diagnostics.push_back({Severity::Warning, "include-outside-repository", inc.from, inc.line,
                                   "'" + inc.path +
                                       "' points outside the repository; it is not analysed. "
                                       "Copy its dependencies into the repository to have them checked."});
        continue;
      }
      if (files.count(*resolved)) {
        read(*resolved, kind);
        continue;
      }
      if (!inc.report_missing) {
        // Shell scripts and Dockerfiles run from a directory we do not know: try the root too.
        if (auto at_root = deps::normalizePath("", inc.path); at_root && files.count(*at_root))
          read(*at_root, kind);
        continue;
      }
      m.diagnostics.push_back({Severity::Warning, "include-missing", inc.from, inc.line,
                               "'" + inc.path + "' (" + *resolved +
                                   ") is not among the analysed files of the repository; its dependencies "
                                   "are not checked"});
    }
    report(m, texts, sink);
  }

  /// requirements-npu.txt in the kit (requirements_npu.hpp).
  void emit(EmitContext& context) const override { deps::emitNpuRequirements(context); }

 private:
  void report(const Manifests& m, const std::map<std::string, std::string>& texts, FindingSink& sink) const {
    // The conda environments that pull CUDA's runtime (cudatoolkit, pytorch-cuda): a package there
    // whose CPU build would do resolves to its CUDA build (DROID-SLAM's pytorch-scatter).
    std::set<std::string> cuda_environments;
    for (const auto& d : m.dependencies) {
      if (!d.conda) continue;
      const deps::Lookup look = deps::lookupRequirement(d.req.name, d.req.extras);
      if (look.package &&
          (look.package->canonical == "cudatoolkit" || look.package->canonical == "pytorch-cuda"))
        cuda_environments.insert(d.file);
    }
    for (const auto& d : m.dependencies)
      // A requirement whose marker admits no Linux host (`triton-windows ; sys_platform ==
      // 'win32'`) is never installed on an NPU host: nothing to migrate.
      if (!m.self_names.count(deps::normalizeName(d.req.name)) &&
          (d.conda || !deps::markerExcludesLinux(d.req.marker)))
        reportDependency(d, cuda_environments, sink);
    for (const auto& x : m.indexes) reportIndex(x, texts, sink);
    for (const auto& img : m.images) reportImage(img, sink);
    for (const auto& env : m.environment) reportEnvironment(env, sink);
    for (const auto& mod : m.toolkit_modules) reportToolkitModule(mod, sink);
    for (const auto& apt : m.nvidia_apt) reportNvidiaApt(apt, sink);
    for (const auto& run : m.gpu_containers) reportGpuContainer(run, sink);
    for (const auto& target : m.config_targets) reportConfigTarget(target, sink);
    for (const auto& diag : m.diagnostics) sink.diagnose(diag);
  }

  void reportFinding(int rule, const std::string& file, const SourceRange& range, const std::string& api,
                     std::map<std::string, std::string> vars, std::map<std::string, std::string> details,
                     FindingSink& sink, std::vector<Edit> edits = {}) const {
    Finding f = findingFrom(*rules_[rule], file, range, api, {}, std::move(vars));
    for (auto& [k, v] : details)
      if (!v.empty()) f.details[k] = std::move(v);
    f.edits = std::move(edits);
    sink.report(std::move(f));
  }

  static std::string describeSource(const DependencyUse& d) {
    return d.section.empty() ? d.source : d.source + " " + d.section;
  }

  void reportDependency(const DependencyUse& d, const std::set<std::string>& cuda_environments,
                        FindingSink& sink) const {
    deps::Lookup look = deps::lookupRequirement(d.req.name, d.req.extras);
    // A package of its own name built from a CUDA-only project's repository (flash-attn's
    // `dropout_layer_norm @ git+https://github.com/Dao-AILab/flash-attention.git#subdirectory=…`)
    // has that project's verdict.
    std::string built_from;
    if (!look.known() && !d.conda && !d.req.url.empty())
      if (const std::string repo = deps::sourceRepositoryName(d.req.url); !repo.empty()) {
        const deps::Lookup from = deps::lookupPackage(repo);
        if (from.known() &&
            (from.verdict() == Verdict::NeedsReplacement || from.verdict() == Verdict::Unsupported)) {
          look = from;
          built_from = repo;
        }
      }
    const std::string package =
        look.package ? std::string(look.package->canonical) : deps::normalizeName(d.req.name);
    // A CUDA build named in the version, URL, build string or extras.
    std::string cuda = deps::cudaTag(
        d.req.spec.find('+') != std::string::npos ? d.req.spec.substr(d.req.spec.find('+')) : std::string());
    if (cuda.empty() && !d.req.url.empty() && !d.conda) cuda = deps::cudaTag(d.req.url);
    if (cuda.empty() && d.conda) cuda = deps::cudaTag(d.req.marker);
    if (cuda.empty() && !d.req.extras.empty() && lower(d.req.extras).find("cuda") != std::string::npos)
      cuda = deps::cudaTag(d.req.extras);
    // A `gpu` extra is the package's NVIDIA profile (`rembg[gpu]` pulls onnxruntime-gpu).
    if (cuda.empty() && deps::hasGpuExtra(d.req.extras)) cuda = "the gpu extra";
    if (cuda.empty() && d.conda && look.package && look.package->host_installable &&
        cuda_environments.count(d.file))
      cuda = "the environment's CUDA runtime";

    std::map<std::string, std::string> details{
        {"package", package},
        {"name", d.req.name},
        {"spec", d.req.spec},
        {"extras", d.req.extras},
        {"source", d.source},
        {"section", d.section},
        {"cuda", cuda},
        {"known", look.known() ? "true" : "false"},
        {"pattern", look.pattern ? std::string(look.pattern->glob) : ""},
        {"editable", d.editable ? "true" : ""},
        {"built_from", built_from},
    };
    if (d.conda) {
      details["ecosystem"] = "conda";
      details["channel"] = d.req.url;
      details["build"] = d.req.marker;
    } else {
      details["ecosystem"] = "pypi";
      details["marker"] = d.req.marker;
      details["url"] = d.req.url;
    }
    std::string replacement(look.replacement());
    std::string note(look.note());
    Verdict verdict = look.verdict();
    int rule = kUnknown;

    if (package == "torch") {
      torchPairing(d, replacement, note, rule, details);
      verdict = rule == kTorch ? Verdict::Compatible : Verdict::NeedsReplacement;
      if (!cuda.empty()) {
        rule = kCudaBuild;
        verdict = Verdict::NeedsReplacement;
      }
    } else if (look.package && look.package->host_installable && cuda.empty()) {
      // Installs and runs on the host (its CPU build): the line stays, a row of the matrix; the
      // code that hands it NPU tensors changes, and its imports are reported.
      rule = kNotInvolved;
    } else if (look.known() && verdict == Verdict::NeedsReplacement &&
               (cuda.empty() || !look.package || look.package->npu_requirement != "keep")) {
      // A package the NPU host keeps (its CPU build runs) but pinned to a CUDA build is DEP-008's:
      // the pin, not the package, is what changes.
      rule = kNeedsReplacement;
    } else if (look.known() && verdict == Verdict::Unsupported) {
      rule = kUnsupported;
    } else if (!cuda.empty()) {
      rule = kCudaBuild;
      replacement =
          "the CPU/aarch64 build of " + d.req.name + (replacement.empty() ? "" : " (" + replacement + ")");
      verdict = Verdict::NeedsReplacement;
    } else if (look.known()) {
      rule = verdict == Verdict::Compatible ? kCompatible : kNotInvolved;
    } else {
      verdict = Verdict::NotInvolved;
      note =
          "Not in the compatibility table: assumed to have no CUDA code; check that it ships no CUDA "
          "extension.";
    }
    if (rule == kCudaBuild && package == "torch")
      replacement = "torch" +
                    (details["torch_npu_torch"].empty() ? std::string() : "==" + details["torch_npu_torch"]) +
                    " from PyPI (aarch64) or the CPU index (x86), plus " + details["torch_npu"];
    details["verdict"] = std::string(deps::verdictName(verdict));
    details["replacement"] = replacement;
    details["note"] = note;
    std::map<std::string, std::string> vars{
        {"npu", !replacement.empty()        ? replacement
                : rule == kUnsupported      ? "none (remove it)"
                : rule == kNeedsReplacement ? "its CPU or Ascend build"
                                            : "keep " + d.req.name},
        {"note", note.empty() ? "" : " " + note},
        {"source", describeSource(d)},
        {"verdict", std::string(deps::verdictName(verdict))},
        {"value", d.written},
        {"cuda", cuda},
        {"torch_npu", details["torch_npu"]},
    };
    // A dependency that needs no change is a row of the dependency matrix, not a finding.
    if (rule == kCompatible || rule == kNotInvolved || rule == kUnknown) details[kRowDetail] = "dependency";
    reportFinding(rule, d.file, d.range, d.req.name, std::move(vars), std::move(details), sink);
  }

  /// torch ↔ torch_npu: the release matching the specifier (DEP-002), or none (DEP-003).
  static void torchPairing(const DependencyUse& d, std::string& replacement, std::string& note, int& rule,
                           std::map<std::string, std::string>& details) {
    const auto releases = deps::torchNpuReleases();
    auto describe = [&](const deps::TorchNpuRelease& r) {
      details["torch_npu"] = "torch_npu==" + std::string(r.latest);
      details["torch_npu_torch"] = std::string(r.torch);
      details["cann"] = std::string(r.cann);
    };
    const deps::TorchNpuRelease* checked = nullptr;  // the release the knowledge files were checked against
    for (const auto& r : releases)
      if (r.torch == deps::kCheckedTorch) checked = &r;
    const std::string spec = d.req.spec.substr(0, d.req.spec.find('+'));
    if (const auto pin = deps::exactPin(d.req.spec, d.dialect)) {
      const auto v = deps::parseVersion(*pin);
      for (const auto& r : releases) {
        if (v && deps::compareVersions(*v, *deps::parseVersion(r.torch)) == 0) {
          describe(r);
          rule = kTorch;
          replacement = "torch==" + std::string(r.torch) + " + " + details["torch_npu"];
          if (!r.maintained)
            note += " torch_npu for torch " + std::string(r.torch) + " is no longer maintained.";
          return;
        }
      }
      // Suggest a release of the same minor version (2.1.2 → 2.1.0), else the nearest maintained one
      // above the pin.
      const deps::TorchNpuRelease* best = nullptr;
      for (const auto& r : releases) {
        const auto rv = *deps::parseVersion(r.torch);
        if (v && v->size() >= 2 && rv[0] == (*v)[0] && rv[1] == (*v)[1]) best = &r;
      }
      for (const auto& r : releases)
        if (!best && r.maintained && v && deps::compareVersions(*deps::parseVersion(r.torch), *v) >= 0)
          best = &r;
      if (!best) best = checked;
      if (best) describe(*best);
      rule = kTorchUnpaired;
      replacement = "torch==" + details["torch_npu_torch"] + " + " + details["torch_npu"];
      note = "torch " + *pin + " has no torch_npu release; torch_npu exists for torch " + releaseList() + ".";
      return;
    }
    std::vector<const deps::TorchNpuRelease*> allowed;
    bool evaluated = true;
    for (const auto& r : releases) {
      const auto ok = deps::specAllows(spec, *deps::parseVersion(r.torch), d.dialect);
      if (!ok) evaluated = false;
      if (ok && *ok) allowed.push_back(&r);
    }
    if (!evaluated && allowed.empty()) {
      if (checked) describe(*checked);
      rule = kTorch;
      replacement = "torch + torch_npu of the same version (e.g. torch==" + std::string(deps::kCheckedTorch) +
                    " + " + details["torch_npu"] + ")";
      note += " The version specifier '" + d.req.spec + "' could not be evaluated.";
      return;
    }
    if (allowed.empty()) {
      if (checked) describe(*checked);
      rule = kTorchUnpaired;
      replacement = "torch==" + details["torch_npu_torch"] + " + " + details["torch_npu"];
      note = "no torch_npu release satisfies '" + d.req.spec + "'; torch_npu exists for torch " +
             releaseList() + ".";
      return;
    }
    const deps::TorchNpuRelease* pick = nullptr;
    for (const auto* r : allowed)
      if (r == checked) pick = r;
    if (!pick)
      for (const auto* r : allowed)
        if (r->maintained) pick = r;  // the newest maintained one (the table is in version order)
    if (!pick) pick = allowed.back();
    describe(*pick);
    rule = kTorch;
    replacement = "torch==" + std::string(pick->torch) + " + " + details["torch_npu"];
  }

  static std::string releaseList() {
    std::string out;
    for (const auto& r : deps::torchNpuReleases())
      if (r.maintained) out += (out.empty() ? "" : ", ") + std::string(r.torch);
    return out;
  }

  void reportIndex(const deps::IndexUse& x, const std::map<std::string, std::string>& texts,
                   FindingSink& sink) const {
    if (!deps::isCudaIndex(x.url)) return;
    const std::string l = lower(x.url);
    std::string replacement =
        "the default PyPI index (aarch64 wheels) or https://download.pytorch.org/whl/cpu (x86); torch_npu "
        "comes "
        "from PyPI";
    std::vector<Edit> edits;
    if (const auto index = pytorchCudaIndex(l)) {
      replacement = x.url;  // the same URL with cuXXX → cpu (…/whl/cpu, …/whl/cpu/torch_stable.html)
      if (const auto at = l.find("/whl/" + index->nightly + index->cuda); at != std::string::npos)
        replacement.replace(at + 5 + index->nightly.size(), index->cuda.size(), "cpu");
      // The fix: cuXXX → cpu inside the URL, where the file holds it verbatim.
      auto it = texts.find(x.file);
      const SourceRange& url_at = x.url_range.end_byte > 0 ? x.url_range : x.range;
      if (it != texts.end() && url_at.end_byte <= it->second.size()) {
        const std::string written = it->second.substr(url_at.start_byte, url_at.end_byte - url_at.start_byte);
        const auto at = written.find(x.url);
        const auto seg = at == std::string::npos ? std::string::npos : written.find(index->cuda, at);
        if (seg != std::string::npos)
          edits.push_back({static_cast<std::uint32_t>(url_at.start_byte + seg),
                           static_cast<std::uint32_t>(url_at.start_byte + seg + index->cuda.size()), "cpu"});
      }
    } else if (x.option == "channel" || x.option == "channels" || x.source == "conda") {
      replacement = "conda-forge / defaults without the CUDA packages (torch_npu comes from PyPI)";
    } else if (x.option == "--torch-backend") {
      replacement = "--torch-backend=cpu";
    } else if (x.option == "--extra") {
      replacement = "the project's CPU extra (torch from the CPU index); torch_npu comes from PyPI";
    }
    std::map<std::string, std::string> vars{
        {"npu", replacement}, {"value", x.url}, {"source", x.source}, {"option", x.option}};
    std::map<std::string, std::string> details{{"url", x.url},
                                               {"option", x.option},
                                               {"source", x.source},
                                               {"cuda", deps::cudaTag(x.url)},
                                               {"verdict", "needs replacement"},
                                               {"replacement", replacement}};
    reportFinding(kCudaIndex, x.file, x.range, x.url, std::move(vars), std::move(details), sink,
                  std::move(edits));
  }

  void reportImage(const deps::BaseImageUse& img, FindingSink& sink) const {
    std::string kind;
    if (!isCudaImage(img.resolved, kind) && !isCudaImage(img.written, kind)) return;
    const std::string replacement =
        "a CANN base image (e.g. quay.io/ascend/cann:<CANN version>-<chip>-<os>-py<version>) with torch and "
        "torch_npu of the same version installed";
    std::map<std::string, std::string> vars{{"npu", replacement}, {"value", img.resolved}, {"kind", kind}};
    std::map<std::string, std::string> details{{"image", img.written},
                                               {"resolved", img.resolved},
                                               {"kind", kind},
                                               {"source", img.source},
                                               {"cuda", deps::cudaTag(img.resolved)},
                                               {"verdict", "needs replacement"},
                                               {"replacement", replacement}};
    reportFinding(kCudaImage, img.file, img.range, img.written, std::move(vars), std::move(details), sink);
  }

  void reportEnvironment(const deps::EnvironmentUse& env, FindingSink& sink) const {
    std::string replacement;
    for (const auto& e : kCudaSettings)
      if (env.name == e.name) replacement = std::string(e.replacement);
    // CUDA_ARCHITECTURES, CMAKE_CUDA_ARCHITECTURES, TCNN_CUDA_ARCHITECTURES, …: GPU targets of a build.
    if (replacement.empty() && env.name.find("CUDA_ARCH") != std::string::npos)
      replacement = "remove it (GPU architectures mean nothing on an NPU)";
    // FORCE_CUDA_EXTENSION, FORCE_CUDA_EXT: a package's own switch for its CUDA extension build.
    if (replacement.empty() && env.name.rfind("FORCE_CUDA_", 0) == 0)
      replacement = "remove it (it forces CUDA extension builds)";
    if (replacement.empty() && env.name.rfind("NCCL_", 0) == 0)
      replacement = "the HCCL_* counterpart (e.g. HCCL_CONNECT_TIMEOUT) or remove it";
    const std::string value = lower(env.value);
    if (replacement.empty() && RE2::PartialMatch(env.value, deps::cudaPathPattern()))
      replacement = env.value.find("/triton/") != std::string::npos
                        ? "remove the step (triton-ascend has no NVIDIA backend)"
                        : "the paths set by sourcing /usr/local/Ascend/ascend-toolkit/set_env.sh (CANN)";
    // DEVICE=cuda, BACKEND=nccl, HOROVOD_GPU_OPERATIONS=NCCL: the CUDA device or NCCL chosen by value.
    if (replacement.empty() && (value == "cuda" || value.rfind("cuda:", 0) == 0))
      replacement = "npu (the device torch_npu registers; \"npu:N\" for one device)";
    if (replacement.empty() && value == "nccl")
      replacement =
          "hccl for torch.distributed; a library without HCCL support (Horovod's HOROVOD_GPU_*) "
          "is built without its GPU operations";
    if (replacement.empty()) return;
    std::map<std::string, std::string> vars{
        {"npu", replacement}, {"value", env.value}, {"instruction", env.instruction}};
    std::map<std::string, std::string> details{
        {"variable", env.name},           {"value", env.value},
        {"instruction", env.instruction}, {"source", "dockerfile"},
        {"verdict", "needs replacement"}, {"replacement", replacement}};
    reportFinding(kCudaEnvironment, env.file, env.range, env.name, std::move(vars), std::move(details), sink);
  }

  void reportToolkitModule(const deps::ToolkitModuleUse& mod, FindingSink& sink) const {
    const std::string replacement =
        "the cluster's CANN module, or `source /usr/local/Ascend/ascend-toolkit/set_env.sh`";
    std::map<std::string, std::string> vars{
        {"npu", replacement}, {"value", mod.name}, {"command", mod.command}};
    std::map<std::string, std::string> details{{"module", mod.name},
                                               {"command", mod.command},
                                               {"source", "shell"},
                                               {"cuda", deps::cudaTag(mod.name)},
                                               {"verdict", "needs replacement"},
                                               {"replacement", replacement}};
    reportFinding(kCudaModule, mod.file, mod.range, mod.name, std::move(vars), std::move(details), sink);
  }

  void reportNvidiaApt(const deps::NvidiaAptUse& apt, FindingSink& sink) const {
    const std::string replacement =
        "drop the step in the NPU image (a CANN base image needs no NVIDIA repository)";
    reportFinding(kNvidiaApt, apt.file, apt.range, apt.value, {{"npu", replacement}, {"value", apt.value}},
                  {{"step", apt.value}, {"verdict", "needs replacement"}, {"replacement", replacement}},
                  sink);
  }

  void reportGpuContainer(const deps::GpuContainerRun& run, FindingSink& sink) const {
    const std::string replacement =
        "start the container with the Ascend Docker Runtime (ASCEND_VISIBLE_DEVICES selects the NPUs "
        "it mounts with the CANN driver libraries)";
    reportFinding(kGpuContainer, run.file, run.range, run.value, {{"npu", replacement}, {"value", run.value}},
                  {{"flag", run.value}, {"replacement", replacement}}, sink);
  }

  /// A config's instantiation target (or a module inline Python imports) in an NVIDIA-only module:
  /// that module's import rule, at the target (the longest module of the import table the dotted
  /// path starts with).
  void reportConfigTarget(const deps::ConfigTarget& target, FindingSink& sink) const {
    for (std::string prefix = target.target;;) {
      for (const deps::ImportEntry& e : deps::importTable())
        if (e.module == prefix) {
          Finding f = findingFrom(*import_rules_.at(std::string(e.rule)), target.file, target.range,
                                  target.target, target.target);
          f.details = {{"module", prefix}, {"package", std::string(e.package)}, {"source", target.source}};
          sink.report(std::move(f));
          return;
        }
      const auto dot = prefix.rfind('.');
      if (dot == std::string::npos) return;
      prefix.resize(dot);
    }
  }

  const RuleInfo* rules_[kRuleCount] = {};
  std::map<std::string, const RuleInfo*> import_rules_;  ///< the import rules of the import table
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(DepsPlugin)
