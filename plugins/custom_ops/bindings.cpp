// Python bindings and op registrations of native code: PYBIND11_MODULE and TORCH_LIBRARY* blocks,
// their m.def/m.impl calls, and their reports (OPS-013, OPS-014).

#include <algorithm>
#include <string>

#include "file_scanner.hpp"
#include "native_facts.hpp"

namespace custom_ops::native {
namespace {

constexpr const char* kPybind = "OPS-013";
constexpr const char* kTorchLibrary = "OPS-014";

bool isBindingMacro(std::string_view s) {
  return s == "PYBIND11_MODULE" || startsWith(s, "TORCH_LIBRARY");
}

}  // namespace

/// PYBIND11_MODULE(name, m) / TORCH_LIBRARY*(ns, …, m) { … }: a binding whose `m.def`/`m.impl`
/// calls onBindingCall collects.
void FileScanner::onBindingMacro(Function& f, TSNode name_node, TSNode params) {
  if (!isBindingMacro(f.name) || ts_node_is_null(params)) return;
  Binding b;
  b.file = path_;
  b.range = range(name_node);
  b.macro = f.name;
  for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i)
    b.params.push_back(collapseSpace(text(ts_node_named_child(params, i))));
  if (!b.params.empty()) f.binding_var = b.params.back();
  f.binding = static_cast<int>(repo_.bindings.size());
  repo_.bindings.push_back(std::move(b));
}

void FileScanner::onBindingCall(TSNode fn, std::string_view method, TSNode args) {
  for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
    if (it->binding < 0) continue;
    TSNode recv = field(fn, "argument");
    if (ts_node_is_null(recv) || text(recv) != it->binding_var) return;
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) return;
    Binding& b = repo_.bindings[it->binding];
    std::string first(text(ts_node_named_child(args, 0)));
    if (first.size() >= 2 && first.front() == '"') first = first.substr(1, first.size() - 2);
    // "rms_norm(Tensor x) -> Tensor": the op name only
    first = first.substr(0, first.find('('));
    if (method == "def") {
      b.functions.push_back(first);
      if (ts_node_named_child_count(args) > 1) {
        std::string target(text(ts_node_named_child(args, 1)));
        target.erase(
            std::remove_if(target.begin(), target.end(), [](char c) { return c == '&' || c == ' '; }),
            target.end());
        b.targets.emplace_back(lastSegment(target));
      }
    } else if (method == "impl" && text(args).find("CUDA") != std::string_view::npos)
      b.cuda_impls.push_back(first);
    else if (method == "impl" && b.params.size() >= 3 && b.params[1].find("CUDA") != std::string::npos)
      b.cuda_impls.push_back(first);
    return;
  }
}

void reportBindings(const Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  for (const Binding& b : repo.bindings) {
    if (b.macro == "PYBIND11_MODULE") {
      // A pybind module matters when it binds CUDA code: the file uses CUDA, or a bound function
      // is defined in a CUDA source or uses CUDA (a CPU-only module, e.g. a CPU Adam, does not).
      bool cuda = repo.cuda_evidence_files.count(b.file) > 0;
      for (const auto& t : b.targets)
        cuda |= repo.cuda_functions.count(t) > 0 || lower(t).find("cuda") != std::string::npos;
      if (!cuda) continue;
      const std::string module = b.params.empty() ? std::string() : b.params.front();
      auto f =
          rules.make(kPybind, b.file, b.range, b.macro, {},
                     {{"value", module}, {"module", module}, {"count", std::to_string(b.functions.size())}});
      if (!f) continue;
      f->details = {{"module", module},
                    {"functions", join(b.functions, ", ")},
                    {"bound", std::to_string(b.functions.size())}};
      sink.report(std::move(*f));
      continue;
    }
    // TORCH_LIBRARY_IMPL(ns, CUDA, m) or TORCH_LIBRARY*(ns, m) { m.impl("op", torch::kCUDA, …) }
    const bool impl_macro = b.macro == "TORCH_LIBRARY_IMPL" && b.params.size() >= 3;
    const std::string key = impl_macro ? b.params[1] : std::string("CUDA");
    if (impl_macro && key.find("CUDA") == std::string::npos) continue;
    if (!impl_macro && b.cuda_impls.empty()) continue;
    const std::string ns = b.params.empty() ? std::string() : b.params.front();
    const std::vector<std::string>& ops = impl_macro && b.cuda_impls.empty() ? b.functions : b.cuda_impls;
    std::string npu_key = key;
    if (const auto at = npu_key.find("CUDA"); at != std::string::npos) npu_key.replace(at, 4, "PrivateUse1");
    auto f = rules.make(kTorchLibrary, b.file, b.range, b.macro, {},
                        {{"value", ns}, {"key", key}, {"npu_key", npu_key}});
    if (!f) continue;
    f->details = {{"namespace", ns},
                  {"dispatch_key", key},
                  {"npu_dispatch_key", npu_key},
                  {"ops", join(ops, ", ")},
                  {"count", std::to_string(ops.size())}};
    sink.report(std::move(*f));
  }
}

}  // namespace custom_ops::native
