#pragma once
/// What the readers of dependency manifests (requirements, setup.cfg, pyproject.toml,
/// environment.yml, Dockerfiles, shell scripts) find, before any verdict is given.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/module.hpp"
#include "migrate/sdk/text_position.hpp"

namespace re2 {
class RE2;
}
#include "requirement.hpp"

namespace deps {

/// One dependency as written in one file.
struct DependencyUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< the requirement text (or the poetry key and value)
  std::string written;              ///< the requirement as written
  Requirement req;
  SpecDialect dialect = SpecDialect::Pep440;
  std::string source;   ///< requirements | constraints | setup.py | setup.cfg | pyproject | conda | cog |
                        ///< dockerfile | shell
  std::string section;  ///< install_requires, extras_require[dev], project.dependencies, …
  bool editable = false;
  bool conda = false;  ///< a conda package (req.url holds its channel, req.marker its build string)
};

/// A package index, find-links location or conda channel.
struct IndexUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< the URL or channel name (a uv source: its index name)
  std::string url;
  std::string option;  ///< --extra-index-url, --index-url, --find-links, channel, tool.uv.index, …
  std::string source;
  /// Where the URL itself stands when the use names it elsewhere (a uv source naming an index):
  /// the fix edits it there. Empty (end_byte 0): `range`.
  migrate::sdk::SourceRange url_range{};
};

/// A `FROM` of a Dockerfile, or the base image another build file picks.
struct BaseImageUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< the image reference
  std::string written;
  std::string resolved;               ///< with ARG defaults substituted
  std::string source = "dockerfile";  ///< dockerfile | cog (the base a cog.yaml build picks) | yaml
};

/// An `ENV` / `ARG` setting of a Dockerfile.
struct EnvironmentUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< NAME=value
  std::string instruction;          ///< ENV | ARG
  std::string name;
  std::string value;
};

/// A CUDA environment module loaded by a job script (`module load cuda/11.7`, `spack load cuda`).
struct ToolkitModuleUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< the module name as written
  std::string command;              ///< "module load", "ml", "spack load", ...
  std::string name;                 ///< "cuda/11.7"
};

/// A step that uses NVIDIA's apt repositories: their source lists (`cuda.list`, `nvidia-ml.list`),
/// signing keys from developer.download.nvidia.com, the cuda-keyring package. A CANN image has
/// none of them, so the step fails there (`rm` of a list that is not there) or adds a CUDA repo.
struct NvidiaAptUse {
  std::string file;
  migrate::sdk::SourceRange range;  ///< the list path, key URL or package as written
  std::string value;
};

/// A container started on NVIDIA GPUs by a script (`docker run --gpus all`, `--runtime nvidia`,
/// `nvidia-docker`): the flag or wrapper as written.
struct GpuContainerRun {
  std::string file;
  migrate::sdk::SourceRange range;
  std::string value;
};

/// A class or function a config file names for the run to build (`_target_: apex.optimizers.FusedAdam`
/// of a Hydra config, `class_path:` of a LightningCLI one): the run imports its module. Also a
/// module the inline Python of a build or launch step imports (`python -c "import flash_attn"`).
struct ConfigTarget {
  std::string file;
  migrate::sdk::SourceRange range;
  std::string target;                    ///< the dotted path as written
  std::string source = "config target";  ///< or "inline python"
};

/// A file another file refers to (`-r`, `-c`, `file:`): read as a requirements file.
struct IncludeRef {
  std::string from;  ///< the including file
  std::uint32_t line = 0;
  std::string path;  ///< as written, relative to the including file's directory
  bool constraints = false;
  bool report_missing = true;  ///< false where the base directory is a guess (shell, Dockerfile)
};

/// `--extra NAME` / `--group NAME` of `uv sync` / `uv run` / `uv pip install`: a pyproject extra
/// or dependency group chosen at install time, as written (`cu129`, `${UV_EXTRA}`) and with the
/// reader's variables substituted.
struct ExtraUse {
  std::string file;
  migrate::sdk::SourceRange range;
  std::string written;
  std::string resolved;
};

/// Everything the readers found in the repository.
struct Manifests {
  std::vector<DependencyUse> dependencies;
  std::vector<IndexUse> indexes;
  std::vector<BaseImageUse> images;
  std::vector<EnvironmentUse> environment;
  std::vector<ToolkitModuleUse> toolkit_modules;
  std::vector<NvidiaAptUse> nvidia_apt;
  std::vector<GpuContainerRun> gpu_containers;
  std::vector<ConfigTarget> config_targets;
  std::vector<IncludeRef> includes;
  /// Filled by readInstallCommands and consumed by the reader that called it (cudaExtras).
  std::vector<ExtraUse> extras;
  std::vector<migrate::sdk::Diagnostic> diagnostics;
  /// Normalised names of the repository's own distributions (pyproject, setup.cfg, setup.py):
  /// installing them is not a third-party dependency.
  std::set<std::string> self_names;
};

/// Byte offsets of a logical line (continuations joined) in its file.
struct LogicalLine {
  std::string text;
  std::vector<std::uint32_t> offsets;  ///< file offset of each character of `text`, plus one past the end
  std::uint32_t line = 0;              ///< 1-based line of the first character
  migrate::sdk::SourceRange range(const migrate::sdk::LineIndex& index, std::size_t begin,
                                  std::size_t end) const {
    return index.range(offsets[begin], end > begin ? offsets[end - 1] + 1 : offsets[begin]);
  }
};

/// Splits a file into logical lines: a line ending in a backslash continues on the next one.
/// With `skip_comment_lines` (Dockerfile), full-line comments inside a continuation are dropped
/// and blanks after the backslash still continue the line, as Docker's parser reads them.
std::vector<LogicalLine> logicalLines(std::string_view text, bool skip_comment_lines = false);

/// requirements*.txt / constraints (pip's format).
void readRequirementsFile(const std::string& path, std::string_view text, bool constraints, Manifests& out);

/// One line of pip's requirements format (also the `pip:` list of environment.yml): a requirement,
/// an include, an index option. `range_of(begin, end)` maps offsets in `line` to the file.
using RangeOf = std::function<migrate::sdk::SourceRange(std::size_t begin, std::size_t end)>;
void readRequirementLine(const std::string& path, std::string_view line, std::uint32_t line_no,
                         const RangeOf& range_of, const std::string& source, const std::string& section,
                         Manifests& out);

/// setup.cfg: [options] install_requires / setup_requires / tests_require, [options.extras_require].
void readSetupCfg(const std::string& path, std::string_view text, Manifests& out);

/// pyproject.toml: [project], [build-system], [dependency-groups], poetry, pdm, pixi, uv/poetry indexes.
void readPyproject(const std::string& path, std::string_view text, Manifests& out);

/// environment.yml (conda): dependencies, the pip: sub-list, channels.
void readCondaEnvironment(const std::string& path, std::string_view text, Manifests& out);

/// cog.yaml (Replicate's Cog): the GPU build and its CUDA version as base images, python_packages,
/// python_requirements.
void readCogConfig(const std::string& path, std::string_view text, Manifests& out);
/// Dockerfile: FROM, ENV, ARG, and pip/conda installs in RUN.
void readDockerfile(const std::string& path, std::string_view text, Manifests& out);
/// A file whose name says docker but follows no Dockerfile naming (`tvm_docker`, `docker/gpu`):
/// worth reading to see whether it is one.
bool dockerfileByNameOnly(std::string_view path);
/// Dockerfile text: its first instruction (after comments, blank lines and ARGs) is a FROM.
bool looksLikeDockerfile(std::string_view text);
/// A text file whose name or folder says dependencies but not requirements
/// (`dependencies/recommended_gpu.txt`, `deps.txt`): worth reading to see whether it is one.
bool requirementsByNameOnly(std::string_view path);
/// Text in pip's requirements format: every line that is not blank or a comment is a pip option
/// or a requirement, and there is at least one requirement (a licence text is not).
bool looksLikeRequirements(std::string_view text);

/// The pip / conda / uv install commands of one logical shell line, from character `begin` on.
/// `variables` are substituted in package names, versions and index URLs; `pip_wrappers` are the
/// script's own functions that run `pip install "$@"`, whose calls install their arguments.
void readInstallCommands(const std::string& path, const LogicalLine& line, std::size_t begin,
                         const migrate::sdk::LineIndex& index, const std::string& source,
                         const std::map<std::string, std::string>& variables, Manifests& out,
                         const std::set<std::string, std::less<>>& pip_wrappers = {});

/// The extras and groups read since the last call that name a CUDA build (`uv sync --extra cu129`, the way
/// uv projects pick their PyTorch CUDA index) become index uses (DEP-009) where the name is
/// written: at the word, or, for a word that is only a variable, at each value `written` gives it
/// (a Dockerfile's `ARG UV_EXTRA=cu129`). `out.extras` is emptied.
void cudaExtras(
    const std::string& source,
    const std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>>& written,
    Manifests& out);

/// The NVIDIA apt repository steps of one logical shell line (a Dockerfile RUN, a script line),
/// from character `begin` on: one per line of the file, the first on it.
/// A path of the CUDA stack in a shell step or setting: under /usr/local/cuda or /usr/local/nvidia,
/// or Triton's NVIDIA backend (`…/triton/backends/nvidia/bin/ptxas`). None exists on an NPU host.
const re2::RE2& cudaPathPattern();

void readNvidiaAptSteps(const std::string& path, const LogicalLine& line, std::size_t begin,
                        const migrate::sdk::LineIndex& index, Manifests& out);

/// The containers one logical script line starts on NVIDIA GPUs: a command `docker|podman run|create`
/// with `--gpus` or `--runtime nvidia` among the options before the image, the `nvidia-docker`
/// wrapper as a command, or `apptainer|singularity exec|run|shell|instance … --nv`; one per line of
/// the file. The image a `docker|podman run|create` starts is kept too (`images`, source "docker
/// run"), for DEP-010 to judge like a Dockerfile's FROM (`vllm/vllm-openai:v0.14.1`).
void readGpuContainerRuns(const std::string& path, const LogicalLine& line, std::size_t begin,
                          const migrate::sdk::LineIndex& index, Manifests& out);

/// The modules the inline Python of one logical script line imports (`python3 -c "import
/// flash_attn, natten; print(…)"`, `python -c 'from apex import amp'`), kept as config targets
/// (source "inline python") for the import table to judge: a check that a CUDA-only package is
/// installed fails on an NPU host. Only `-c` code in quotes is read; `$(…)` values in it are not.
void readInlinePythonImports(const std::string& path, const LogicalLine& line, std::size_t begin,
                             const migrate::sdk::LineIndex& index, Manifests& out);

/// A variable's value that chooses the container a script builds or runs: a CUDA image
/// (`BASE_IMAGE="nvidia/cuda:12.1.1-base-ubuntu20.04"`, later `--build-arg BASE_IMAGE=$BASE_IMAGE`)
/// is a base image, `nvidia-docker` a container started on GPUs; both where the value is written.
void containerSetting(const std::string& path, const migrate::sdk::SourceRange& range,
                      const std::string& value, Manifests& out);

/// PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, UV_TORCH_BACKEND, …: variables pip/uv read as an index option.
bool isIndexVariable(const std::string& name);

/// Shell scripts: pip/conda install commands, CUDA environment modules, NVIDIA apt repository steps.
void readShellScript(const std::string& path, std::string_view text, Manifests& out);

/// setup.py, from the parsed module's facts: the strings of install_requires / setup_requires /
/// tests_require / extras_require, directly or through module-level variables.
void readSetupPy(const migrate::sdk::Module& module, Manifests& out);

/// Container images a Python file names in code: Dockerfile text in a string, and whole image
/// references of CUDA registries (nvidia/cuda, nvcr.io/nvidia, pytorch/pytorch), as base images.
void readEmbeddedImages(const migrate::sdk::Module& module, Manifests& out);

/// A whole image reference of a registry that serves CUDA images: `nvidia/cuda:TAG`,
/// `nvcr.io/nvidia/NAME:TAG`, `pytorch/pytorch:TAG`.
bool isCudaImageReference(const std::string& value);

/// Makefiles: images and GPU container wrappers held in variables (`BASE_IMG=nvidia/cuda:…`,
/// `DOCKER_GPU_CMD=nvidia-docker`) and the recipes' shell steps (NVIDIA apt steps, containers
/// started on GPUs).
void readMakefile(const std::string& path, std::string_view text, Manifests& out);

/// YAML specs that are not conda environments (a job file, a Kubernetes manifest, a Compose file):
/// the values of `image` keys, as base images, and a Compose service's NVIDIA GPU reservation or
/// runtime, as a container started on NVIDIA GPUs (yaml_images.cpp).
void readYamlImages(const std::string& path, std::string_view text, Manifests& out);

/// The instantiation targets of a YAML config (`_target_:`, `class_path:`), as config targets
/// (config_targets.cpp).
void readConfigTargets(const std::string& path, std::string_view text, Manifests& out);

/// A Singularity / Apptainer recipe (`Singularity`, `*.def` opening with `Bootstrap:`): the Docker
/// image it starts from, as a base image, and its shell sections, as a shell script
/// (container_recipe_reader.cpp). A file named so that is no recipe is not read.
void readContainerRecipe(const std::string& path, std::string_view text, Manifests& out);

/// Where a string literal's value stands in `module` (quotes and prefixes excluded), or nothing
/// when the value is not written verbatim (escapes, implicit concatenation).
std::optional<migrate::sdk::SourceRange> stringValueRange(const migrate::sdk::Module& module,
                                                          const migrate::sdk::StringFact& s,
                                                          const migrate::sdk::LineIndex& lines);

/// A wheel file named in a setting (`ARG WHEEL=flash_attn-…+cu12….whl`, a shell `WHEEL=…`),
/// installed later through the variable: a dependency where it is named. Not a wheel: nothing.
void namedWheel(const std::string& path, const migrate::sdk::SourceRange& range, const std::string& written,
                const std::string& resolved, const std::string& source, const std::string& section,
                Manifests& out);

/// Whether `value` names a wheel file.
inline bool isWheelName(std::string_view value) {
  return value.size() > 4 && value.substr(value.size() - 4) == ".whl";
}

/// Steps a Python file hands to a container image builder (Modal's `Image.from_registry`,
/// `.run_commands`, `.apt_install`, `.pip_install`): read as the FROM or shell step each becomes,
/// reported at the string (embedded_commands.cpp).
void readEmbeddedCommands(const migrate::sdk::Module& module, Manifests& out);

/// Which reader a repository file needs, from its path.
enum class ManifestKind {
  None,
  Requirements,
  Constraints,
  SetupCfg,
  Pyproject,
  CondaEnvironment,
  Dockerfile,
  CogConfig,  ///< cog.yaml
  Shell,
  Makefile,
  OtherYaml,       ///< a YAML file not named like a conda environment: read as one if its text is one
  InstallDoc,      ///< README.md / INSTALL.md / docs/installation.md: its shell code blocks
  CiWorkflow,      ///< .github/workflows/*.yml and other CI specs: their job images and shell steps
  ContainerRecipe  ///< a Singularity / Apptainer recipe: its base image and shell sections
};
ManifestKind manifestKind(std::string_view path);
/// Whether the text of a YAML file of any name (`semantic_design.yml`) is a conda environment: a
/// top-level `dependencies:` beside a top-level `channels:` or a `- pip:` entry (a Helm chart's
/// `dependencies:` has neither).
bool looksLikeCondaEnvironment(std::string_view text);

}  // namespace deps
