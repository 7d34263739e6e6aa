// CUDA kernel definitions: __global__ functions on the tree, kernels defined through macros, and
// kernels recovered from the text where the tree has errors (OPS-001 facts).

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "file_scanner.hpp"
#include "native_facts.hpp"
#include "native_scan.hpp"

namespace custom_ops::native {
namespace {

/// The brackets of one kind in masked text, each opening one with the offset of the one closing
/// it, found in one pass: looking one up costs no scan of the rest of the text (a scan per
/// `__global__` was quadratic over a file of unclosed ones).
class Brackets {
 public:
  Brackets(const std::string& text, char o, char c) {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == o) {
        open.push_back(i);
      } else if (text[i] == c && !open.empty()) {
        pairs_.emplace_back(open.back(), i);
        open.pop_back();
      }
    }
    std::sort(pairs_.begin(), pairs_.end());
  }

  /// The offset of the bracket closing the one at `open`, or npos.
  std::size_t close(std::size_t open) const {
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(open, std::size_t{0}));
    return it != pairs_.end() && it->first == open ? it->second : std::string::npos;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;
};

/// Whether each line of masked text belongs to a preprocessor directive (its logical line, with
/// continuations, starts with '#'), found in one pass: walking back from each `__global__` to
/// its logical line's start was quadratic over a long line or a long continued macro.
class DirectiveLines {
 public:
  explicit DirectiveLines(const std::string& text) : text_(text) {
    std::size_t logical = 0;  // start of the logical line the current line belongs to
    for (std::size_t start = 0;;) {
      starts_.push_back(start);
      directive_.push_back(isDirective(logical));
      const std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos) break;
      // A line ending in a backslash continues on the next one.
      if (!(nl > 0 && text[nl - 1] == '\\')) logical = nl + 1;
      start = nl + 1;
    }
  }

  /// True when the byte at `pos` is on a directive's logical line.
  bool contains(std::size_t pos) const {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), pos);
    return directive_[static_cast<std::size_t>(it - starts_.begin()) - 1];
  }

 private:
  bool isDirective(std::size_t logical) const {
    const std::size_t first = text_.find_first_not_of(" \t", logical);
    return first != std::string::npos && text_[first] == '#';
  }

  const std::string& text_;
  std::vector<std::size_t> starts_;
  std::vector<bool> directive_;
};

/// The brackets a kernel's head and body are read with.
struct HeadBrackets {
  explicit HeadBrackets(const std::string& text)
      : parens(text, '(', ')'), angles(text, '<', '>'), braces(text, '{', '}') {}
  Brackets parens;
  Brackets angles;
  Brackets braces;
};

/// After `__global__` at `at` of masked text: the kernel's name and the offset of its parameter
/// list's '(', skipping specifiers, `__launch_bounds__(…)`, template arguments and `*`/`&`.
std::pair<std::string, std::size_t> kernelHeadIn(const std::string& masked, std::size_t at,
                                                 const HeadBrackets& brackets) {
  std::size_t i = at + 10;
  std::string last;
  const std::size_t limit = std::min(masked.size(), at + 800);
  while (i < limit) {
    const char c = masked[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == '*' || c == '&' || c == '\\') {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < limit &&
             (std::isalnum(static_cast<unsigned char>(masked[i])) || masked[i] == '_' || masked[i] == ':'))
        ++i;
      const std::string word = masked.substr(b, i - b);
      std::size_t j = i;
      while (j < limit && (std::isspace(static_cast<unsigned char>(masked[j])) || masked[j] == '\\')) ++j;
      if (word == "__launch_bounds__" && j < limit && masked[j] == '(') {
        const std::size_t close = brackets.parens.close(j);
        if (close == std::string::npos) return {};
        i = close + 1;
        continue;
      }
      const std::size_t colon = word.rfind(':');
      last = colon == std::string::npos ? word : word.substr(colon + 1);
      if (j < limit && masked[j] == '(') return {last, j};
    } else if (c == '<') {
      const std::size_t close = brackets.angles.close(i);
      if (close == std::string::npos) return {};
      i = close + 1;
    } else {
      return {};  // ';', '{', '=', … : not a function head
    }
  }
  return {};
}

}  // namespace

/// Function-like macros that define kernels: `#define DEFINE_KERNEL(name, ...) template <…>
/// __global__ void name(…)` → {"DEFINE_KERNEL", index of `name` among the parameters}.
void collectKernelMacros(const std::string& masked, std::map<std::string, int>& out) {
  std::size_t at = 0;
  while ((at = masked.find("#define", at)) != std::string::npos) {
    std::size_t i = at + 7;
    at = i;
    while (i < masked.size() && (masked[i] == ' ' || masked[i] == '\t')) ++i;
    const std::size_t name_b = i;
    while (i < masked.size() && (std::isalnum(static_cast<unsigned char>(masked[i])) || masked[i] == '_'))
      ++i;
    if (i >= masked.size() || masked[i] != '(' || i == name_b) continue;
    const std::string macro = masked.substr(name_b, i - name_b);
    const std::size_t close = masked.find(')', i);
    if (close == std::string::npos) continue;
    std::vector<std::string> params;
    std::string cur;
    for (std::size_t k = i + 1; k < close; ++k) {
      if (masked[k] == ',') {
        params.push_back(collapseSpace(cur));
        cur.clear();
      } else {
        cur += masked[k];
      }
    }
    params.push_back(collapseSpace(cur));
    // the logical line of the body: up to a newline not preceded by a backslash
    std::size_t end = close;
    while ((end = masked.find('\n', end + 1)) != std::string::npos) {
      std::size_t back = end;
      while (back > 0 && (masked[back - 1] == ' ' || masked[back - 1] == '\t' || masked[back - 1] == '\r'))
        --back;
      if (back == 0 || masked[back - 1] != '\\') break;
    }
    if (end == std::string::npos) end = masked.size();
    const std::string body = masked.substr(close + 1, end - close - 1);
    const std::size_t g = body.find("__global__");
    if (g == std::string::npos) continue;
    const std::string name = kernelHeadIn(body, g, HeadBrackets(body)).first;
    for (std::size_t p = 0; p < params.size(); ++p)
      if (!name.empty() && params[p] == name) out[macro] = static_cast<int>(p);
  }
}

// ---- kernels on the tree ------------------------------------------------------------------------

/// The declarator's name node and the parameter list of a function definition.
std::pair<TSNode, TSNode> FileScanner::declaratorOf(TSNode fn) const {
  TSNode d = field(fn, "declarator");
  // Walk through pointer/reference/attributed declarators to the function_declarator.
  for (int guard = 0; !ts_node_is_null(d) && guard < 8 && type(d) != "function_declarator"; ++guard) {
    TSNode inner = field(d, "declarator");
    if (ts_node_is_null(inner)) break;
    d = inner;
  }
  if (ts_node_is_null(d) || type(d) != "function_declarator") return {TSNode{}, TSNode{}};
  return {field(d, "declarator"), field(d, "parameters")};
}

bool FileScanner::hasSpecifier(TSNode fn, std::string_view spec) const {
  for (uint32_t i = 0; i < ts_node_child_count(fn); ++i) {
    TSNode c = ts_node_child(fn, i);
    const std::string_view t = type(c);
    if (t == spec) return true;
    if ((t == "type_qualifier" || t == "storage_class_specifier" || t == "attribute_specifier") &&
        text(c) == spec)
      return true;
  }
  return false;
}

bool FileScanner::onFunction(TSNode n) {
  auto [name_node, params] = declaratorOf(n);
  if (ts_node_is_null(name_node)) return false;
  Function f;
  f.node = n;
  f.name = std::string(lastSegment(text(name_node)));
  if (cuda_file_) repo_.cuda_functions.insert(f.name);
  f.global = hasSpecifier(n, "__global__");
  f.device = hasSpecifier(n, "__device__");
  if (f.global) f.kernel = addKernel(n, name_node, params);
  // DEFINE_KERNEL(flash_fwd_kernel, bool Is_causal) { … }: a kernel defined through a macro.
  if (auto m = repo_.kernel_macros.find(f.name);
      m != repo_.kernel_macros.end() && !ts_node_is_null(params) &&
      ts_node_named_child_count(params) > static_cast<uint32_t>(m->second)) {
    TSNode name_param = ts_node_named_child(params, static_cast<uint32_t>(m->second));
    f.kernel = addKernel(n, name_param, params);
    Kernel& k = repo_.kernels[static_cast<std::size_t>(f.kernel)];
    k.name = collapseSpace(text(name_param));
    k.qualified = k.name;
    k.signature = "(declared by the macro " + f.name + ")";
    k.template_params = collapseSpace(text(params));
    k.features.insert("macro_defined");
    f.name = k.name;
  }
  onBindingMacro(f, name_node, params);
  functions_.push_back(std::move(f));
  return true;
}

int FileScanner::addKernel(TSNode fn, TSNode name_node, TSNode params) {
  Kernel k;
  k.file = path_;
  k.name = std::string(lastSegment(text(name_node)));
  std::string qual;
  for (const auto& ns : namespaces_)
    if (!ns.empty()) qual += ns + "::";
  const std::string_view written = text(name_node);
  k.qualified = written.find("::") != std::string_view::npos ? std::string(written) : qual + k.name;
  k.signature = ts_node_is_null(params) ? std::string("()") : collapseSpace(text(params));
  TSNode holder = fn;
  TSNode parent = ts_node_parent(fn);
  if (!ts_node_is_null(parent) && type(parent) == "template_declaration") {
    holder = parent;
    TSNode tp = field(parent, "parameters");
    if (!ts_node_is_null(tp)) k.template_params = collapseSpace(text(tp));
  }
  k.range = range(name_node);
  k.first_line = ts_node_start_point(holder).row + 1;
  k.last_line = ts_node_end_point(fn).row + 1;
  k.description = docComment(holder);
  for (uint32_t i = 0; i < ts_node_child_count(fn); ++i)
    if (type(ts_node_child(fn, i)) == "launch_bounds") k.features.insert("launch_bounds");
  kernel_spans_.push_back({ts_node_start_byte(holder), ts_node_end_byte(fn)});
  repo_.kernels.push_back(std::move(k));
  repo_.cuda_evidence_files.insert(path_);
  return static_cast<int>(repo_.kernels.size()) - 1;
}

/// The comment block right above a definition, reduced to its first sentence.
std::string FileScanner::docComment(TSNode holder) const {
  std::vector<std::string> parts;
  uint32_t expect_row = ts_node_start_point(holder).row;
  for (TSNode p = ts_node_prev_sibling(holder); !ts_node_is_null(p); p = ts_node_prev_sibling(p)) {
    if (type(p) != "comment") break;
    if (ts_node_end_point(p).row + 1 < expect_row) break;  // a blank line separates it
    parts.insert(parts.begin(), std::string(text(p)));
    expect_row = ts_node_start_point(p).row;
  }
  std::string joined;
  for (const auto& c : parts) {
    std::string s = c;
    if (startsWith(s, "//")) {
      s = s.substr(2);
      while (!s.empty() && (s.front() == '/' || s.front() == '!')) s.erase(0, 1);
    } else if (startsWith(s, "/*")) {
      s = s.substr(2, s.size() >= 4 ? s.size() - 4 : 0);
      std::string cleaned;
      std::size_t b = 0;
      while (b <= s.size()) {  // drop the leading " * " of block comment lines
        std::size_t e = s.find('\n', b);
        if (e == std::string::npos) e = s.size();
        std::string line = s.substr(b, e - b);
        const std::size_t star = line.find_first_not_of(" \t");
        if (star != std::string::npos && (line[star] == '*' || line[star] == '!'))
          line = line.substr(star + 1);
        cleaned += line + "\n";
        b = e + 1;
      }
      s = cleaned;
    }
    joined += s + "\n";
  }
  std::string line = collapseSpace(joined);
  // Doxygen tags and separators are not a description.
  if (startsWith(line, "@brief ") || startsWith(line, "\\brief ")) line = line.substr(7);
  if (line.find_first_not_of("-=*/# ") == std::string::npos) return {};
  const std::size_t stop = line.find(". ");
  if (stop != std::string::npos) line = line.substr(0, stop + 1);
  return clip(line, 200);
}

// ---- kernels the tree missed (macros before the definition confuse the parser) --------------------

void FileScanner::recoverKernels() {
  if (masked_.find("__global__") == std::string::npos) return;
  const DirectiveLines directives(masked_);
  const HeadBrackets brackets(masked_);
  // The kernels' spans by start: `reach` is the furthest end of those starting at or before the
  // `__global__` at hand, which is inside one of them when it lies before `reach`.
  std::vector<std::pair<std::size_t, std::size_t>> spans = kernel_spans_;
  std::sort(spans.begin(), spans.end());
  std::size_t next_span = 0;
  std::size_t reach = 0;
  std::size_t at = 0;
  while ((at = masked_.find("__global__", at)) != std::string::npos) {
    const std::size_t here = at;
    at += 10;
    if (here > 0 && (std::isalnum(static_cast<unsigned char>(masked_[here - 1])) || masked_[here - 1] == '_'))
      continue;
    if (here + 10 < masked_.size() &&
        (std::isalnum(static_cast<unsigned char>(masked_[here + 10])) || masked_[here + 10] == '_'))
      continue;
    for (; next_span < spans.size() && spans[next_span].first <= here; ++next_span)
      reach = std::max(reach, spans[next_span].second);
    if (here < reach || directives.contains(here)) continue;
    const auto [name, open] = kernelHeadIn(masked_, here, brackets);
    if (name.empty() || name == "__global__") continue;
    // The parameter list, then a body (a prototype ends with ';').
    const std::size_t close = brackets.parens.close(open);
    if (close == std::string::npos) continue;
    std::size_t next = masked_.find_first_not_of(" \t\r\n", close + 1);
    if (next == std::string::npos || masked_[next] != '{') continue;
    const std::size_t body_end = brackets.braces.close(next);
    Kernel k;
    k.file = path_;
    k.name = name;
    k.qualified = name;
    k.signature = collapseSpace(std::string_view(text_).substr(open, close + 1 - open));
    const auto name_at = static_cast<uint32_t>(here + masked_.substr(here, open - here).rfind(name));
    k.range = lines_.range(name_at, name_at + static_cast<uint32_t>(name.size()));
    k.first_line = k.range.line;
    k.last_line =
        lines_.position(static_cast<uint32_t>(body_end == std::string::npos ? close : body_end)).first;
    k.recovered = true;
    const std::string body = masked_.substr(next, body_end == std::string::npos ? 0 : body_end - next);
    if (body.find("__shared__") != std::string::npos) k.features.insert("shared_memory");
    if (body.find("__shfl") != std::string::npos || body.find("__ballot") != std::string::npos)
      k.features.insert("warp_intrinsics");
    if (body.find("asm") != std::string::npos) k.features.insert("inline_ptx");
    if (body.find("atomic") != std::string::npos) k.features.insert("atomics");
    if (body.find("wmma") != std::string::npos || body.find("mma.sync") != std::string::npos)
      k.features.insert("tensor_cores");
    kernel_spans_.push_back({here, body_end == std::string::npos ? close : body_end});
    reach = std::max(reach, kernel_spans_.back().second);
    repo_.kernels.push_back(std::move(k));
    repo_.cuda_evidence_files.insert(path_);
    // launches inside text the tree could not read are left to the tree (rare)
  }
}

}  // namespace custom_ops::native
