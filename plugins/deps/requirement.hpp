#pragma once
/// Requirement strings (PEP 508 and the URL forms pip accepts), conda match specs, version
/// specifiers and CUDA build tags.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace deps {

/// One parsed requirement. Offsets are into the parsed text.
struct Requirement {
  std::string name;    ///< as written ("flash_attn"); for URL forms taken from #egg= or the file name
  std::string extras;  ///< "torch,sentencepiece" (no brackets, no spaces)
  std::string spec;    ///< version specifier as written, trimmed ("==2.5.8", ">=1.0,<2")
  std::string marker;  ///< environment marker after ';'
  std::string url;     ///< `name @ url` or a bare URL / path
  bool name_from_url = false;
  bool local_path = false;  ///< a directory or file of the local tree (not a URL)
  std::size_t name_begin = 0;
  std::size_t name_end = 0;
};

/// Parses "name[extras] spec ; marker", "name @ url ; marker", a VCS/HTTP URL or a local path.
/// Nothing when the text is not a requirement (or is the project itself: ".", "./").
std::optional<Requirement> parseRequirement(std::string_view text);

/// Parses a conda match spec: "[channel::]name[ version[ build]]", "name=1.2=build", "name>=1".
/// `spec` gets the version part, `url` the channel and `marker` the build string.
std::optional<Requirement> parseCondaSpec(std::string_view text);

/// How a version specifier is written.
enum class SpecDialect { Pep440, Poetry, Conda };

/// A release version ("2.1.0" → {2, 1, 0}); pre/post/dev/local parts are ignored.
using Version = std::vector<int>;
std::optional<Version> parseVersion(std::string_view text);
int compareVersions(const Version& a, const Version& b);

/// Whether `version` satisfies `spec`; nothing when the specifier cannot be evaluated
/// (variables, unknown operators).
std::optional<bool> specAllows(std::string_view spec, const Version& version, SpecDialect dialect);

/// The version of an exact pin ("==2.1.2", "===2.1.2", poetry "2.1.2", conda "==2.1.2").
std::optional<std::string> exactPin(std::string_view spec, SpecDialect dialect);

/// "cu121" for a CUDA build named in a version's local part, a URL or a build string
/// ("+cu121", "/whl/cu121", "cuda11.8" → "cuda11.8"); empty when none.
std::string cudaTag(std::string_view text);

/// True when an environment marker admits no Linux host (`sys_platform == 'win32'`,
/// `platform_system == "Darwin"`, `os_name == "nt"`, joined by `and`): an NPU host, Linux, never
/// installs the requirement. A marker with `or` is not judged (a disjunct may admit Linux).
bool markerExcludesLinux(std::string_view marker);

/// True when a comma-separated extras list has the extra `gpu` ("gpu,cli"): a package's NVIDIA
/// install profile.
bool hasGpuExtra(std::string_view extras);

/// True for a package index, find-links page or conda channel that serves CUDA builds
/// (download.pytorch.org/whl/cu121, pypi.nvidia.com, data.pyg.org/…+cu121.html, channel "nvidia").
bool isCudaIndex(std::string_view url);

/// Substitutes $VAR, ${VAR} and ${VAR:-default} with known values; unknown ones stay as written.
std::string substituteVariables(const std::string& text, const std::map<std::string, std::string>& values);

/// Trims ASCII whitespace.
std::string_view trim(std::string_view s);

}  // namespace deps
