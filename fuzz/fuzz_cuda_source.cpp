// The custom_ops plugin's scanner of CUDA/C++ sources (tree-sitter cuda grammar, kernel
// definitions and launches, library uses, bindings), of CMake files and of Makefiles, on one
// repository whose kernel file, CMakeLists.txt and Makefile all hold the input.

#include <map>

#include "common.hpp"
#include "fuzz_support.hpp"
#include "native_scan.hpp"

namespace {

namespace sdk = migrate::sdk;

/// Every OPS-nnn rule known, so that each finding the scanner makes is reported.
class Context final : public sdk::PluginContext {
 public:
  const std::map<std::string, sdk::OptionValue>& options() const override { return options_; }
  const sdk::RuleInfo* rule(std::string_view id) const override {
    auto [it, inserted] = rules_.try_emplace(std::string(id));
    if (inserted) {
      it->second.id = id;
      it->second.domain = "custom_ops";
      it->second.message = "{api} {value} {note}";
      it->second.npu_alternative = "{npu}";
    }
    return &it->second;
  }
  void logInfo(std::string_view) const override {}
  void logWarning(std::string_view) const override {}

 private:
  std::map<std::string, sdk::OptionValue> options_;
  mutable std::map<std::string, sdk::RuleInfo> rules_;
};

class Workspace final : public sdk::WorkspaceView {
 public:
  explicit Workspace(std::string text) : text_(std::move(text)) {
    files_ = {{"csrc/kernels/fused.cu", text_.size(), sdk::Language::Cuda},
              {"CMakeLists.txt", text_.size(), sdk::Language::CMake},
              {"Makefile", text_.size(), sdk::Language::Other}};
  }
  const std::vector<sdk::FileEntry>& files() const override { return files_; }
  std::optional<std::string> read(const std::string&) const override { return text_; }

 private:
  std::string text_;
  std::vector<sdk::FileEntry> files_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const custom_ops::Rules rules = [] {
    static const Context context;
    custom_ops::Rules r;
    r.load(context);
    return r;
  }();
  const Workspace workspace{std::string(migrate::fuzz::text(data, size))};
  const custom_ops::Options options{{"third_party"}, false};
  migrate::fuzz::CountingSink sink;
  custom_ops::analyzeNativeSources(workspace, rules, options, sink);
  custom_ops::analyzeCMake(workspace, rules, options, sink);
  custom_ops::analyzeMakefiles(workspace, rules, options, sink);
  return 0;
}
