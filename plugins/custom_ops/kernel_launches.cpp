// CUDA kernel launches (<<<…>>> and the cudaLaunchKernel/cuLaunchKernel APIs), the calls around
// them, and the report of kernels with their launch sites (OPS-001, OPS-002).

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "file_scanner.hpp"
#include "kernel_advice.hpp"
#include "native_facts.hpp"

namespace custom_ops::native {
namespace {

constexpr const char* kKernel = "OPS-001";

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool isSpaceChar(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// `s` with each `…_cast<…>` replaced by a space (as the regex `\w+_cast\s*<[^>]*>` did).
std::string withoutCasts(std::string_view s) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (!isWordChar(s[i])) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < s.size() && isWordChar(s[e])) ++e;
    if (e - i > 5 && s.substr(e - 5, 5) == "_cast") {
      std::size_t k = e;
      while (k < s.size() && isSpaceChar(s[k])) ++k;
      const std::size_t close = k < s.size() && s[k] == '<' ? s.find('>', k + 1) : std::string_view::npos;
      if (close != std::string_view::npos) {
        out.append(s.substr(copied, i - copied)).append(" ");
        copied = i = close + 1;
        continue;
      }
    }
    i = e;
  }
  return out.append(s.substr(copied));
}
constexpr const char* kLaunch = "OPS-002";

bool isLaunchApi(std::string_view s) {
  return s == "cudaLaunchKernel" || s == "cudaLaunchCooperativeKernel" || s == "cudaLaunchKernelEx" ||
         s == "cuLaunchKernel" || s == "cuLaunchCooperativeKernel" || s == "cuLaunchKernelEx" ||
         s == "cudaLaunchKernelExC";
}

}  // namespace

// ---- calls and launches on the tree -------------------------------------------------------------

void FileScanner::onCall(TSNode n) {
  TSNode fn = field(n, "function");
  if (ts_node_is_null(fn)) return;
  TSNode launch{};
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode c = ts_node_named_child(n, i);
    if (type(c) == "kernel_call_syntax") launch = c;
  }
  const std::string_view ft = type(fn);
  std::string name;
  if (ft == "identifier") {
    name = std::string(text(fn));
  } else if (ft == "template_function") {
    TSNode nm = field(fn, "name");
    name = std::string(ts_node_is_null(nm) ? text(fn) : text(nm));
  } else if (ft == "qualified_identifier") {
    name = collapseSpace(text(fn));
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  }
  TSNode args = field(n, "arguments");
  if (!ts_node_is_null(launch)) {
    std::string config =
        masked_.substr(ts_node_start_byte(launch), ts_node_end_byte(launch) - ts_node_start_byte(launch));
    if (startsWith(config, "<<<")) config = config.substr(3);
    if (endsWith(config, ">>>")) config.resize(config.size() - 3);
    addLaunch(n, std::string(lastSegment(name.empty() ? text(fn) : name)), collapseSpace(config), "<<<>>>",
              args);
    return;
  }
  if (ft == "field_expression") {
    TSNode member = field(fn, "field");
    const std::string_view m = ts_node_is_null(member) ? std::string_view() : text(member);
    if (m == "is_cuda") use(kRuntime, n, ".is_cuda()");
    onBindingCall(fn, m, args);
    return;
  }
  if (name.empty()) return;
  const std::string_view last = lastSegment(name);
  if (isLaunchApi(last)) {
    // cudaLaunchKernel((void*)k, …): the first argument; cudaLaunchKernelEx(&cfg, k, …): the second.
    std::string kernel = "?";
    const uint32_t index = endsWith(last, "Ex") || endsWith(last, "ExC") ? 1 : 0;
    if (!ts_node_is_null(args) && ts_node_named_child_count(args) > index) {
      // `(void*)&ns::kernel<T>`, `reinterpret_cast<void*>(kernel)`: drop casts and template
      // arguments, then the last identifier is the kernel.
      // Loops, not std::regex, whose matcher recursed once per character and overflowed the
      // stack on a long argument.
      std::string a = withoutCasts(text(ts_node_named_child(args, index)));
      a = a.substr(0, a.find('<'));
      for (std::size_t i = 0; i < a.size();) {
        if (!std::isalpha(static_cast<unsigned char>(a[i])) && a[i] != '_') {
          ++i;
          continue;
        }
        std::size_t e = i;
        while (e < a.size() && isWordChar(a[e])) ++e;
        const std::string ident = a.substr(i, e - i);
        if (ident != "void" && ident != "const") kernel = ident;
        i = e;
      }
    }
    addLaunch(n, kernel, "", std::string(last), args);
    return;
  }
  if (ft == "identifier") addCallee(name);
  if (startsWith(last, "atomic")) addFeature("atomics");
  if (last == "__syncthreads") addFeature("block_sync");
  if (const char* rule = classifyName(name, NameKind::Call)) use(rule, fn, name);
}

/// `auto kernel = &selective_scan_fwd_kernel<Traits>; kernel<<<…>>>(…)`: the function a local
/// launch variable was assigned from, searched in the enclosing function before the launch.
void FileScanner::scanAssignments(std::size_t end) {
  // `name = &?(ns::)*target` followed by '<' or ';', for a `name` starting a word (the window's
  // start counts as a word start, as the function's start did for the regex this replaces).
  // An assignment the window's end cuts off is read again from its start by the next call.
  const std::string& m = masked_;
  std::size_t i = assignments_.scanned;
  auto spaces = [&](std::size_t k) {
    while (k < end && isSpaceChar(m[k])) ++k;
    return k;
  };
  while (i < end) {
    if (!isWordChar(m[i]) || (i > assignments_.from && isWordChar(m[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t word_end = i;
    while (word_end < end && isWordChar(m[word_end])) ++word_end;
    std::size_t k = spaces(word_end);
    std::size_t next = word_end;
    bool cut = k == end;
    if (k < end && m[k] == '=') {
      k = spaces(k + 1);
      if (k < end && m[k] == '&') k = spaces(k + 1);
      cut = k == end;
      while (k < end && (std::isalpha(static_cast<unsigned char>(m[k])) || m[k] == '_')) {
        const std::size_t target = k;
        while (k < end && isWordChar(m[k])) ++k;
        if (k + 1 < end && m[k] == ':' && m[k + 1] == ':') {
          k += 2;
          cut = k == end;
          continue;
        }
        const std::size_t after = spaces(k);
        cut = after == end || (k + 1 == end && m[k] == ':');
        if (after < end && (m[after] == '<' || m[after] == ';')) {
          assignments_.targets[m.substr(i, word_end - i)] = m.substr(target, k - target);
          next = after + 1;
        }
        break;
      }
    }
    if (cut && next == word_end) {
      assignments_.scanned = i;
      return;
    }
    i = next;
  }
  assignments_.scanned = end;
}

std::string FileScanner::launchTarget(TSNode call, const std::string& name) {
  if (functions_.empty() || name.empty()) return name;
  const uint32_t from = ts_node_start_byte(functions_.back().node);
  const uint32_t to = ts_node_start_byte(call);
  if (to <= from) return name;
  // The assignments of the function's text before the call, read once per function and then on
  // from where the last launch left off: a regex over all of the text before each launch was
  // quadratic over a function of thousands of launches.
  if (assignments_.from != from || assignments_.scanned > to) assignments_ = {from, from, {}};
  scanAssignments(to);
  const auto it = assignments_.targets.find(name);
  return it == assignments_.targets.end() ? name : it->second;
}

void FileScanner::addLaunch(TSNode call, std::string kernel, std::string config, std::string via,
                            TSNode args) {
  Launch l;
  l.written = kernel;
  if (kernel.size() < 64 &&
      kernel.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
          std::string::npos)
    kernel = launchTarget(call, kernel);
  l.file = path_;
  l.range = range(call);
  l.kernel = std::move(kernel);
  l.config = std::move(config);
  l.via = std::move(via);
  for (auto it = functions_.rbegin(); it != functions_.rend(); ++it)
    if (!it->name.empty()) {
      l.function = it->name;
      break;
    }
  l.arguments = ts_node_is_null(args) ? 0 : static_cast<int>(ts_node_named_child_count(args));
  repo_.cuda_functions.insert(l.function);
  repo_.launches.push_back(std::move(l));
  repo_.cuda_evidence_files.insert(path_);
}

// ---- reporting ----------------------------------------------------------------------------------

namespace {

std::string siteOf(const std::string& file, std::uint32_t line) {
  return file + ":" + std::to_string(line);
}

/// Kernels inherit the features of the __device__ helpers they call (by name, repository-wide).
void propagateFeatures(Repo& repo) {
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (auto& [name, df] : repo.device_functions)
      for (const auto& callee : df.callees) {
        auto it = repo.device_functions.find(callee);
        if (it == repo.device_functions.end() || &it->second == &df) continue;
        for (const auto& feat : it->second.features) changed |= df.features.insert(feat).second;
      }
    if (!changed) break;
  }
  for (Kernel& k : repo.kernels)
    for (const auto& callee : k.callees)
      if (auto it = repo.device_functions.find(callee); it != repo.device_functions.end())
        k.features.insert(it->second.features.begin(), it->second.features.end());
}

}  // namespace

void reportKernelsAndLaunches(Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  std::multimap<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < repo.kernels.size(); ++i) by_name.emplace(repo.kernels[i].name, i);
  for (Launch& l : repo.launches)
    if (by_name.count(l.written) || !by_name.count(l.kernel)) l.kernel = l.written;
  for (const Launch& l : repo.launches) {
    auto [b, e] = by_name.equal_range(l.kernel);
    bool same_file = false;
    for (auto it = b; it != e; ++it) same_file |= repo.kernels[it->second].file == l.file;
    for (auto it = b; it != e; ++it)
      if (!same_file || repo.kernels[it->second].file == l.file)
        repo.kernels[it->second].launch_sites.push_back(siteOf(l.file, l.range.line));
  }
  propagateFeatures(repo);
  for (const Kernel& k : repo.kernels) {
    const KernelAdvice a = adviseCudaKernel(k.name, k.features);
    std::string description =
        !k.description.empty() ? k.description : describeName(k.name) + " (derived from the name)";
    while (!description.empty() && (description.back() == '.' || description.back() == ' '))
      description.pop_back();
    auto f = rules.make(kKernel, k.file, k.range, k.name, {},
                        {{"kernel", k.name},
                         {"description", description},
                         {"path", a.replacement_path},
                         {"npu", a.replacement_path},
                         {"effort", effortLabel(a.effort_days)}});
    if (!f) continue;
    f->effort_days = a.effort_days;
    f->difficulty = difficultyOf(a.effort_days);
    if (k.recovered) f->confidence = sdk::Level::Medium;
    std::vector<std::string> features(k.features.begin(), k.features.end());
    f->details = {{"kernel", k.name},
                  {"group", k.name},  // one bottleneck per kernel
                  {"qualified_name", k.qualified},
                  {"signature", k.signature},
                  {"template", k.template_params},
                  {"launches", std::to_string(k.launch_sites.size())},
                  {"launch_sites", join(k.launch_sites, ", ")},
                  {"description", description},
                  {"category", a.category},
                  {"replacement_kind", a.kind},
                  {"replacement_path", a.replacement_path},
                  {"effort", effortLabel(a.effort_days)},
                  {"effort_days", formatDays(a.effort_days)},
                  {"features", join(features, ", ")},
                  {"source", k.file + ":" + std::to_string(k.first_line) + "-" + std::to_string(k.last_line)},
                  {"language", "cuda"}};
    sink.report(std::move(*f));
  }
  for (const Launch& l : repo.launches) {
    std::string defined;
    auto [b, e] = by_name.equal_range(l.kernel);
    for (auto it = b; it != e; ++it) {
      const Kernel& k = repo.kernels[it->second];
      if (!defined.empty()) defined += ", ";
      defined += siteOf(k.file, k.range.line);
    }
    const std::string how = l.via == "<<<>>>" ? "<<<" + l.config + ">>>" : l.via + "(…)";
    auto f = rules.make(kLaunch, l.file, l.range, l.kernel, {},
                        {{"kernel", l.kernel}, {"value", how}, {"config", l.config}, {"via", l.via}});
    if (!f) continue;
    std::vector<std::string> parts;
    {
      int depth = 0;
      std::string cur;
      for (char c : l.config) {
        if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
        if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
        if (c == ',' && depth == 0) {
          parts.push_back(collapseSpace(cur));
          cur.clear();
        } else {
          cur += c;
        }
      }
      if (!cur.empty()) parts.push_back(collapseSpace(cur));
    }
    f->details = {{"kernel", l.kernel},
                  {"group", l.kernel},  // one bottleneck per kernel
                  {"via", l.via},
                  {"config", l.config},
                  {"grid", parts.size() > 0 ? parts[0] : ""},
                  {"block", parts.size() > 1 ? parts[1] : ""},
                  {"shared_mem", parts.size() > 2 ? parts[2] : ""},
                  {"stream", parts.size() > 3 ? parts[3] : ""},
                  {"arguments", std::to_string(l.arguments)},
                  {"function", l.function},
                  {"kernel_defined_at", defined}};
    sink.report(std::move(*f));
  }
}

}  // namespace custom_ops::native
