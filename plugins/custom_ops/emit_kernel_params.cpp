// A CUDA kernel's parameter list read for an Ascend C operator (emit stage).

#include "emit_kernel_params.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "common.hpp"

namespace custom_ops {
namespace {

/// What one scalar element type becomes on Ascend.
struct ScalarType {
  const char* json;    ///< msopgen JSON type
  const char* ge;      ///< OpDef data type
  const char* attr;    ///< JSON attribute type
  const char* tiling;  ///< tiling-field C++ type
  const char* note;    ///< caveat, or ""
};

const ScalarType* scalarTypeOf(std::string_view element) {
  static const ScalarType kFloat{"float", "ge::DT_FLOAT", "float", "float", ""};
  static const ScalarType kDouble{"float", "ge::DT_FLOAT", "float", "float",
                                  "float64 is slow or unsupported on the AI cores: float32 here"};
  static const ScalarType kHalf{"float16", "ge::DT_FLOAT16", "float", "float", ""};
  static const ScalarType kBf16{"bfloat16", "ge::DT_BF16", "float", "float",
                                "bfloat16 needs Atlas A2 or later (float16 on older chips)"};
  static const ScalarType kInt32{"int32", "ge::DT_INT32", "int", "int32_t", ""};
  static const ScalarType kUint32{"uint32", "ge::DT_UINT32", "int", "uint32_t", ""};
  static const ScalarType kInt64{"int64", "ge::DT_INT64", "int", "int64_t", ""};
  static const ScalarType kUint64{"uint64", "ge::DT_UINT64", "int", "uint64_t", ""};
  static const ScalarType kInt16{"int16", "ge::DT_INT16", "int", "int32_t", ""};
  static const ScalarType kUint16{"uint16", "ge::DT_UINT16", "int", "uint32_t", ""};
  static const ScalarType kInt8{"int8", "ge::DT_INT8", "int", "int32_t", ""};
  static const ScalarType kUint8{"uint8", "ge::DT_UINT8", "int", "uint32_t", ""};
  static const ScalarType kBool{"bool", "ge::DT_BOOL", "bool", "uint32_t", ""};
  static const ScalarType kVoid{"uint8", "ge::DT_UINT8", "int", "uint32_t",
                                "an untyped buffer: give it the element type the kernel casts it to"};
  static const ScalarType kFloatVector{"float", "ge::DT_FLOAT", "float", "float",
                                       "a CUDA vector type: the tensor holds its scalar elements"};
  static const ScalarType kHalfVector{"float16", "ge::DT_FLOAT16", "float", "float",
                                      "a CUDA vector type: the tensor holds its scalar elements"};
  struct Entry {
    const char* name;
    const ScalarType* type;
  };
  static const Entry kTable[] = {
      {"float", &kFloat},
      {"double", &kDouble},
      {"half", &kHalf},
      {"__half", &kHalf},
      {"at::Half", &kHalf},
      {"c10::Half", &kHalf},
      {"__nv_bfloat16", &kBf16},
      {"nv_bfloat16", &kBf16},
      {"at::BFloat16", &kBf16},
      {"c10::BFloat16", &kBf16},
      {"int", &kInt32},
      {"signed", &kInt32},
      {"signed int", &kInt32},
      {"int32_t", &kInt32},
      {"unsigned", &kUint32},
      {"unsigned int", &kUint32},
      {"uint32_t", &kUint32},
      {"long", &kInt64},
      {"long int", &kInt64},
      {"long long", &kInt64},
      {"long long int", &kInt64},
      {"int64_t", &kInt64},
      {"ptrdiff_t", &kInt64},
      {"ssize_t", &kInt64},
      {"unsigned long", &kUint64},
      {"unsigned long long", &kUint64},
      {"uint64_t", &kUint64},
      {"size_t", &kUint64},
      {"short", &kInt16},
      {"int16_t", &kInt16},
      {"unsigned short", &kUint16},
      {"uint16_t", &kUint16},
      {"char", &kInt8},
      {"signed char", &kInt8},
      {"int8_t", &kInt8},
      {"unsigned char", &kUint8},
      {"uint8_t", &kUint8},
      {"bool", &kBool},
      {"void", &kVoid},
      {"float2", &kFloatVector},
      {"float4", &kFloatVector},
      {"half2", &kHalfVector},
      {"__half2", &kHalfVector},
  };
  std::string_view e = element;
  if (startsWith(e, "std::")) e.remove_prefix(5);
  for (const Entry& entry : kTable)
    if (e == entry.name) return entry.type;
  return nullptr;
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Splits at commas outside (), <>, [] and {}.
std::vector<std::string> splitParams(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(collapseSpace(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!collapseSpace(current).empty()) out.push_back(collapseSpace(current));
  return out;
}

/// The words of a type with `drop` words removed, rejoined with single spaces; '*' and '&' go.
std::string elementOf(std::string_view type) {
  static const std::set<std::string> kDrop{"const",      "volatile", "__restrict__",      "__restrict",
                                           "restrict",   "struct",   "__grid_constant__", "typename",
                                           "__device__", "class"};
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && !kDrop.count(word)) words.push_back(word);
    word.clear();
  };
  for (char c : type) {
    if (isIdentifierChar(c) || c == ':' || c == '<' || c == '>' || c == ',') {
      word += c;
    } else {
      flush();
    }
  }
  flush();
  return join(words, " ");
}

/// Template type parameters: `<typename scalar_t, int BLOCK, class Op>` → scalar_t, Op.
std::set<std::string> templateTypes(std::string_view template_params) {
  std::set<std::string> out;
  std::string_view inner = template_params;
  if (!inner.empty() && inner.front() == '<') inner.remove_prefix(1);
  if (!inner.empty() && inner.back() == '>') inner.remove_suffix(1);
  for (const std::string& part : splitParams(inner)) {
    std::string head = part.substr(0, part.find('='));
    if (!startsWith(head, "typename") && !startsWith(head, "class")) continue;
    head = collapseSpace(head);
    std::size_t end = head.size();
    std::size_t begin = end;
    while (begin > 0 && isIdentifierChar(head[begin - 1])) --begin;
    if (begin < end) out.insert(head.substr(begin, end - begin));
  }
  return out;
}

/// True for a name that says size, count, stride or dimension.
bool shapeLikeName(const std::string& name) {
  const std::string n = lower(name);
  static const std::set<std::string> kExact{
      "n",     "m",     "b",      "c",     "h",        "w",      "d",     "l",     "t",
      "ld",    "lda",   "ldb",    "ldc",   "batch",    "hidden", "heads", "total", "nrows",
      "ncols", "width", "height", "depth", "channels", "seqlen", "numel"};
  if (kExact.count(n)) return true;
  static const char* kPrefixes[] = {"num_", "n_", "num", "stride", "dim", "size", "len", "seq_len", "total_"};
  for (const char* p : kPrefixes)
    if (startsWith(n, p)) return true;
  static const char* kSuffixes[] = {"size",  "len",   "length", "dim",      "dims",     "stride", "strides",
                                    "count", "numel", "rows",   "cols",     "elements", "elems",  "batch",
                                    "heads", "width", "height", "channels", "total",    "offset"};
  for (const char* s : kSuffixes)
    if (endsWith(n, s)) return true;
  return false;
}

/// True when `word` occurs in `text` as a whole identifier.
bool hasWord(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !isIdentifierChar(text[at - 1]);
    const bool ends = at + word.size() == text.size() || !isIdentifierChar(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

bool integerElement(std::string_view element) {
  const ScalarType* t = scalarTypeOf(element);
  return t && std::string_view(t->attr) == "int" && element != "void";
}

}  // namespace

std::vector<KernelParam> parseKernelParams(std::string_view signature, std::string_view template_params) {
  std::string_view inner = signature;
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.front()))) inner.remove_prefix(1);
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.back()))) inner.remove_suffix(1);
  if (inner.size() < 2 || inner.front() != '(' || inner.back() != ')') return {};
  inner = inner.substr(1, inner.size() - 2);
  const std::set<std::string> templated = templateTypes(template_params);
  static const std::set<std::string> kTypeWords{
      "int",  "float", "double", "char",    "short",   "long",     "bool",    "unsigned", "signed",
      "void", "half",  "size_t", "int64_t", "int32_t", "uint32_t", "uint8_t", "int8_t",   "uint64_t"};

  std::vector<KernelParam> out;
  // Names the scaffold's own code uses (kernel entry, kernel class, tiling fields), lower case.
  std::set<std::string> taken{"workspace", "tiling", "tilingdata", "totallength", "tilelength",
                              "tile",      "tiles",  "offset",     "op",          "dtype"};
  int index = 0;
  for (std::string text : splitParams(inner)) {
    ++index;
    if (text == "void" || text == "...") continue;
    // A default value is not part of the declaration we need.
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '(' || c == '<' || c == '[') ++depth;
      if (c == ')' || c == '>' || c == ']') --depth;
      if (c == '=' && depth == 0) {
        text = collapseSpace(text.substr(0, i));
        break;
      }
    }
    bool array = false;
    while (!text.empty() && text.back() == ']') {
      const std::size_t open = text.rfind('[');
      if (open == std::string::npos) break;
      text = collapseSpace(text.substr(0, open));
      array = true;
    }
    std::size_t begin = text.size();
    while (begin > 0 && isIdentifierChar(text[begin - 1])) --begin;
    std::string name = text.substr(begin);
    std::string type = collapseSpace(text.substr(0, begin));
    const bool unnamed = name.empty() || type.empty() || kTypeWords.count(name) ||
                         (!type.empty() && type.back() == ':');  // `at::Half` without a name
    if (unnamed) {
      type = text;
      name = "arg" + std::to_string(index - 1);
    }

    KernelParam p;
    p.cuda_type = type + (array ? "[]" : "");
    p.element = elementOf(type);
    p.templated = templated.count(p.element) > 0;
    const auto pointers = std::count(type.begin(), type.end(), '*') + (array ? 1 : 0);
    const bool reference = type.find('&') != std::string::npos;
    const std::size_t last_star = type.rfind('*');
    const bool pointee_const =
        hasWord(array || last_star == std::string::npos ? type : type.substr(0, last_star), "const");
    const ScalarType* scalar = scalarTypeOf(p.element);
    if (pointers >= 2) {
      p.role = KernelParam::Role::Opaque;
      p.note =
          "a pointer to pointers (a tensor list): declare a DYNAMIC input or pass the tensors separately";
    } else if (pointers == 1) {
      p.role = pointee_const ? KernelParam::Role::Input : KernelParam::Role::Output;
      if (scalar) {
        p.note = scalar->note;
      } else if (!p.templated) {
        p.note = "element type " + p.element + " is not a known scalar: check the data types";
      }
    } else if (reference && type.find("const") == std::string::npos) {
      p.role = KernelParam::Role::Opaque;
      p.note = "a non-const reference: no counterpart in a kernel launch";
    } else if (p.templated) {
      p.role = KernelParam::Role::Attribute;
    } else if (scalar && p.element != "void") {
      p.role = integerElement(p.element) && shapeLikeName(name) ? KernelParam::Role::Shape
                                                                : KernelParam::Role::Attribute;
      p.note = scalar->note;
    } else {
      p.role = KernelParam::Role::Opaque;
      p.note = "a " + p.element + " passed by value: unpack the fields the kernel reads into tiling fields";
    }
    // Unique, case-insensitively too (DTYPE_<NAME> macros are upper case).
    std::string unique = name;
    for (int n = 2; taken.count(lower(unique)); ++n) unique = name + "_" + std::to_string(n);
    taken.insert(lower(unique));
    p.name = unique;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<TensorTypes> tensorTypesOf(const std::vector<KernelParam>& params) {
  bool varying = false;
  for (const KernelParam& p : params)
    if ((p.role == KernelParam::Role::Input || p.role == KernelParam::Role::Output) &&
        (p.templated || !scalarTypeOf(p.element)))
      varying = true;
  std::vector<TensorTypes> out;
  for (const KernelParam& p : params) {
    if (p.role != KernelParam::Role::Input && p.role != KernelParam::Role::Output) continue;
    TensorTypes t;
    const ScalarType* scalar = p.templated ? nullptr : scalarTypeOf(p.element);
    if (scalar) {
      t.json.assign(varying ? 3 : 1, scalar->json);
      t.ge.assign(varying ? 3 : 1, scalar->ge);
    } else {
      t.json = {"float16", "bfloat16", "float"};
      t.ge = {"ge::DT_FLOAT16", "ge::DT_BF16", "ge::DT_FLOAT"};
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string attributeTypeOf(std::string_view element) {
  const ScalarType* t = scalarTypeOf(element);
  return t ? t->attr : "float";
}

std::string tilingTypeOf(std::string_view element) {
  const ScalarType* t = scalarTypeOf(element);
  return t ? t->tiling : "float";
}

}  // namespace custom_ops
