// Hand-written attention detection: see handwritten.hpp.
//
// A softmax call counts when (1) its input is a product with a transposed key, directly or
// through assignments earlier in the same function (`scores = q @ k.transpose(-2, -1)`, then
// `scores = scores.masked_fill(...)`, then `softmax(scores)`), and (2) its result is multiplied
// with something afterwards (`attn @ v`, `torch.matmul(attn, v)`, `einsum(..., attn, v)`), directly
// or through the name it is assigned to. (2) keeps similarity softmaxes (CLIP logits, sampling)
// out.

#include "handwritten.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "plugin_support/definitions.hpp"

namespace migrate_attention {
namespace {

using migrate::sdk::CallFact;
using migrate::sdk::DefinitionFact;
using migrate::sdk::Module;

bool isSoftmaxFunction(const std::string& resolved) {
  return resolved == "torch.softmax" || resolved == "torch.nn.functional.softmax" ||
         resolved == "torch.special.softmax" || resolved == "torch.Tensor.softmax";
}

/// Names bound to `nn.Softmax(...)` modules in this file: "attend" for `self.attend = nn.Softmax(dim=-1)`,
/// "softmax" for `softmax = nn.Softmax(dim=-1)`.
std::set<std::string> softmaxModules(const Module& module, const SourceText& src) {
  std::set<std::string> names;
  for (const CallFact& c : module.calls()) {
    if (c.callee_resolved != "torch.nn.Softmax") continue;
    // `self.attend = nn.Softmax(dim=-1)`, or inside `self.attend = nn.Sequential(\n nn.Softmax(dim=-1),
    // ...)`.
    std::string target = assignmentTarget(src.line(c.range.line));
    for (std::uint32_t l = c.range.line; target.empty() && l-- > 1 && l + 8 > c.range.line;) {
      const std::string_view before =
          src.text().substr(src.lineStart(l), c.range.start_byte - src.lineStart(l));
      if (bracketBalance(before) <= 0) continue;
      target = assignmentTarget(src.line(l));
      if (target.empty()) break;
    }
    if (target.empty()) continue;
    names.insert(target.rfind("self.", 0) == 0 ? target.substr(5) : target);
  }
  return names;
}

struct Region {
  std::uint32_t first_line = 1;
  std::uint32_t last_line = 0;
  std::string function;
};

Region enclosingFunction(const Module& module, const SourceText& src, std::uint32_t byte) {
  Region r;
  r.last_line = static_cast<std::uint32_t>(src.lineCount());
  if (const DefinitionFact* best = plugin_support::innermostFunction(module, byte)) {
    r.first_line = best->range.line;
    r.last_line = best->range.end_line;
    r.function = best->qualified_name;
  }
  return r;
}

/// The right-hand side of the assignment on `line`, with continuation lines.
std::string rhsFrom(const SourceText& src, std::uint32_t line, std::uint32_t last_line) {
  const std::string_view first = stripComment(src.line(line));
  const std::size_t eq = assignmentEquals(first);
  if (eq == std::string_view::npos) return {};
  std::string rhs(first.substr(eq + 1));
  int balance = bracketBalance(rhs);
  for (std::uint32_t l = line + 1;
       (balance > 0 || (!rhs.empty() && rhs.back() == '\\')) && l <= last_line && l < line + 20; ++l) {
    const std::string_view next = stripComment(src.line(l));
    rhs += '\n';
    rhs += next;
    balance += bracketBalance(next);
  }
  return rhs;
}

bool isFrameworkRoot(const std::string& name) {
  static const std::set<std::string> kRoots{"self", "cls", "torch", "F",     "nn",
                                            "math", "np",  "numpy", "einops"};
  return kRoots.count(name) != 0;
}

bool isDottedName(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
         });
}

/// Whether `expr` is a q @ k^T product: a transposed operand in the expression itself, or an
/// operand assigned a transposed tensor earlier in the region (`k = k.permute(0, 2, 3, 1)`, then `q @ k`).
bool isQkExpression(const SourceText& src, const Region& region, std::uint32_t before_line,
                    std::string_view expr, std::string& evidence) {
  if (isQkProduct(expr, evidence)) return true;
  for (const std::string& op : productOperands(expr)) {
    if (!isDottedName(op) || isFrameworkRoot(op)) continue;
    for (std::uint32_t l = before_line; l-- > region.first_line;) {
      if (assignmentTarget(src.line(l)) != op) continue;
      if (hasTransposeMarker(rhsFrom(src, l, region.last_line))) {
        evidence = trim(expr) + " (" + op + " transposed on line " + std::to_string(l) + ")";
        return true;
      }
      break;  // the latest assignment decides
    }
  }
  return false;
}

/// Whether one of `names` was assigned a q @ k^T product earlier in the region (two hops at most).
bool tracesToQk(const SourceText& src, const Region& region, std::uint32_t before_line,
                const std::vector<std::string>& names, int depth, std::set<std::string>& visited,
                std::string& evidence) {
  for (const std::string& name : names) {
    std::vector<std::string> candidates;
    for (std::string cand = name;;) {
      if (!isFrameworkRoot(cand)) candidates.push_back(cand);
      const std::size_t dot = cand.rfind('.');
      if (dot == std::string::npos) break;
      cand.resize(dot);
    }
    for (const std::string& cand : candidates) {
      if (!visited.insert(cand).second) continue;
      for (std::uint32_t l = region.first_line; l < before_line; ++l) {
        if (assignmentTarget(src.line(l)) != cand) continue;
        const std::string rhs = rhsFrom(src, l, region.last_line);
        if (isQkExpression(src, region, l, rhs, evidence)) return true;
        if (depth < 2 && tracesToQk(src, region, l, dottedNames(rhs), depth + 1, visited, evidence))
          return true;
      }
    }
  }
  return false;
}

/// Source of the region from `from` (a byte offset) to its end, comments removed.
std::string regionText(const SourceText& src, const Region& region, std::uint32_t from) {
  std::string out;
  const std::uint32_t first = src.lineOf(from);
  for (std::uint32_t l = first; l <= region.last_line && l <= src.lineCount(); ++l) {
    std::string_view line = stripComment(src.line(l));
    if (l == first) {
      const std::uint32_t skip = from - src.lineStart(l);
      line = skip < line.size() ? line.substr(skip) : std::string_view();
    }
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

std::vector<HandwrittenAttention> findHandwrittenAttention(const Module& module, const SourceText& src) {
  std::vector<HandwrittenAttention> out;
  const std::set<std::string> modules = softmaxModules(module, src);
  for (const CallFact& c : module.calls()) {
    const bool function_form = isSoftmaxFunction(c.callee_resolved);
    const bool method_form = c.callee_resolved.empty() && c.method == "softmax" && !c.receiver_is_module;
    // self.softmax(x) / self.attend(x) with an nn.Softmax module, softmax(x) with a local one.
    // self.scale_mask_softmax(x, mask): a project's (fused) softmax module, as in Megatron.
    std::string lower = c.method;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    const bool module_form = c.callee_resolved.empty() &&
                             ((!c.method.empty() && c.callee_written == "self." + c.method &&
                               (lower.find("softmax") != std::string::npos || modules.count(c.method))) ||
                              (c.method.empty() && modules.count(c.callee_written)));
    if (!function_form && !method_form && !module_form) continue;

    // The softmax input: first argument (function and module forms) or the receiver (x.softmax()).
    std::vector<std::string> inputs;
    if (function_form || module_form) {
      for (const auto& a : c.args)
        if (a.index == 0 || a.keyword == "input") inputs.push_back(std::string(module.text(a.range)));
    } else {
      const std::uint32_t recv_end = c.name_range.start_byte;
      std::string recv(module.source().substr(c.range.start_byte, recv_end - c.range.start_byte));
      while (!recv.empty() && (recv.back() == '.' || std::isspace(static_cast<unsigned char>(recv.back()))))
        recv.pop_back();
      inputs.push_back(recv);
    }
    if (inputs.empty()) continue;

    const Region region = enclosingFunction(module, src, c.range.start_byte);
    std::string evidence;
    bool qk = false;
    for (const std::string& in : inputs)
      if (isQkExpression(src, region, c.range.line, in, evidence)) qk = true;
    if (!qk) {
      std::vector<std::string> names;
      for (const std::string& in : inputs)
        for (std::string& n : dottedNames(in)) names.push_back(std::move(n));
      std::set<std::string> visited;
      qk = tracesToQk(src, region, c.range.line, names, 0, visited, evidence);
    }
    if (!qk) continue;

    // The probabilities must meet the values: directly, or through the name they are stored in.
    const std::uint32_t stmt_start = src.lineStart(c.range.line);
    std::string statement(module.source().substr(stmt_start, c.range.start_byte - stmt_start));
    statement += "__attention_probs__";
    {
      const std::uint32_t end_line = c.range.end_line;
      const std::uint32_t line_end =
          src.lineStart(end_line) + static_cast<std::uint32_t>(src.line(end_line).size());
      if (line_end > c.range.end_byte)
        statement += module.source().substr(c.range.end_byte, line_end - c.range.end_byte);
    }
    std::string weights = assignmentTarget(src.line(c.range.line));
    bool used = usesAsMatmulOperand(stripComment(statement), "__attention_probs__");
    if (!used && !weights.empty())
      used = usesAsMatmulOperand(regionText(src, region, c.range.end_byte), weights);
    if (!used) continue;

    HandwrittenAttention h;
    h.range = c.name_range;
    h.range.end_line = c.range.end_line;
    h.range.end_column = c.range.end_column;
    h.range.end_byte = c.range.end_byte;
    h.written = c.callee_written.empty() ? "." + c.method : c.callee_written;
    h.resolved = c.callee_resolved;
    h.scores = trim(inputs.front());
    h.qk = evidence;
    h.weights = weights;
    h.function = region.function;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace migrate_attention
