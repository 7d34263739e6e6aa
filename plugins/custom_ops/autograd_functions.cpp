// torch.autograd.Function subclasses whose passes run custom kernels (OPS-027), and plain imports
// those passes call like compiled extensions (OPS-028).

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "byte_regex.hpp"
#include "python_file.hpp"
#include "python_scan.hpp"

namespace custom_ops::python {
namespace {

constexpr const char* kAutogradFunction = "OPS-027";

std::string rootPart(const std::string& chain) {
  return chain.substr(0, chain.find('.'));
}

}  // namespace

std::optional<PythonFile::ProviderCall> PythonFile::providerCall(const CallFact& c) const {
  if (extension_providers_.empty() || !c.callee_written.empty()) return std::nullopt;
  static const RE2 kShape(R"(^\s*([A-Za-z_]\w*)\s*\(\s*\)\s*\.\s*(\w+)\s*\()", bytePattern());
  std::string provider, function;
  if (!RE2::PartialMatch(m_.text(c.range), kShape, &provider, &function) ||
      !extension_providers_.count(provider))
    return std::nullopt;
  return ProviderCall{provider, function};
}

/// Why a call runs a custom kernel, or empty.
std::string PythonFile::kernelCall(const CallFact& c) const {
  if (const auto p = providerCall(c)) return p->provider + "()." + p->function;
  if (!c.callee_written.empty() && extension_names_.count(rootPart(c.callee_written)) &&
      c.callee_written.find('.') != std::string::npos)
    return c.callee_written;
  if (extension_functions_.count(c.callee_written)) return c.callee_written;
  if (!factoryObjectCall(c).empty()) return c.callee_written;  // an object an extension factory made
  // `CausalDotProduct.dot[device.type](…)`: a function looked up in a table of the extension's.
  if (const auto s = subscriptCallee(m_, c); s && kernel_tables_.count(lastPart(s->base)))
    return s->base + "[" + s->grid + "]";
  // `OP.forward(…)` with `OP = torch.ops.NS` and NS built by a load() of this file.
  if (c.callee_written.find('.') != std::string::npos &&
      op_namespace_names_.count(rootPart(c.callee_written)))
    return c.callee_written;
  // `MSDA.forward(...)`, not `pkg.backend.fn(...)`: a package's submodule is what that call runs.
  const std::size_t dot = c.callee_written.find('.');
  if (!c.callee_written.empty() && dot != std::string::npos &&
      c.callee_written.find('.', dot + 1) == std::string::npos &&
      plain_modules_.count(rootPart(c.callee_written))) {
    static const RE2 kKernelish(R"((?:^|_)(?:forward|backward|fwd|bwd)(?:_|$)|cuda|kernel)", bytePattern());
    if (RE2::PartialMatch(lower(lastPart(c.callee_written)), kKernelish)) {
      used_plain_modules_.insert(rootPart(c.callee_written));
      return c.callee_written;
    }
  }
  const std::string& r = c.callee_resolved;
  if (startsWith(r, "torch.ops.")) {
    const std::string ns = rootPart(r.substr(10));
    static const std::set<std::string> kBuiltin = {
        "aten",     "prims",    "prim",         "quantized", "_quantized",  "c10d",     "_c10d_functional",
        "_dtensor", "profiler", "higher_order", "npu",       "torchvision", "inductor", "load_library"};
    if (!ns.empty() && !kBuiltin.count(ns) && r.find('.', 10) != std::string::npos) return r;
  }
  // Kernel libraries: their ops (flash_attn's interface, xformers.ops, mamba_ssm.ops, stk.ops, …),
  // imported or called through the library's module; not when the file belongs to that library
  // itself (its own helpers are judged by their module).
  if (!r.empty() && kernelLibrary(r)) {
    const std::string lib = rootPart(r);
    // Appends, not operator+: GCC 12 misreads `"." + std::string(…) + "."` (-Wrestrict).
    const std::string own = std::string(".").append(m_.dottedName()).append(".");
    if (own.find(std::string(".").append(lib).append(".")) == std::string::npos &&
        (r.find(".ops.") != std::string::npos || r.find("_interface.") != std::string::npos ||
         lib == "causal_conv1d" || lib == "apex" || lib == "flashinfer" || lib == "sgl_kernel" ||
         lib == "grouped_gemm" || lib == "fast_hadamard_transform"))
      return r;
  }
  if (!r.empty() && r != c.callee_written) {  // an imported function
    // Helpers of a kernels module (device contexts, block-size calculators, checks) are not kernels.
    static const char* const kHelperPrefixes[] = {
        "get_", "is_",        "has_",       "calculate_", "ensure_",  "check_", "torch_",  "set_", "_get",
        "_is",  "_calculate", "next_power", "cdiv",       "compare_", "infer_", "device_", "use_", "_ensure"};
    const std::string fn = lastPart(r);
    for (const char* p : kHelperPrefixes)
      if (startsWith(fn, p)) return {};
    if (kernelishModule(r.substr(0, r.rfind('.')))) return r;
  }
  return {};
}

std::string PythonFile::kernelReference(const sdk::AttributeFact& a) const {
  if (a.receiver_written.empty() || startsWith(a.name, "__") ||
      !extension_names_.count(rootPart(a.receiver_written)))
    return {};
  if (dualBuildCpuKernel(a.name) || constantName(a.name)) return {};
  // `cuda_ext.none_tensor` where `cuda_ext` is a Python module of the repository (its wrappers
  // are called, and those calls are reported): a value that module defines, not a kernel.
  const std::string root = rootPart(a.receiver_written);
  for (const auto& imp : m_.imports())
    if (imp.bound == root && m_.isProjectModule(imp.target)) return {};
  // `wkv_kernel.context_size = n` … `wkv_kernel.context_size`: an attribute the file sets on the
  // loaded module itself, Python state, not a kernel.
  const RE2 set_here("(?m)^[ \\t]*" + RE2::QuoteMeta(a.receiver_written + "." + a.name) + "[ \\t]*=[^=]",
                     bytePattern());
  if (RE2::PartialMatch(m_.source(), set_here)) return {};
  return a.receiver_written + "." + a.name;
}

void PythonFile::autogradFunctions() {
  std::vector<const DefinitionFact*> classes;
  for (const auto& d : m_.definitions())
    if (d.kind == DefinitionFact::Kind::Class &&
        std::any_of(d.bases.begin(), d.bases.end(), [](const std::string& b) {
          return b == "torch.autograd.Function" || b == "torch.autograd.function.Function" ||
                 b == "torch.autograd.function.InplaceFunction";
        }))
      classes.push_back(&d);
  if (classes.empty()) return;
  std::set<std::uint32_t> launch_bytes;
  for (const auto& l : launches()) launch_bytes.insert(l.call->range.start_byte);
  auto reason = [&](const CallFact& c) {
    if (launch_bytes.count(c.range.start_byte)) {
      auto s = subscriptCallee(m_, c);
      return (s ? s->base : std::string("kernel")) + "[grid]";
    }
    // `cu_kernel_forward[blocks, threads](…)`: a numba.cuda (or other CUDA DSL) kernel launch.
    if (auto s = subscriptCallee(m_, c); s && dsl_kernel_names_.count(s->base)) return s->base + "[grid]";
    for (const auto& t : tvm_sites_)
      if (t.range.start_byte == c.name_range.start_byte) return t.written;
    // A launch of an NVIDIA Warp kernel, or an nvFuser fusion built to be executed: CUDA code
    // generators with no NPU backend.
    const std::string& r = c.callee_resolved;
    if (r == "warp.launch" || r == "warp.launch_tiled" || r == "nvfuser.FusionDefinition") return r;
    return kernelCall(c);
  };
  // Functions of this file that run custom kernels, directly or through each other: called by
  // name, or through a class of this file (`DiagonaledMM._get_function(…)`, a static method).
  std::set<std::string> own_classes;
  for (const auto& d : m_.definitions())
    if (d.kind == DefinitionFact::Kind::Class) own_classes.insert(d.name);
  auto ownFunction = [&](const CallFact& c) -> std::string {
    const std::size_t dot = c.callee_written.find('.');
    if (dot == std::string::npos) return c.callee_written;
    if (c.callee_written.find('.', dot + 1) == std::string::npos &&
        own_classes.count(c.callee_written.substr(0, dot)))
      return c.callee_written.substr(dot + 1);
    return {};
  };
  std::map<std::string, std::string> runs;  // function name -> first kernel call
  std::vector<const DefinitionFact*> functions;
  for (const auto& d : m_.definitions())
    if (d.kind == DefinitionFact::Kind::Function && !triton_kernel_names_.count(d.name))
      functions.push_back(&d);
  for (const DefinitionFact* d : functions) {
    for (const auto& c : m_.calls())
      if (within(c.range, d->range))
        if (std::string why = reason(c); !why.empty() && !runs.count(d->name)) runs[d->name] = why;
    for (const auto& a : value_reads_)
      if (within(a.range, d->range))
        if (std::string why = kernelReference(a); !why.empty() && !runs.count(d->name)) runs[d->name] = why;
  }
  for (int round = 0; round < 6; ++round) {
    bool changed = false;
    for (const DefinitionFact* d : functions) {
      if (runs.count(d->name)) continue;
      for (const auto& c : m_.calls())
        if (const std::string own = ownFunction(c);
            within(c.range, d->range) && runs.count(own) && own != d->name) {
          runs[d->name] = c.callee_written + "() -> " + runs[own];
          changed = true;
          break;
        }
    }
    if (!changed) break;
  }
  // Each Function's kernel calls per pass; a Function whose passes apply another Function of this
  // file that runs kernels (`FusedSiLU_deriv_1.apply(x)`) runs them too.
  std::vector<std::map<std::string, std::vector<std::string>>> passes(classes.size());
  // Per Function, per pass: the `Other.apply(…)` calls (as written) and the class each applies.
  std::vector<std::map<std::string, std::vector<std::pair<std::string, std::string>>>> applies(
      classes.size());
  std::map<std::string, std::string> kernel_classes;  // class name -> its first kernel call
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const DefinitionFact* cls = classes[i];
    std::map<std::string, std::vector<std::string>>& per_method = passes[i];
    for (const auto& d : m_.definitions()) {
      if (d.kind != DefinitionFact::Kind::Function || !within(d.range, cls->range)) continue;
      if (d.name != "forward" && d.name != "backward" && d.name != "setup_context" && d.name != "jvp")
        continue;
      std::vector<std::string>& found = per_method[d.name];
      for (const auto& c : m_.calls()) {
        if (!within(c.range, d.range)) continue;
        std::string why = reason(c);
        if (const std::string own = ownFunction(c); why.empty() && runs.count(own))
          why = c.callee_written + "() -> " + runs.at(own);
        if (!why.empty() && std::find(found.begin(), found.end(), why) == found.end()) found.push_back(why);
        if (const std::size_t dot = c.callee_written.find('.');
            dot != std::string::npos && c.callee_written.substr(dot) == ".apply")
          applies[i][d.name].emplace_back(c.callee_written, c.callee_written.substr(0, dot));
      }
      for (const auto& a : value_reads_)
        if (within(a.range, d.range))
          if (std::string why = kernelReference(a);
              !why.empty() && std::find(found.begin(), found.end(), why) == found.end())
            found.push_back(why);
    }
    for (const auto& [method, calls] : per_method)
      if (!calls.empty() && !kernel_classes.count(cls->name)) kernel_classes[cls->name] = calls.front();
  }
  for (int round = 0; round < 6; ++round) {
    bool changed = false;
    for (std::size_t i = 0; i < classes.size(); ++i) {
      if (kernel_classes.count(classes[i]->name)) continue;
      for (const auto& [method, calls] : applies[i])
        for (const auto& [written, applied] : calls) {
          const auto other = kernel_classes.find(applied);
          if (other == kernel_classes.end()) continue;
          passes[i][method].push_back(written + "() -> " + other->second);
          kernel_classes[classes[i]->name] = passes[i][method].back();
          changed = true;
        }
    }
    if (!changed) break;
  }
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const DefinitionFact* cls = classes[i];
    std::map<std::string, std::vector<std::string>>& per_method = passes[i];
    std::vector<std::string> all;
    for (const auto& [method, calls] : per_method)
      for (const auto& c : calls) all.push_back(method + ": " + c);
    if (all.empty()) continue;
    const bool has_backward = per_method.count("backward") > 0;
    auto f = rules_.make(kAutogradFunction, std::string(m_.path()), nameRange(*cls), cls->name, {},
                         {{"value", clip(join(all, "; "), 240)}, {"class", cls->name}});
    if (!f) continue;
    f->details = {{"class", cls->qualified_name},
                  {"forward_calls", per_method.count("forward") ? join(per_method["forward"], "; ") : ""},
                  {"backward_calls", has_backward ? join(per_method["backward"], "; ") : ""},
                  {"has_backward", has_backward ? "yes" : "no"}};
    report(std::move(f));
  }
  // A plain `import X as Y` whose module autograd passes call like a kernel is a compiled extension:
  // its import is reported here, and its calls, wherever they stand, by extensionCalls.
  for (const auto& bound : used_plain_modules_) {
    extension_names_.insert(bound);
    const sdk::ImportFact& imp = *plain_modules_.at(bound);
    if (looksLikeExtensionModule(imp.module)) continue;  // already reported with the imports
    auto f = rules_.make(kExtensionImport, std::string(m_.path()), imp.range, imp.module, imp.module,
                         {{"value", imp.module}});
    if (!f) continue;
    f->confidence = sdk::Level::Medium;
    f->details = {
        {"module", imp.module}, {"bound_as", imp.bound}, {"evidence", "called from an autograd Function"}};
    report(std::move(f));
  }
}

}  // namespace custom_ops::python
