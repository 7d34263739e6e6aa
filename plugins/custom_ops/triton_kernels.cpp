// Triton kernels, their autotune configs and launches, and Triton APIs missing on triton-ascend
// (OPS-021 … OPS-026).

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "byte_regex.hpp"
#include "kernel_advice.hpp"
#include "plugin_support/definitions.hpp"
#include "python_file.hpp"

namespace custom_ops::python {
namespace {

constexpr const char* kTritonKernel = "OPS-021";
constexpr const char* kAutotune = "OPS-022";
constexpr const char* kTritonLaunch = "OPS-023";
constexpr const char* kTritonTma = "OPS-024";
constexpr const char* kTritonDriver = "OPS-025";
constexpr const char* kTritonCudaOnly = "OPS-026";
constexpr const char* kTritonHelper = "OPS-042";

/// The right-hand sides of the lines of `text` that assign `name`, in order (the regex
/// `(^|\n)[ \t]*NAME[ \t]*=[ \t]*([^\n]+)`, whose group it collects, as a loop: a name or line of
/// megabytes recursed once per character in std::regex).
std::vector<std::string> assignments(std::string_view text, std::string_view name) {
  const auto blanks = [&](std::size_t i, std::size_t end) {
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i;
  };
  std::vector<std::string> found;
  for (std::size_t line = 0; line <= text.size();) {
    std::size_t eol = text.find('\n', line);
    if (eol == std::string_view::npos) eol = text.size();
    std::size_t i = blanks(line, eol);
    if (i + name.size() <= eol && text.compare(i, name.size(), name) == 0) {
      i = blanks(i + name.size(), eol);
      if (i < eol && text[i] == '=') {
        const std::size_t value = blanks(i + 1, eol);
        // At least one character: blanks alone leave the last of them (the regex backtracks).
        if (value < eol)
          found.emplace_back(text.substr(value, eol - value));
        else if (value > i + 1)
          found.emplace_back(1, text[eol - 1]);
      }
    }
    line = eol + 1;
  }
  return found;
}

/// The right-hand side of the last line of `text` that assigns `name`; "" when there is none.
std::string lastAssignment(std::string_view text, std::string_view name) {
  auto all = assignments(text, name);
  return all.empty() ? std::string() : std::move(all.back());
}

/// One parameter of a `def`: its name, annotation and default as written.
struct Param {
  std::string name;
  std::string annotation;
  std::string default_value;
};

/// The text between the parentheses of a `def name(...)`, and its byte offset; strings skipped.
std::pair<std::string_view, std::size_t> paramText(std::string_view def) {
  const std::size_t open = def.find('(');
  if (open == std::string_view::npos) return {{}, 0};
  int depth = 0;
  for (std::size_t i = open; i < def.size(); ++i) {
    const char c = def[i];
    if (c == '"' || c == '\'') {
      const char q = c;
      for (++i; i < def.size() && def[i] != q; ++i)
        if (def[i] == '\\') ++i;
      continue;
    }
    if (c == '#') {
      while (i < def.size() && def[i] != '\n') ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0)
      return {def.substr(open + 1, i - open - 1), open + 1};
  }
  return {{}, 0};
}

/// Splits at top-level commas (brackets and strings respected); comments dropped.
std::vector<std::string> splitTopLevel(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const std::size_t b = i;
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
      cur += s.substr(b, i - b + 1);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(collapseSpace(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!collapseSpace(cur).empty()) out.push_back(collapseSpace(cur));
  return out;
}

std::vector<Param> parseParams(std::string_view text) {
  std::vector<Param> out;
  for (const std::string& p : splitTopLevel(text)) {
    Param param;
    std::string rest = p;
    const std::size_t eq = rest.find('=');
    if (eq != std::string::npos) {
      param.default_value = collapseSpace(rest.substr(eq + 1));
      rest = rest.substr(0, eq);
    }
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      param.annotation = collapseSpace(rest.substr(colon + 1));
      rest = rest.substr(0, colon);
    }
    param.name = collapseSpace(rest);
    while (!param.name.empty() && param.name.front() == '*') param.name.erase(0, 1);
    if (!param.name.empty() && param.name != "/") out.push_back(std::move(param));
  }
  return out;
}

}  // namespace

struct PythonFile::KernelFacts {
  std::vector<Param> params;
  std::vector<std::string> constexprs;
  std::vector<std::string> block_params;
  int loads = 0;
  int stores = 0;
  int dots = 0;
  int atomics = 0;
  int program_id_axes = 0;
  std::set<std::string> features;
  const CallFact* autotune = nullptr;
};

PythonFile::KernelFacts PythonFile::kernelFacts(const DefinitionFact& d) const {
  KernelFacts k;
  const std::string_view def = m_.text(d.range);
  k.params = parseParams(paramText(def).first);
  for (const auto& p : k.params) {
    if (p.annotation.find("constexpr") == std::string::npos) continue;
    k.constexprs.push_back(p.name);
    const std::string u = p.name;
    if (u.find("BLOCK") != std::string::npos || u.find("TILE") != std::string::npos ||
        u.find("CHUNK") != std::string::npos || endsWith(u, "_SIZE") || startsWith(u, "BS"))
      k.block_params.push_back(p.name);
  }
  std::set<std::string> axes;
  bool loop = false;
  bool num_programs = false;
  for (const auto& c : m_.calls()) {
    if (!within(c.range, d.range)) continue;
    const std::string& r = c.callee_resolved;
    if (r == "triton.language.load") ++k.loads;
    if (r == "triton.language.store") ++k.stores;
    if (r == "triton.language.dot" || r == "triton.language.dot_scaled") ++k.dots;
    if (startsWith(r, "triton.language.atomic_")) ++k.atomics;
    if (r == "triton.language.make_block_ptr" || r == "triton.language.advance")
      k.features.insert("block_ptr");
    if (r == "triton.language.make_tensor_descriptor" ||
        r == "triton.language._experimental_descriptor_load" ||
        r == "triton.language._experimental_descriptor_store" ||
        r == "triton.language._experimental_make_tensor_descriptor" ||
        startsWith(r, "triton.language.experimental_descriptor") || startsWith(r, "triton.tools."))
      k.features.insert("tma");
    if (r == "triton.language.program_id")
      axes.insert(c.args.empty() ? std::string("0") : c.args.front().text);
    if (r == "triton.language.num_programs") num_programs = true;
    if (c.callee_written == "range" || r == "triton.language.range" || r == "triton.language.static_range")
      loop = true;
  }
  k.program_id_axes = static_cast<int>(axes.size());
  if (k.dots) k.features.insert("dot");
  if (k.atomics) k.features.insert("atomics");
  if (loop) k.features.insert("loop");
  if (loop && num_programs) k.features.insert("grid_stride_loop");
  if (device_queries_) k.features.insert("device_capability");
  if (std::any_of(d.decorators.begin(), d.decorators.end(),
                  [](const std::string& s) { return s == "triton.autotune"; })) {
    k.features.insert("autotune");
    // The autotune decorator is the nearest triton.autotune call above the def.
    for (const auto& c : m_.calls())
      if (c.callee_resolved == "triton.autotune" && c.range.end_byte <= d.range.start_byte &&
          (!k.autotune || c.range.start_byte > k.autotune->range.start_byte))
        k.autotune = &c;
  }
  return k;
}

/// `kernel[grid](…)` calls that launch a Triton kernel: the kernel is defined here, or it is an
/// imported name in a file that uses Triton (or its name says kernel).
std::vector<PythonFile::LaunchInfo> PythonFile::launches() const {
  std::vector<LaunchInfo> out;
  for (const auto& c : m_.calls()) {
    auto s = subscriptCallee(m_, c);
    if (!s) continue;
    // `fx = _fwd_kernel if a else _fwd_kernel_alt; fx[grid](…)`: a local bound to kernels.
    if (!triton_kernel_names_.count(s->base) && s->base.find('.') == std::string::npos) {
      const std::string bound = assignedExpression(c, s->base);
      static const RE2 kWord(R"(([A-Za-z_]\w*))", bytePattern());
      re2::StringPiece rest(bound);
      for (std::string word; RE2::FindAndConsume(&rest, kWord, &word);)
        if (triton_kernel_names_.count(word)) {
          s->base = word;
          break;
        }
    }
    const std::string last = lastPart(s->base);
    bool ok = triton_kernel_names_.count(s->base) > 0;
    if (!ok) {
      bool imported = false;
      for (const auto& ref : m_.references())
        if (ref.range.start_byte == c.name_range.start_byte && ref.written == s->base &&
            !ref.resolved.empty())
          imported = true;
      const bool kernel_name = lower(last).find("kernel") != std::string::npos;
      ok = (imported && (triton_imported_ || kernel_name)) || (triton_imported_ && kernel_name);
    }
    if (ok) out.push_back({&c, std::move(*s)});
  }
  return out;
}

sdk::SourceRange PythonFile::decoratorSite(const DefinitionFact& d,
                                           const std::function<bool(const std::string&)>& is) const {
  // The nearest such decorator above the def (`@x` or `@x(...)`) with no other definition between.
  const sdk::ReferenceFact* decorator = nullptr;
  for (const auto& ref : m_.references())
    if (ref.role == sdk::ReferenceFact::Role::Decorator && is(ref.resolved) &&
        ref.range.end_byte <= d.range.start_byte &&
        (!decorator || ref.range.start_byte > decorator->range.start_byte))
      decorator = &ref;
  if (!decorator) return nameRange(d);
  const bool other_between =
      std::any_of(m_.definitions().begin(), m_.definitions().end(), [&](const auto& o) {
        return o.range.start_byte > decorator->range.end_byte && o.range.start_byte < d.range.start_byte;
      });
  return other_between ? nameRange(d) : decorator->range;
}

sdk::SourceRange PythonFile::kernelSite(const DefinitionFact& d) const {
  if (std::any_of(d.decorators.begin(), d.decorators.end(), isTritonJit))
    return decoratorSite(d, [](const std::string& r) { return isTritonJit(r); });
  // `kernel = triton.jit(kernel)`: the call applies the decorator.
  if (const auto it = jit_calls_.find(d.name); it != jit_calls_.end()) return it->second->range;
  for (const auto& c : m_.calls())
    if (isTritonJit(c.callee_resolved) && !c.args.empty() && c.args.front().index == 0 &&
        c.args.front().text == d.name && c.range.start_byte >= d.range.end_byte)
      return c.range;
  return nameRange(d);
}

void PythonFile::tritonKernels() {
  if (triton_kernels_.empty()) return;
  const auto all_launches = launches();
  for (const DefinitionFact* def : triton_kernels_) {
    const DefinitionFact& d = *def;
    KernelFacts k = kernelFacts(d);
    // A @triton.jit helper that touches no memory (no load/store/atomic/descriptor, no
    // program_id) is inlined into kernels: no block or grid of its own to adapt, but it is
    // compiled by triton-ascend with them (OPS-042).
    if (k.loads == 0 && k.stores == 0 && k.atomics == 0 && k.program_id_axes == 0 &&
        !k.features.count("tma") && !k.features.count("block_ptr")) {
      auto h =
          rules_.make(kTritonHelper, std::string(m_.path()), kernelSite(d), d.name, {}, {{"kernel", d.name}});
      if (!h) continue;
      h->details = {{"kernel", d.name}, {"qualified_name", d.qualified_name}, {"language", "triton"}};
      report(std::move(h));
      continue;
    }
    std::vector<std::string> sites;
    std::vector<std::string> grids;
    for (const auto& l : all_launches)
      if (l.callee.base == d.name) {
        sites.push_back(std::string(m_.path()) + ":" + std::to_string(l.call->range.line));
        if (std::find(grids.begin(), grids.end(), l.callee.grid) == grids.end())
          grids.push_back(l.callee.grid);
      }
    const KernelAdvice a = adviseTritonKernel(d.name, k.features);
    const std::string description = summaryOrName(d);
    const std::string blocks = k.block_params.empty() ? std::string("none") : join(k.block_params, ", ");
    auto f = rules_.make(kTritonKernel, std::string(m_.path()), kernelSite(d), d.name, {},
                         {{"kernel", d.name},
                          {"description", description},
                          {"blocks", blocks},
                          {"path", a.replacement_path},
                          {"npu", a.replacement_path},
                          {"effort", effortLabel(a.effort_days)}});
    if (!f) continue;
    f->effort_days = a.effort_days;
    f->difficulty = difficultyOf(a.effort_days);
    std::vector<std::string> params;
    for (const auto& p : k.params)
      params.push_back(p.annotation.empty() ? p.name : p.name + ": " + p.annotation);
    std::vector<std::string> features(k.features.begin(), k.features.end());
    f->details = {{"kernel", d.name},
                  {"group", d.name},  // one bottleneck per kernel
                  {"qualified_name", d.qualified_name},
                  {"signature", std::string("(").append(join(params, ", ")).append(")")},
                  {"constexpr_params", join(k.constexprs, ", ")},
                  {"block_params", join(k.block_params, ", ")},
                  {"loads", std::to_string(k.loads)},
                  {"stores", std::to_string(k.stores)},
                  {"dots", std::to_string(k.dots)},
                  {"atomics", std::to_string(k.atomics)},
                  {"grid_axes", std::to_string(k.program_id_axes)},
                  {"features", join(features, ", ")},
                  {"autotuned", k.autotune || k.features.count("autotune") ? "yes" : "no"},
                  {"launches", std::to_string(sites.size())},
                  {"launch_sites", join(sites, ", ")},
                  {"grids", join(grids, " | ")},
                  {"description", description},
                  {"category", a.category},
                  {"replacement_kind", a.kind},
                  {"replacement_path", a.replacement_path},
                  {"effort", effortLabel(a.effort_days)},
                  {"effort_days", formatDays(a.effort_days)},
                  {"decorators", join(d.decorators, ", ")},
                  {"source", std::string(m_.path()) + ":" + std::to_string(d.range.line) + "-" +
                                 std::to_string(d.range.end_line)},
                  {"language", "triton"}};
    report(std::move(f));
  }
}

void PythonFile::tritonAutotune() {
  const auto& calls = m_.calls();
  std::vector<const CallFact*> tunes;
  for (const auto& c : calls)
    if (c.callee_resolved == "triton.autotune") tunes.push_back(&c);
  if (tunes.empty()) return;
  // Configs built outside the decorator (configs=NAME or a helper function).
  std::vector<const CallFact*> loose;
  for (const auto& c : calls)
    if (c.callee_resolved == "triton.Config" &&
        std::none_of(tunes.begin(), tunes.end(),
                     [&](const CallFact* t) { return within(c.range, t->range); }))
      loose.push_back(&c);
  for (const CallFact* t : tunes) {
    std::vector<const CallFact*> configs;
    for (const auto& c : calls)
      if (c.callee_resolved == "triton.Config" && within(c.range, t->range)) configs.push_back(&c);
    const bool indirect = configs.empty();
    if (indirect) configs = loose;
    std::set<std::string> warps, stages, keys;
    for (const CallFact* c : configs) {
      for (const auto& a : c->args) {
        if (a.keyword == "num_warps") warps.insert(a.text);
        if (a.keyword == "num_stages") stages.insert(a.text);
        if (a.index == 0 || a.keyword == "kwargs") {
          static const RE2 kKey(R"(["'](\w+)["'][[:space:]]*:)", bytePattern());
          forEachMatch(kKey, a.text, [&](const auto& groups) { keys.insert(str(groups[1])); });
        }
      }
    }
    const std::string written =
        t->callee_written.empty() ? std::string("triton.autotune") : t->callee_written;
    const std::string configs_text = argText(*t, "configs", 0);
    static const RE2 kComprehension(R"(\bfor\b(?s:.)*\bin\b)", bytePattern());
    const bool generated = !indirect && RE2::PartialMatch(configs_text, kComprehension);
    std::string summary = generated ? std::string("configs generated by a comprehension")
                          : configs.empty()
                              ? "configs from " + clip(collapseSpace(configs_text), 80)
                              : std::to_string(configs.size()) + " config" + (configs.size() == 1 ? "" : "s");
    if (!warps.empty()) summary += ", num_warps " + join({warps.begin(), warps.end()}, "/");
    if (!stages.empty()) summary += ", num_stages " + join({stages.begin(), stages.end()}, "/");
    auto f = rules_.make(kAutotune, std::string(m_.path()), t->name_range, written, t->callee_resolved,
                         {{"value", summary}});
    if (!f) continue;
    f->details = {{"configs", std::to_string(configs.size())},
                  {"configs_source", indirect    ? "outside the decorator"
                                     : generated ? "comprehension"
                                                 : "inline"},
                  {"num_warps", join({warps.begin(), warps.end()}, ", ")},
                  {"num_stages", join({stages.begin(), stages.end()}, ", ")},
                  {"tuned_params", join({keys.begin(), keys.end()}, ", ")},
                  {"key", clip(collapseSpace(argText(*t, "key", 1)), 200)}};
    report(std::move(f));
  }
}

/// The right-hand side of the last `name = …` line before a call (within 4000 bytes), or "".
std::string PythonFile::assignedExpression(const CallFact& c, const std::string& name) const {
  static const RE2 kIdent(R"([A-Za-z_]\w*)", bytePattern());
  if (!RE2::FullMatch(name, kIdent)) return {};
  const std::string_view src = m_.source();
  const std::size_t from = c.range.start_byte > 4000 ? c.range.start_byte - 4000 : 0;
  std::string found = lastAssignment(src.substr(from, c.range.start_byte - from), name);
  if (const auto hash = found.find("  #"); hash != std::string::npos) found = found.substr(0, hash);
  return collapseSpace(found);
}

std::string PythonFile::boundFunction(const CallFact& c, const std::string& name,
                                      const std::set<std::string>& defs) const {
  static const RE2 kIdent(R"([A-Za-z_]\w*)", bytePattern());
  if (!RE2::FullMatch(name, kIdent)) return {};
  const std::string_view src = m_.source();
  const std::size_t from = c.range.start_byte > 4000 ? c.range.start_byte - 4000 : 0;
  static const RE2 kWord(R"(([A-Za-z_]\w*))", bytePattern());
  std::string bound;
  for (const std::string& value : assignments(src.substr(from, c.range.start_byte - from), name)) {
    re2::StringPiece rest(value);
    for (std::string word; RE2::FindAndConsume(&rest, kWord, &word);)
      if (defs.count(word)) {
        bound = word;
        break;
      }
  }
  return bound;
}

/// `grid = lambda meta: (…)` or `grid = (…)` assigned before a launch that passes `grid`.
std::string PythonFile::gridExpression(const CallFact& c, const std::string& grid) const {
  const std::string found = assignedExpression(c, grid);
  return found.empty() ? grid : clip(found, 200);
}

void PythonFile::tritonLaunches() {
  for (const auto& l : launches()) {
    const CallFact& c = *l.call;
    std::vector<std::string> blocks;
    std::string warps, stages;
    const DefinitionFact* kernel = nullptr;
    for (const DefinitionFact* d : triton_kernels_)
      if (d->name == l.callee.base) kernel = d;
    std::set<std::string> constexprs;
    if (kernel)
      for (const auto& p : parseParams(paramText(m_.text(kernel->range)).first))
        if (p.annotation.find("constexpr") != std::string::npos) constexprs.insert(p.name);
    for (const auto& a : c.args) {
      if (a.keyword == "num_warps") warps = a.text;
      if (a.keyword == "num_stages") stages = a.text;
      if (!a.keyword.empty() &&
          (constexprs.count(a.keyword) || a.keyword.find("BLOCK") != std::string::npos ||
           a.keyword.find("TILE") != std::string::npos))
        blocks.push_back(a.keyword + "=" + a.text);
    }
    std::string extra;
    if (!warps.empty()) extra += ", num_warps=" + warps;
    if (!stages.empty()) extra += ", num_stages=" + stages;
    const std::string grid_expression = gridExpression(c, l.callee.grid);
    auto f =
        rules_.make(kTritonLaunch, std::string(m_.path()), c.name_range, l.callee.base, {},
                    {{"kernel", l.callee.base}, {"grid", l.callee.grid}, {"value", grid_expression + extra}});
    if (!f) continue;
    f->details = {{"kernel", l.callee.base},
                  {"group", l.callee.base},  // one bottleneck per kernel
                  {"grid", l.callee.grid},
                  {"num_warps", warps},
                  {"num_stages", stages},
                  {"block_args", join(blocks, ", ")},
                  {"arguments", std::to_string(c.args.size())},
                  {"grid_expression", grid_expression},
                  {"kernel_defined_here", kernel ? "yes" : "no"}};
    report(std::move(f));
  }
}

/// The rule of a Triton API that does not exist on triton-ascend, or nullptr.
const char* PythonFile::tritonApiRule(const std::string& r) {
  if (r == "triton.language.make_tensor_descriptor" ||
      r == "triton.language._experimental_make_tensor_descriptor" ||
      r == "triton.language._experimental_descriptor_load" ||
      r == "triton.language._experimental_descriptor_store" ||
      startsWith(r, "triton.tools.tensor_descriptor.") ||
      startsWith(r, "triton.tools.experimental_descriptor."))
    return kTritonTma;
  if (r == "triton.runtime.driver.active.utils.get_device_properties" ||
      r == "triton.runtime.driver.active.get_current_target")
    return kTritonDriver;
  if (r == "triton.language.inline_asm_elementwise" || r == "triton.language.core.inline_asm_elementwise" ||
      startsWith(r, "triton.language.extra.cuda."))
    return kTritonCudaOnly;
  return nullptr;
}

/// TMA descriptors, driver property queries and CUDA-only extensions (custom rather than data
/// rules so that NPU ports and other vendors' backends stay silent).
void PythonFile::tritonApis() {
  for (const auto& ref : m_.references())
    if (const char* rule = tritonApiRule(ref.resolved))
      report(rules_.make(rule, std::string(m_.path()), primitiveSite(ref.range), ref.written, ref.resolved));
}

/// A use inside a `@core.extern` function (a hand-written PTX primitive, the whole function is
/// what to port) belongs on that decorator; any other use stays where it is.
sdk::SourceRange PythonFile::primitiveSite(const sdk::SourceRange& use) const {
  const auto isExtern = [](const std::string& r) {
    return r == "triton.language.core.extern" || r == "triton.language.extern";
  };
  const DefinitionFact* inner = plugin_support::innermostDefinition(m_, use, DefinitionFact::Kind::Function);
  if (!inner || std::none_of(inner->decorators.begin(), inner->decorators.end(), isExtern)) return use;
  return decoratorSite(*inner, isExtern);
}

}  // namespace custom_ops::python
