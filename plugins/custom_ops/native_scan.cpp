// CUDA and C++ sources: kernels, launches, CUDA libraries, PTX, warp intrinsics, runtime calls,
// bindings and op registrations, found on the tree-sitter cuda grammar's syntax tree (which also
// parses plain C++). The C API of tree-sitter 0.20 evaluates no query predicates, so the walk
// compares node types and texts itself.
// This file holds the walk over the tree, the source-directory report and the driver; kernels,
// launches, library uses and bindings have files of their own.

#include "native_scan.hpp"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>

#include "file_scanner.hpp"
#include "native_facts.hpp"

extern "C" const TSLanguage* tree_sitter_cuda();

namespace custom_ops {

std::string maskCommentsAndStrings(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      std::size_t e = i;
      while (e < n && text[e] != '\n') {
        if (text[e] == '\\' && e + 1 < n && text[e + 1] == '\n') ++e;  // continued comment line
        ++e;
      }
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      std::size_t e = text.find("*/", i + 2);
      e = e == std::string_view::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == 'R' && i + 1 < n && text[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))) {
      const std::size_t open = text.find('(', i + 2);
      if (open == std::string_view::npos) {
        ++i;
        continue;
      }
      const std::string close = std::string(")").append(text.substr(i + 2, open - i - 2)).append("\"");
      std::size_t e = text.find(close, open);
      e = e == std::string_view::npos ? n : e + close.size();
      blank(i + 2, e - 1);
      i = e;
    } else if (c == '"' || c == '\'') {
      if (c == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) && i + 1 < n &&
          std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
        ++i;  // digit separator: 1'000'000
        continue;
      }
      std::size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      blank(i + 1, std::min(e, n));
      i = std::min(e + 1, n);
    } else {
      ++i;
    }
  }
  return out;
}

namespace native {
namespace {

constexpr const char* kSourceDir = "OPS-020";

constexpr std::size_t kMaxDepth = 1500;
constexpr std::uint64_t kParseTimeoutMicros = 20'000'000;

struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};

}  // namespace

// ---- the tree walk ------------------------------------------------------------------------------

void FileScanner::scan(TSParser* parser) {
  ts_parser_reset(parser);
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser, nullptr, text_.data(), static_cast<uint32_t>(text_.size())));
  masked_ = maskCommentsAndStrings(text_);
  if (tree) {
    cursor_ = ts_tree_cursor_new(ts_tree_root_node(tree.get()));
    visit(ts_tree_root_node(tree.get()), 0);
    ts_tree_cursor_delete(&cursor_);
  }
  recoverKernels();
  flushUses();
}

void FileScanner::visit(TSNode n, std::size_t depth) {
  if (depth > kMaxDepth) return;
  const std::string_view t = type(n);
  bool pushed = false;
  if (t == "comment" || t == "string_literal" || t == "raw_string_literal" || t == "char_literal") return;
  if (t == "preproc_include") {
    onInclude(n);
    return;
  }
  if (t == "preproc_def" || t == "preproc_function_def") {
    onMacro(n);
    return;
  }
  if (t == "namespace_definition") {
    TSNode name = field(n, "name");
    namespaces_.push_back(ts_node_is_null(name) ? std::string() : std::string(text(name)));
  } else if (t == "function_definition") {
    pushed = onFunction(n);
  } else if (t == "call_expression") {
    onCall(n);
  } else if (t == "qualified_identifier") {
    onQualified(n);
  } else if (t == "type_identifier") {
    onName(n, NameKind::Type);
  } else if (t == "identifier") {
    if (text(n) == "kCUDA") onName(n, NameKind::Identifier);
  } else if (t == "gnu_asm_expression" || t == "asm_statement") {
    use(kPtx, n, "asm");
  } else if (t == "type_qualifier" && text(n) == "__shared__") {
    addFeature(isExternShared(n) ? "dynamic_shared_memory" : "shared_memory");
    if (isExternShared(n)) addFeature("shared_memory");
  }
  // The children through the cursor (which stands on `n` again afterwards): in linear time,
  // where ts_node_child(n, i) starts from the first child each time, quadratic over a long list.
  if (ts_tree_cursor_goto_first_child(&cursor_)) {
    do visit(ts_tree_cursor_current_node(&cursor_), depth + 1);
    while (ts_tree_cursor_goto_next_sibling(&cursor_));
    ts_tree_cursor_goto_parent(&cursor_);
  }
  if (pushed) functions_.pop_back();
  if (t == "namespace_definition") namespaces_.pop_back();
}

bool FileScanner::isExternShared(TSNode qualifier) const {
  TSNode decl = ts_node_parent(qualifier);
  if (ts_node_is_null(decl)) return false;
  for (uint32_t i = 0; i < ts_node_child_count(decl); ++i) {
    TSNode c = ts_node_child(decl, i);
    if (type(c) == "storage_class_specifier" && text(c) == "extern") return true;
  }
  return false;
}

void FileScanner::addFeature(const std::string& f) {
  for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
    if (it->kernel >= 0) {
      repo_.kernels[it->kernel].features.insert(f);
      return;
    }
    if (it->device) {
      repo_.device_functions[it->name].features.insert(f);
      return;
    }
  }
}

void FileScanner::addCallee(std::string_view name) {
  if (functions_.empty()) return;
  Function& f = functions_.back();
  if (f.kernel >= 0)
    repo_.kernels[f.kernel].callees.insert(std::string(name));
  else if (f.device)
    repo_.device_functions[f.name].callees.insert(std::string(name));
}

namespace {

/// Files worth parsing: CUDA always; C/C++ only when the text mentions something of this domain.
bool worthParsing(const sdk::FileEntry& f, const std::string& text) {
  if (f.language == sdk::Language::Cuda) return true;
  static const char* const kHints[] = {"cuda",          "CUDA",   "__global__", "PYBIND11_MODULE",
                                       "TORCH_LIBRARY", "cublas", "cudnn",      "curand",
                                       "nccl",          "thrust", "cub::",      "cub/",
                                       "cutlass",       "cute",   "asm",        "__shfl"};
  for (const char* h : kHints)
    if (text.find(h) != std::string::npos) return true;
  return false;
}

// ---- source directories -------------------------------------------------------------------------

bool under(const std::string& path, const std::string& dir) {
  return dir.empty() || (startsWith(path, dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

bool isOpsDirName(std::string_view d) {
  return d == "csrc" || d == "kernels" || d == "kernel" || d == "ops" || d == "cuda_kernels" ||
         d == "cuda_ops" || d == "custom_ops";
}

void reportDirectories(const Repo& repo, const std::vector<std::string>& cuda_files, const Rules& rules,
                       sdk::FindingSink& sink) {
  std::set<std::string> files(cuda_files.begin(), cuda_files.end());
  files.insert(repo.cuda_evidence_files.begin(), repo.cuda_evidence_files.end());
  struct Dir {
    std::string first;
    int cuda = 0;
    int cpp = 0;
    int kernels = 0;
  };
  std::map<std::string, Dir> dirs;
  for (const auto& f : files) {
    std::size_t b = 0;
    std::string root;
    for (std::size_t i = 0; i < f.size(); ++i)
      if (f[i] == '/') {
        if (isOpsDirName(std::string_view(f).substr(b, i - b))) {
          root = f.substr(0, i);
          break;
        }
        b = i + 1;
      }
    if (root.empty()) continue;
    Dir& d = dirs[root];
    if (d.first.empty() || f < d.first) d.first = f;
    (endsWith(f, ".cu") || endsWith(f, ".cuh") ? d.cuda : d.cpp)++;
  }
  for (const Kernel& k : repo.kernels)
    for (auto& [root, d] : dirs)
      if (under(k.file, root)) ++d.kernels;
  for (const auto& [root, d] : dirs) {
    sdk::SourceRange r;
    r.line = r.column = r.end_line = r.end_column = 1;
    auto f = rules.make(kSourceDir, d.first, r, root + "/", {},
                        {{"value", root + "/"},
                         {"cuda_files", std::to_string(d.cuda)},
                         {"cpp_files", std::to_string(d.cpp)},
                         {"kernels", std::to_string(d.kernels)}});
    if (!f) continue;
    f->details = {{"directory", root + "/"},
                  {"cuda_files", std::to_string(d.cuda)},
                  {"cpp_files", std::to_string(d.cpp)},
                  {"kernels", std::to_string(d.kernels)}};
    sink.report(std::move(*f));
  }
}

}  // namespace
}  // namespace native

void analyzeNativeSources(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink) {
  using namespace native;  // the scanner, its facts and their reports
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), tree_sitter_cuda())) {
    sink.diagnose(
        {sdk::Severity::Error, "grammar-mismatch", "", 0,
         "custom_ops: the tree-sitter cuda grammar does not match the runtime; CUDA sources not analysed"});
    return;
  }
  ts_parser_set_timeout_micros(parser.get(), kParseTimeoutMicros);
  Repo repo;
  // Macros that define kernels, repository-wide (they live in headers included elsewhere).
  for (const sdk::FileEntry& f : workspace.files()) {
    if ((f.language != sdk::Language::Cuda && f.language != sdk::Language::Cpp) ||
        inSkippedDir(f.path, options.skip_dirs))
      continue;
    const auto text = workspace.read(f.path);
    if (text && text->find("__global__") != std::string::npos && text->find("#define") != std::string::npos)
      collectKernelMacros(maskCommentsAndStrings(*text), repo.kernel_macros);
  }
  std::vector<std::string> cuda_files;
  for (const sdk::FileEntry& f : workspace.files()) {
    if (f.language != sdk::Language::Cuda && f.language != sdk::Language::Cpp &&
        f.language != sdk::Language::C)
      continue;
    if (inSkippedDir(f.path, options.skip_dirs) || inOtherAcceleratorDir(f.path)) continue;
    if (f.language == sdk::Language::Cuda) cuda_files.push_back(f.path);
    const auto text = workspace.read(f.path);
    if (!text || !worthParsing(f, *text)) continue;
    FileScanner(f.path, *text, f.language == sdk::Language::Cuda, repo).scan(parser.get());
  }
  reportKernelsAndLaunches(repo, rules, sink);
  reportUses(repo, rules, sink);
  reportHeaders(repo, workspace, rules, sink);
  reportBindings(repo, rules, sink);
  reportDirectories(repo, cuda_files, rules, sink);
}

}  // namespace custom_ops
