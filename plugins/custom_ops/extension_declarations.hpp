#pragma once
/// The extension modules a repository's build files declare, for the glue pass
/// (extension_glue.cpp): module names a Python build script gives to CUDA builds, and what its
/// CMake files build with CUDA.

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace custom_ops {

/// The dotted module name of a Python file (`src/` dropped, `pkg/__init__.py` → `pkg`, setting
/// `package`).
std::string dottedName(std::string path, bool& package);

/// A name a setup script's own `Extension` subclass hands to CMake is declared as this prefix plus
/// the name; it is compiled CUDA only where a CMake file of the repository builds CUDA.
inline constexpr std::string_view kCMakeDeclared = "cmake:";

/// The package of an extension a build script in a sub-folder declares (`CUDAExtension("pkg._C")` in
/// `pkg_src/setup.py`) is declared as this prefix plus the package: a package installed from that
/// folder (`pip install ./pkg_src`) whose imports load the compiled module.
inline constexpr std::string_view kPackageDeclared = "package:";

/// The modules `text` (the file at `path`) declares, each with that path:
/// - `CUDAExtension(name="x", …)` / `CUDAExtension("x", …)`, also through a name bound to the class,
///   an f-string of module-level string constants (`f"{library_name}._C"`) and module-level helpers
///   that build CUDAExtensions (`make_cuda_ext(name=…, module=…)`); in a sub-folder's script also
///   the folder's packages plus the name, and kPackageDeclared + the package of a dotted name;
/// - `PCCMExtension(cus, "spconv/core_cc", …)`: the package and every module under it;
/// - a module-level name bound to a JIT build (`_backend = load(…)`), as `module.name`;
/// - `CMakeExtension("bmtrain.C")` of the script's own Extension subclass, as kCMakeDeclared + name.
std::map<std::string, std::string> declaredModules(const std::string& path, std::string_view text);

/// What the repository's CMake files build with CUDA: whether any compiles CUDA (`project(…
/// LANGUAGES CXX CUDA)`, `enable_language(CUDA)`, CUDA toolkit packages, `.cu` sources), and the
/// Python modules such a file names (`project(_kernels LANGUAGES CUDA CXX)`,
/// `pybind11_add_module(name …)`, `Python_add_library(name MODULE …)`), with the file.
/// When one does, also the shared libraries any CMake file of the repository builds
/// (`add_library(flux_cuda SHARED …)` → `libflux_cuda.so`), which Python may load through ctypes.
/// `unconditional`: one compiles CUDA outside any if()/function() block (`project(x LANGUAGES CXX
/// CUDA)`, a top-level `enable_language(CUDA)`), not only when an option asks (pyg-lib's
/// `if(WITH_CUDA) enable_language(CUDA)`).
struct CudaCMake {
  bool any = false;
  bool unconditional = false;
  std::map<std::string, std::string> modules;
  std::set<std::string> shared_libraries;
  std::set<std::string> directories;  ///< of the CMakeLists.txt files that compile CUDA ("" the root)
};
CudaCMake readCudaCMake(const sdk::WorkspaceView& workspace, const std::vector<std::string>& skip_dirs);

}  // namespace custom_ops
