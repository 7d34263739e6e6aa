#pragma once
// What the extension glue pass (extension_glue.cpp) takes of each Python file, and the per-file
// memo that keeps it between runs (glue_memo.cpp).

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace custom_ops::glue {

/// What a block's lines show that the glue asks about, read once from the code, for the names
/// the file imports or defines at top level.
struct Uses {
  std::set<std::string> calls;  ///< plain names called: `name(` (not `x.name(`)
  /// `a.b.c` gives (a, b) and (a.b, c): a name and the attribute read on it, first sightings in
  /// order of appearance.
  std::vector<std::pair<std::string, std::string>> attributes;
  bool launch = false;  ///< a kernel launch the module pass sees: `kernel[grid](` or `torch.ops.`
};

/// An import of the file that a block uses, and what that use says about the block (Glue works
/// it out once; only the ways through other files of the repository change while it propagates).
struct UsedImport {
  enum class Way {
    Kernel,    ///< the module pass sees a kernel here itself
    Declared,  ///< an extension module only a build script names: `note` says which
    Module,    ///< `m.helper()` on a module of the repository: reached when it exports `helper`
    Helper,    ///< `helper()` imported from a module of the repository that exports it
  };
  std::size_t import = 0;  ///< index in PyFile::imports
  Way way = Way::Kernel;
  std::string note;
  std::vector<std::string> attributes;  ///< read on the bound name (Way::Module)
};

/// A block: a top-level function, a top-level assignment that reads a kernel library's module
/// (its one line is its body), or an autograd Function class, with what its body uses.
struct Block {
  std::string name;
  std::size_t line = 0;
  std::size_t name_begin = 0;
  std::size_t body_end = 0;  ///< index of the first line after the body
  Uses uses;
  std::vector<UsedImport> used;  ///< derived from `uses` and the imports; not in the memo
};

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Import {
  std::size_t line = 0;
  std::string module;  ///< absolute dotted name of the module imported from (or imported)
  std::string name;    ///< `from module import name`; empty for `import module`
  std::string bound;   ///< the local name (`import a.b` binds "a.b" as written)
  bool star = false;
  std::size_t target_file = kNone;  ///< the repository's file of the module imported (Glue sets it)
  std::size_t from_file = kNone;    ///< the repository's file of `module` in `from module import name`
  /// The extension module the name is, when another module of the repository binds it by
  /// importing one (`from .jit_compiler import tutel_custom_kernel`); Glue sets it.
  std::string reexported;
};

struct PyFile {
  std::string path;
  std::string dotted;
  bool package = false;
  bool autograd_import = false;  ///< `from torch.autograd import` / `from torch.autograd.function import`
  std::vector<Import> imports;
  std::vector<Block> functions;         ///< top level (functions and kernel-library assignments)
  std::vector<Block> classes;           ///< autograd Functions, any level
  std::set<std::string> exports;        ///< names of this module that reach an extension
  std::map<std::string, bool> helpers;  ///< top-level function -> reached only through other files
};

/// A top-level function that may build an extension at run time (jit_builders.cpp): it calls
/// torch.utils.cpp_extension's load()/load_inline() itself, or its body names CUDA sources or flags.
struct Builder {
  std::string name;
  bool loads = false;              ///< calls load() / load_inline() itself
  bool cuda = false;               ///< its body names `.cu` sources or CUDA build flags
  bool returns = false;            ///< returns what it built (`return module`)
  std::vector<std::string> calls;  ///< names it calls, when `cuda` and not `loads` (a loader builds)
};

/// What the first look at a file's text found: the extension modules it declares
/// (`CUDAExtension(name=...)`), whether an import line may name a compiled extension, and the
/// functions that may JIT-build one.
struct Scan {
  std::vector<std::string> declared;
  bool may_import = false;
  std::vector<Builder> builders;
};

/// The memo's kind (WorkspaceView::remember); bump it when the encoding changes.
inline constexpr const char* kMemoKind = "extension-glue/5";

/// A file's memo: its scan and, when `summarised`, the summary parse() took of it (imports,
/// functions and autograd classes of `file`; its path and module name are not in the memo).
std::string encodeMemo(const Scan& scan, const PyFile* summary);

/// The inverse of encodeMemo: false when `bytes` is not a memo of this kind (then nothing was set).
/// `summarised` says whether the memo held a summary (copied into `file`).
bool decodeMemo(const std::string& bytes, Scan& scan, PyFile& file, bool& summarised);

}  // namespace custom_ops::glue
