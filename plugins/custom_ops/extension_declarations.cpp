// The extension modules build scripts declare, read from one file's text at a time
// (extension_declarations.hpp).

#include "extension_declarations.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"

namespace custom_ops {
namespace {

/// The arguments of the call whose `(` is at `open`: the text up to its closing parenthesis.
std::string_view callArguments(std::string_view text, std::size_t open) {
  const std::size_t close = closingBracket(text, open);
  return close < text.size() ? text.substr(open + 1, close - open - 1) : std::string_view();
}

/// The module-level functions of `text`: name and body (up to the next line at column 0).
std::vector<std::pair<std::string, std::string_view>> topLevelDefs(std::string_view text) {
  static const RE2 kDef(R"((?m)^def[ \t]+([A-Za-z_]\w*)[ \t]*\()", bytePattern());
  std::vector<std::pair<std::string, std::string_view>> defs;
  forEachMatch(kDef, text, [&](const auto& m) {
    const std::size_t def = static_cast<std::size_t>(m[0].data() - text.data());
    // The body ends where a later line starts at column 0 (a signature's closing `)` aside).
    std::size_t end = text.size();
    for (std::size_t eol = text.find('\n', def); eol != std::string_view::npos;
         eol = text.find('\n', eol + 1)) {
      const char c = eol + 1 < text.size() ? text[eol + 1] : '\n';
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' && c != ')') {
        end = eol + 1;
        break;
      }
    }
    defs.emplace_back(str(m[1]), text.substr(def, end - def));
  });
  return defs;
}

/// Declares extension module `name` of the build script at `path`. A build script in a sub-folder
/// built in place (`cd bundlesdf/mycuda && pip install -e .`) leaves the module beside it:
/// `CUDAExtension("common", …)` there is also imported as `bundlesdf.mycuda.common`, or as
/// `mycuda.common` with the parent folder on the path; a dotted name there is compiled into the
/// package its first part names (kPackageDeclared).
void declare(const std::string& name, const std::string& path, std::map<std::string, std::string>& out) {
  out.emplace(name, path);
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return;
  if (name.find('.') != std::string::npos) {
    out.emplace(std::string(kPackageDeclared) + name.substr(0, name.find('.')), path);
    return;
  }
  std::string folder = path.substr(0, slash);
  std::replace(folder.begin(), folder.end(), '/', '.');
  for (std::size_t from = 0; from != std::string::npos;) {  // `a.b.c`, `b.c`, `c` for a script in a/b/c/
    out.emplace(folder.substr(from) + "." + name, path);
    const std::size_t dot = folder.find('.', from);
    from = dot == std::string::npos ? dot : dot + 1;
  }
}

/// `def make_cuda_ext(name, module, sources, sources_cuda=None): … CUDAExtension(name=f"{module}.{name}")`
/// then `make_cuda_ext(name="deform_conv_ext", module="basicsr.ops.dcn", …)`: a module-level helper
/// that builds CUDAExtensions declares `module.name` for each call (the open-mmlab convention), or
/// `name` when the call gives no module.
void declaredThroughHelpers(const std::string& path, std::string_view text,
                            std::map<std::string, std::string>& out) {
  std::vector<std::string> helpers;
  for (const auto& [name, body] : topLevelDefs(text))
    if (body.find("CUDAExtension") != std::string_view::npos) helpers.push_back(name);
  static const RE2 kName(R"(\bname\s*=\s*[fFrR]?["']([\w.]+)["'])", bytePattern());
  static const RE2 kModule(R"(\bmodule\s*=\s*[fFrR]?["']([\w.]+)["'])", bytePattern());
  for (const std::string& helper : helpers) {
    const RE2 call(R"((?:^|[^\w.])()" + helper + R"()\s*\()", bytePattern());
    forEachMatch(call, text, [&](const auto& m) {
      const std::size_t open = static_cast<std::size_t>(m[0].data() - text.data()) + m[0].size() - 1;
      const std::size_t line = text.rfind('\n', open);
      if (text.substr(line == std::string_view::npos ? 0 : line + 1, 4) == "def ") return;  // the def itself
      const std::string_view args = callArguments(text, open);
      std::string name, module;
      if (!RE2::PartialMatch(args, kName, &name)) return;
      RE2::PartialMatch(args, kModule, &module);
      out.emplace(module.empty() ? name : module + "." + name, path);
    });
  }
}

/// `CUDAExtension(name="x", …)` / `CUDAExtension("x", …)`: the module names build scripts declare,
/// also through a name bound to the class (`ext = CUDAExtension if cuda else CppExtension`, then
/// `ext("pkg.backend", …)`: the CUDA build is the one an NPU port must replace).
void declaredExtensions(const std::string& path, std::string_view text,
                        std::map<std::string, std::string>& out) {
  if (text.find("CUDAExtension") == std::string::npos) return;
  static const RE2 kAlias(R"((?m)^[ \t]*([A-Za-z_]\w*)[ \t]*=[^=\n]([^\n]*\bCUDAExtension\b[^\n]*)$)",
                          bytePattern());
  static const RE2 kCalled(R"(\bCUDAExtension\s*\()", bytePattern());
  std::string builders = "CUDAExtension";
  forEachMatch(kAlias, text, [&](const auto& m) {
    if (RE2::PartialMatch(m[2], kCalled)) return;  // `x = CUDAExtension(…)` is a build, not the class
    builders.push_back('|');
    builders.append(m[1].data(), m[1].size());
  });
  const RE2 build(R"(\b(?:)" + builders + R"()\s*\(\s*(?:name\s*=\s*)?([fF])?[rR]?["']([\w.{}]+)["'])",
                  bytePattern());
  // Module-level string constants an f-string name may hold (`library_name = "texture_baker"`).
  static const RE2 kConstant(R"((?m)^([A-Za-z_]\w*)[ \t]*=[ \t]*["']([\w.]+)["'][ \t]*$)", bytePattern());
  std::map<std::string, std::string> constants;
  forEachMatch(kConstant, text, [&](const auto& m) { constants.emplace(str(m[1]), str(m[2])); });
  // `{library_name}._C` with the constants substituted; "" when a hole is no constant.
  auto substituted = [&](const std::string& name) {
    std::string whole;
    for (std::size_t i = 0; i < name.size();) {
      if (name[i] == '}') return std::string();
      if (name[i] != '{') {
        whole.push_back(name[i++]);
        continue;
      }
      const std::size_t close = name.find('}', i);
      if (close == std::string::npos) return std::string();
      const auto it = constants.find(name.substr(i + 1, close - i - 1));
      if (it == constants.end()) return std::string();
      whole += it->second;
      i = close + 1;
    }
    return whole;
  };
  forEachMatch(build, text, [&](const auto& m) {
    const std::string written = str(m[2]);
    const bool holes = written.find_first_of("{}") != std::string::npos;
    if (holes && m[1].empty()) return;  // braces in a plain string name no module
    const std::string name = holes ? substituted(written) : written;
    if (!name.empty()) declare(name, path, out);
  });
  declaredThroughHelpers(path, text, out);
}

/// `Extension("gpu_nms", ["nms_kernel.cu", "gpu_nms.pyx"], libraries=["cudart"])`,
/// `cpp_extension.CppExtension("pkg.libnat_cuda", sources=[".../edit_dist.cu"])`: a plain setuptools
/// Extension (or CppExtension) given CUDA sources or linked to the CUDA runtime is a CUDA build too
/// (a custom build_ext hands the `.cu` files to nvcc; BuildExtension does so for CppExtension).
void declaredCudaSourceExtensions(const std::string& path, std::string_view text,
                                  std::map<std::string, std::string>& out) {
  if (text.find("Extension") == std::string_view::npos ||
      (text.find(".cu") == std::string_view::npos && text.find("cudart") == std::string_view::npos))
    return;
  static const RE2 kBuild(R"((?:^|[^\w.])(?:\w+\.)*(Extension|CppExtension)\s*\()", bytePattern());
  static const RE2 kName(R"(^\s*(?:name\s*=\s*)?[rR]?["']([\w.]+)["'])", bytePattern());
  static const RE2 kCuda(R"(\.cuh?["']|["']cudart["'])", bytePattern());
  forEachMatch(kBuild, text, [&](const auto& m) {
    const std::size_t open = static_cast<std::size_t>(m[0].data() - text.data()) + m[0].size() - 1;
    const std::string_view args = callArguments(text, open);
    std::string name;
    if (RE2::PartialMatch(args, kName, &name) && RE2::PartialMatch(args, kCuda)) declare(name, path, out);
  });
}

/// `PCCMExtension(cus, "spconv/core_cc", …)`: pccm's setuptools extension (cumm's code generator,
/// which compiles its generated C++ and CUDA with nvcc) declares the package its second argument
/// names; every module under it is compiled.
void declaredGeneratedPackages(const std::string& path, std::string_view text,
                               std::map<std::string, std::string>& out) {
  if (text.find("PCCMExtension") == std::string_view::npos) return;
  static const RE2 kBuild(R"(\bPCCMExtension\s*\()", bytePattern());
  static const RE2 kFirstString(R"(["']([\w./]+)["'])", bytePattern());
  forEachMatch(kBuild, text, [&](const auto& m) {
    const std::size_t open = static_cast<std::size_t>(m[0].data() - text.data()) + m[0].size() - 1;
    std::string name;
    if (!RE2::PartialMatch(callArguments(text, open), kFirstString, &name)) return;
    std::replace(name.begin(), name.end(), '/', '.');
    out.emplace(name, path);
  });
}

/// `_backend = load(name="ext_lib", sources=…)`, or `_backend = _load_C_extensions()` with a
/// module-level function of the file returning such a build: a module-level name bound to a JIT
/// build (of a file that speaks of CUDA) is a compiled module that other files import by name
/// (`from ._csrc import _backend` … `_backend.syncbn_forward(…)`): `module.name` is declared.
void declaredJitBindings(const std::string& path, std::string_view text,
                         std::map<std::string, std::string>& out) {
  if (text.find("cpp_extension") == std::string_view::npos) return;
  static const RE2 kCuda("(?i)cuda", bytePattern());
  if (!RE2::PartialMatch(text, kCuda)) return;
  static const RE2 kJitCall(R"((?:^|[^\w.])(?:cpp_extension\.)?load(?:_inline)?\s*\()", bytePattern());
  std::set<std::string> builders{"load",
                                 "load_inline",
                                 "cpp_extension.load",
                                 "cpp_extension.load_inline",
                                 "torch.utils.cpp_extension.load",
                                 "torch.utils.cpp_extension.load_inline"};
  for (const auto& [name, body] : topLevelDefs(text))
    if (RE2::PartialMatch(body, kJitCall)) builders.insert(name);
  static const RE2 kBinding(R"((?m)^([A-Za-z_]\w*)[ \t]*=[ \t]*([\w.]+)[ \t]*\()", bytePattern());
  bool package = false;
  const std::string module = dottedName(path, package);
  forEachMatch(kBinding, text, [&](const auto& m) {
    if (builders.count(str(m[2]))) out.emplace(module.empty() ? str(m[1]) : module + "." + str(m[1]), path);
  });
}

/// `class CMakeExtension(Extension)` … `CMakeExtension("bmtrain.C")`: a setuptools Extension the
/// script's own subclass hands to CMake declares its module, as `cmake:` + the name; it counts as
/// compiled CUDA only where a CMake file of the repository builds CUDA (CudaCMake).
void declaredCMakeExtensions(const std::string& path, std::string_view text,
                             std::map<std::string, std::string>& out) {
  if (text.find("Extension") == std::string_view::npos || text.find("cmake") == std::string_view::npos)
    return;
  static const RE2 kSubclass(R"((?m)^class[ \t]+(\w+)[ \t]*\([ \t]*(?:setuptools\.)?Extension[ \t]*\))",
                             bytePattern());
  forEachMatch(kSubclass, text, [&](const auto& cls) {
    const RE2 build(R"((?:^|[^\w.])()" + str(cls[1]) + R"()\s*\(\s*(?:name\s*=\s*)?[fFrR]?["']([\w.]+)["'])",
                    bytePattern());
    forEachMatch(build, text,
                 [&](const auto& m) { out.emplace(std::string(kCMakeDeclared) + str(m[2]), path); });
  });
}

}  // namespace

std::string dottedName(std::string path, bool& package) {
  if (startsWith(path, "src/")) path = path.substr(4);
  if (endsWith(path, ".py")) path.resize(path.size() - 3);
  for (char& c : path)
    if (c == '/') c = '.';
  package = path == "__init__" || endsWith(path, ".__init__");
  if (package) path.resize(path.size() >= 9 ? path.size() - 9 : 0);
  return path;
}

std::map<std::string, std::string> declaredModules(const std::string& path, std::string_view text) {
  std::map<std::string, std::string> declared;
  declaredExtensions(path, text, declared);
  declaredCudaSourceExtensions(path, text, declared);
  declaredGeneratedPackages(path, text, declared);
  declaredJitBindings(path, text, declared);
  declaredCMakeExtensions(path, text, declared);
  return declared;
}

namespace {

/// Whether a line outside every if()/foreach()/while()/function()/macro() block of a CMake file
/// matches `cuda`.
bool cudaAtTopLevel(std::string_view text, const RE2& cuda) {
  static const RE2 kOpen(R"((?i)^\s*(?:if|foreach|while|function|macro)\s*\()", bytePattern());
  static const RE2 kClose(R"((?i)^\s*end(?:if|foreach|while|function|macro)\s*\()", bytePattern());
  int depth = 0;
  for (std::size_t b = 0; b < text.size();) {
    std::size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    const re2::StringPiece line(text.data() + b, e - b);
    if (RE2::PartialMatch(line, kOpen)) {
      ++depth;
    } else if (RE2::PartialMatch(line, kClose)) {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (depth == 0 && RE2::PartialMatch(line, cuda)) {
      return true;
    }
    b = e + 1;
  }
  return false;
}

}  // namespace

CudaCMake readCudaCMake(const sdk::WorkspaceView& workspace, const std::vector<std::string>& skip_dirs) {
  static const RE2 kCuda(
      R"(\bLANGUAGES\b[^)]*\bCUDA\b|enable_language\s*\(\s*CUDA|find_package\s*\(\s*CUDA|\.cu\b)",
      bytePattern());
  static const RE2 kModule(
      R"((?i)\b(?:project|pybind11_add_module|pybind11_extension|nanobind_add_module|python3?_add_library)\s*\(\s*(\w+))",
      bytePattern());
  static const RE2 kSharedLibrary(
      R"((?i)\b(?:add_library\s*\(\s*(\w+)\s+(?:SHARED|MODULE)\b|cuda_add_library\s*\(\s*(\w+)\s[^)]*\bSHARED\b))",
      bytePattern());
  CudaCMake cmake;
  std::set<std::string> libraries;  // of every CMake file: the CUDA may be enabled by another one
  for (const auto& entry : workspace.files()) {
    if (entry.language != sdk::Language::CMake || inSkippedDir(entry.path, skip_dirs)) continue;
    const std::string& p = entry.path;
    const auto text = workspace.read(p);
    if (!text) continue;
    forEachMatch(kSharedLibrary, *text,
                 [&](const auto& m) { libraries.insert("lib" + str(m[1].empty() ? m[2] : m[1]) + ".so"); });
    if (!RE2::PartialMatch(*text, kCuda)) continue;
    cmake.any = true;
    cmake.unconditional = cmake.unconditional || cudaAtTopLevel(*text, kCuda);
    if (const auto slash = p.rfind('/');
        p.substr(slash == std::string::npos ? 0 : slash + 1) == "CMakeLists.txt")
      cmake.directories.insert(slash == std::string::npos ? "" : p.substr(0, slash));
    forEachMatch(kModule, *text, [&](const auto& m) { cmake.modules.emplace(str(m[1]), p); });
  }
  if (cmake.any) cmake.shared_libraries = std::move(libraries);
  return cmake;
}

}  // namespace custom_ops
