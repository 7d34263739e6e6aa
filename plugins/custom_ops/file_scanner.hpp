#pragma once
/// The walk over one CUDA/C++ file's tree-sitter syntax tree; its members are defined in
/// native_scan.cpp (the walk), kernel_definitions.cpp, kernel_launches.cpp, library_uses.cpp and
/// bindings.cpp.

#include <tree_sitter/api.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "native_facts.hpp"

namespace custom_ops::native {

class FileScanner {
 public:
  FileScanner(const std::string& path, const std::string& text, bool cuda_file, Repo& repo)
      : path_(path), text_(text), lines_(text), repo_(repo), cuda_file_(cuda_file) {}

  void scan(TSParser* parser);

 private:
  // -- node helpers
  std::string_view type(TSNode n) const { return ts_node_type(n); }
  std::string_view text(TSNode n) const {
    const uint32_t b = ts_node_start_byte(n);
    const uint32_t e = ts_node_end_byte(n);
    return std::string_view(text_).substr(b, e - b);
  }
  TSNode field(TSNode n, const char* name) const {
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
  }
  sdk::SourceRange range(TSNode n) const { return lines_.range(ts_node_start_byte(n), ts_node_end_byte(n)); }

  struct Function {
    TSNode node;
    std::string name;
    bool global = false;
    bool device = false;
    int kernel = -1;          ///< index into repo_.kernels
    int binding = -1;         ///< index into repo_.bindings
    std::string binding_var;  ///< `m` of PYBIND11_MODULE(name, m)
  };

  // -- the walk (native_scan.cpp)
  void visit(TSNode n, std::size_t depth);
  bool isExternShared(TSNode qualifier) const;
  void addFeature(const std::string& f);
  void addCallee(std::string_view name);

  // -- kernel definitions (kernel_definitions.cpp)
  std::pair<TSNode, TSNode> declaratorOf(TSNode fn) const;
  bool hasSpecifier(TSNode fn, std::string_view spec) const;
  bool onFunction(TSNode n);
  int addKernel(TSNode fn, TSNode name_node, TSNode params);
  std::string docComment(TSNode holder) const;
  void recoverKernels();

  // -- launches and other calls (kernel_launches.cpp)
  void onCall(TSNode n);
  std::string launchTarget(TSNode call, const std::string& name);
  void scanAssignments(std::size_t end);
  void addLaunch(TSNode call, std::string kernel, std::string config, std::string via, TSNode args);

  // -- library uses, includes and macros (library_uses.cpp)
  void onInclude(TSNode n);
  void onMacro(TSNode n);
  void onQualified(TSNode n);
  void onName(TSNode n, NameKind kind);
  static bool perFile(const char* rule);
  bool weakPosition(TSNode n) const;
  void use(const char* rule, TSNode n, std::string api, bool strong = true);
  void useAt(const char* rule, const sdk::SourceRange& r, std::string api, const std::string& scope,
             uint32_t key, bool strong = true);
  void flushUses();
  static std::string useGroup(const char* rule, std::string_view api, const sdk::SourceRange& at);

  // -- bindings (bindings.cpp)
  void onBindingMacro(Function& f, TSNode name_node, TSNode params);
  void onBindingCall(TSNode fn, std::string_view method, TSNode args);

  const std::string& path_;
  const std::string& text_;
  std::string masked_;
  sdk::LineIndex lines_;
  Repo& repo_;
  std::vector<Function> functions_;
  std::vector<std::string> namespaces_;
  std::vector<std::pair<std::size_t, std::size_t>> kernel_spans_;
  std::vector<Use> uses_;
  std::map<std::pair<std::string, uint32_t>, std::size_t> use_index_;
  /// `k = &kernel<…>;` in the current function up to `scanned`: the last target of each name.
  struct Assignments {
    std::size_t from = 0;
    std::size_t scanned = 0;
    std::map<std::string, std::string> targets;
  } assignments_;
  bool cuda_file_ = false;
  TSTreeCursor cursor_{};  ///< the walk's position: on the node visit() is given
};

}  // namespace custom_ops::native
