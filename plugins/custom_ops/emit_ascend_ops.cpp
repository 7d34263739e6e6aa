// Ascend C operator scaffolds for the repository's CUDA kernels (ascend_ops/<OpType>/) and the
// script that generates and builds their msopgen projects (build_ascend_ops.sh).

#include <algorithm>
#include <cctype>
#include <set>

#include "common.hpp"
#include "emit_custom_ops.hpp"
#include "emit_kernel_params.hpp"
#include "kernel_advice.hpp"

namespace custom_ops {
namespace {

constexpr const char* kOpsDir = "ascend_ops";

/// `bias_gelu_forward_kernel` → {"bias", "gelu", "forward"}: the words of the kernel's name
/// without kernel/cuda noise, letters and digits only.
std::vector<std::string> opWords(const std::string& kernel) {
  std::vector<std::string> words;
  std::string word;
  for (char c : describeName(kernel) + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  if (words.empty() || std::isdigit(static_cast<unsigned char>(words.front().front())))
    words.insert(words.begin(), "op");
  return words;
}

std::string pascal(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(w.front())));
    out += w.substr(1);
  }
  return out;
}

/// The size in bytes of the widest element type among `types` (msopgen JSON names).
int widestElement(const std::vector<TensorTypes>& types) {
  int widest = 1;
  for (const TensorTypes& t : types)
    for (const std::string& name : t.json) {
      const int bytes = name == "float16" || name == "bfloat16" || name == "int16" || name == "uint16" ? 2
                        : name == "int64" || name == "uint64"                                          ? 8
                        : name == "int8" || name == "uint8" || name == "bool"                          ? 1
                                                                                                       : 4;
      widest = std::max(widest, bytes);
    }
  return widest;
}

std::string quotedList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& i : items) quoted.push_back("\"" + i + "\"");
  return join(quoted, ", ");
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// A note on what a CUDA feature of the kernel body becomes in Ascend C.
const char* featureNote(const std::string& feature) {
  if (feature == "shared_memory")
    return "__shared__ arrays become buffers in the unified buffer (~192 KB per core): TBuf/TQue "
           "allocated with pipe_.InitBuffer";
  if (feature == "warp_intrinsics")
    return "warp shuffles and votes have no counterpart (Ascend has no warps): reduce a whole "
           "LocalTensor with ReduceSum/ReduceMax instead";
  if (feature == "atomics")
    return "atomics into global memory: accumulate with AscendC::SetAtomicAdd around the copy-out, or "
           "reduce in a second pass";
  if (feature == "inline_ptx")
    return "inline PTX has no counterpart: express its effect with Ascend C vector APIs";
  if (feature == "tensor_cores")
    return "WMMA/mma tensor-core code belongs on the cube unit: the Ascend C Matmul API, or torch.matmul";
  if (feature == "launch_bounds")
    return "__launch_bounds__ has no meaning: the host tiling sets the core count (SetBlockDim)";
  if (feature == "macro_defined")
    return "the kernel is declared through a macro: its parameters are in the macro's expansion";
  return nullptr;
}

/// `text` with control characters shown as '?': file names and source spans land in comments of
/// the build script and the C++ scaffolds, where a newline in a name would end the comment.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

/// The template data of one operator scaffold.
sdk::TemplateData scaffoldData(const CudaKernel& k) {
  const sdk::Finding& f = *k.finding;
  sdk::TemplateData d;
  d.set("op_type", k.op_type);
  d.set("file_stem", k.file_stem);
  d.set("kernel", k.name);
  d.set("file", oneLine(f.file));
  d.set("line", std::to_string(f.range.line));
  d.set("source", oneLine(detailOf(f, "source").empty() ? f.file + ":" + std::to_string(f.range.line)
                                                        : detailOf(f, "source")));
  d.set("signature", k.signature);
  d.set("template_params", k.template_params);
  d.set("description", detailOf(f, "description"));
  d.set("category", detailOf(f, "category"));
  d.set("replacement_path",
        detailOf(f, "replacement_path").empty() ? f.npu_alternative : detailOf(f, "replacement_path"));
  d.set("effort_days", formatDays(f.effort_days));
  d.set("launch_sites", detailOf(f, "launch_sites"));
  const std::string kind = detailOf(f, "replacement_kind");
  d.setFlag("cheaper_path", !kind.empty() && kind != "ascend_c");

  // A kernel declared through a macro has its parameters in the macro's expansion.
  const bool macro = startsWith(k.signature, "(declared by") ||
                     detailOf(f, "features").find("macro_defined") != std::string::npos;
  std::vector<KernelParam> params =
      macro ? std::vector<KernelParam>{} : parseKernelParams(k.signature, k.template_params);
  const bool parsed = !params.empty() || k.signature == "()";
  const bool has_output = std::any_of(
      params.begin(), params.end(), [](const KernelParam& p) { return p.role == KernelParam::Role::Output; });
  // An operator needs at least an output; placeholders say so where the CUDA kernel gives none.
  const bool placeholder = !has_output;
  if (!has_output) {
    KernelParam y;
    y.role = KernelParam::Role::Output;
    y.name = "y";
    for (const KernelParam& p : params) y.name = lower(p.name) == "y" ? "y_out" : y.name;
    y.cuda_type = "(none)";
    y.element = "scalar_t";
    y.templated = true;
    y.note = "placeholder: the CUDA kernel declares no output tensor";
    params.push_back(y);
  }
  d.setFlag("placeholder", placeholder);
  d.setFlag("unparsed", !parsed);

  const std::vector<TensorTypes> types = tensorTypesOf(params);
  // Tensors and attributes first, as plain values: items of a TemplateData list move when the
  // list grows, so each list is filled in one go once its length is known.
  struct Tensor {
    std::string name;
    const TensorTypes* types;
  };
  std::vector<Tensor> inputs, outputs;
  std::vector<const KernelParam*> attrs;
  std::size_t tensor_index = 0;
  for (const KernelParam& p : params) {
    sdk::TemplateData& row = d.addItem("params");
    row.set("name", p.name);
    row.set("cuda_type", p.cuda_type);
    if (p.role == KernelParam::Role::Input || p.role == KernelParam::Role::Output) {
      const TensorTypes& t = types[tensor_index++];
      const bool in = p.role == KernelParam::Role::Input;
      row.set("mapping",
              std::string(in ? "input" : "output") + " tensor " + p.name + " (" + join(t.json, "/") + ")");
      (in ? inputs : outputs).push_back({p.name, &t});
    } else if (p.role == KernelParam::Role::Attribute) {
      row.set("mapping",
              "attribute " + p.name + " (" + attributeTypeOf(p.element) + "), copied into the tiling");
      attrs.push_back(&p);
    } else if (p.role == KernelParam::Role::Shape) {
      row.set("mapping", "tiling field " + p.name + ", computed from the tensor shapes");
    } else {
      row.set("mapping", "no direct counterpart (see the note)");
    }
    if (!p.note.empty()) d.addItem("param_notes").set("name", p.name).set("note", p.note);
  }
  for (const auto& [key, list] : {std::pair{"inputs", &inputs}, std::pair{"outputs", &outputs}}) {
    if (list->empty()) d.setEmptyList(key);
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Tensor& t = (*list)[i];
      sdk::TemplateData& item = d.addItem(key);
      item.set("name", t.name);
      item.set("index", std::to_string(i));
      item.setFlag("last", i + 1 == list->size());
      item.set("dtype_macro", "DTYPE_" + upper(t.name));
      item.set("json_types", quotedList(t.types->json));
      item.set("json_formats", quotedList(std::vector<std::string>(t.types->json.size(), "ND")));
      item.set("ge_types", join(t.types->ge, ", "));
      item.set("ge_formats", join(std::vector<std::string>(t.types->ge.size(), "ge::FORMAT_ND"), ", "));
    }
  }
  // Kernel entry parameters: inputs, then outputs (the order of the operator definition).
  std::vector<std::string> gm_params, gm_args;
  std::vector<Tensor> all = inputs;
  all.insert(all.end(), outputs.begin(), outputs.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    gm_params.push_back("GM_ADDR " + all[i].name);
    gm_args.push_back(all[i].name);
    d.addItem("tensors").set("name", all[i].name).set("dtype_macro", "DTYPE_" + upper(all[i].name));
  }
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    const std::string type = attributeTypeOf(attrs[i]->element);
    sdk::TemplateData& a = d.addItem("attrs");
    a.set("name", attrs[i]->name);
    a.set("json_type", type);
    a.set("opdef_method", type == "int" ? "Int" : type == "bool" ? "Bool" : "Float");
    a.setFlag("last", i + 1 == attrs.size());
  }
  // Every scalar reaches the kernel as a tiling field; attributes are read on the host.
  int attr_index = 0;
  for (const KernelParam& p : params) {
    if (p.role != KernelParam::Role::Shape && p.role != KernelParam::Role::Attribute) continue;
    const bool attr = p.role == KernelParam::Role::Attribute;
    const std::string type = attributeTypeOf(p.element);
    sdk::TemplateData& field = d.addItem("scalars");
    field.set("name", p.name);
    field.set("cuda_type", p.cuda_type);
    field.set("tiling_type", !attr            ? tilingTypeOf(p.element)
                             : type == "int"  ? "int64_t"
                             : type == "bool" ? "uint32_t"
                                              : "float");
    field.setFlag("from_attr", attr);
    if (attr) {
      field.set("attr_index", std::to_string(attr_index++));
      field.set("attr_cpp_type", type == "int" ? "int64_t" : type == "bool" ? "bool" : "float");
    }
  }
  d.setFlag("has_inputs", !inputs.empty());
  d.setFlag("has_attrs", !attrs.empty());
  d.set("first_input", inputs.empty() ? std::string() : inputs.front().name);
  d.set("shape_source", inputs.empty() ? "GetOutputShape(0)" : "GetInputShape(0)");
  d.set("kernel_gm_params", join(gm_params, ", "));
  d.set("kernel_gm_args", join(gm_args, ", "));
  d.set("tensor_count", std::to_string(all.size()));
  d.set("widest_bytes", std::to_string(widestElement(types)));

  std::vector<std::string> features;
  for (const std::string& feature :
       {std::string("shared_memory"), std::string("warp_intrinsics"), std::string("atomics"),
        std::string("inline_ptx"), std::string("tensor_cores"), std::string("launch_bounds"),
        std::string("macro_defined")})
    if (detailOf(f, "features").find(feature) != std::string::npos) {
      features.push_back(feature);
      d.addItem("feature_notes").set("note", featureNote(feature));
    }
  d.set("features", join(features, ", "));
  return d;
}

}  // namespace

std::vector<CudaKernel> cudaKernelsOf(const std::vector<sdk::Finding>& findings) {
  std::vector<CudaKernel> out;
  std::set<std::string> taken;
  for (const sdk::Finding& f : findings) {
    if (f.rule_id != "OPS-001" || (!f.domain.empty() && f.domain != "custom_ops")) continue;
    CudaKernel k;
    k.finding = &f;
    k.name = detailOf(f, "kernel").empty() ? f.api : detailOf(f, "kernel");
    k.signature = detailOf(f, "signature");
    k.template_params = detailOf(f, "template");
    // "Custom" by the convention for custom operators: no clash with CANN's own types. The same
    // kernel name in two files (or two spellings of one name) numbers the later ones.
    const std::vector<std::string> words = opWords(k.name);
    std::vector<std::string> named = words;
    named.push_back("custom");
    for (int n = 2; taken.count(lower(pascal(named))); ++n) {
      named = words;
      named.push_back(std::string("v").append(std::to_string(n)));
      named.push_back("custom");
    }
    const std::string op = pascal(named);
    taken.insert(lower(op));
    // The file stem is the operator type in snake case, as msopgen names the generated files.
    k.file_stem = join(named, "_");
    k.op_type = op;
    out.push_back(std::move(k));
  }
  return out;
}

void writeAscendOps(sdk::EmitContext& context, const std::vector<CudaKernel>& kernels) {
  if (kernels.empty()) return;
  sdk::TemplateData index;
  for (const CudaKernel& k : kernels) {
    const sdk::TemplateData d = scaffoldData(k);
    const std::string dir = std::string(kOpsDir) + "/" + k.op_type + "/";
    context.writeFile(dir + k.file_stem + ".json", context.render("ascend_op/op_def.json", d));
    context.writeFile(dir + "op_kernel/" + k.file_stem + ".cpp",
                      context.render("ascend_op/op_kernel.cpp", d));
    context.writeFile(dir + "op_host/" + k.file_stem + ".cpp", context.render("ascend_op/op_host.cpp", d));
    context.writeFile(dir + "op_host/" + k.file_stem + "_tiling.h",
                      context.render("ascend_op/op_host_tiling.h", d));
    context.writeFile(dir + "README.md", context.render("ascend_op/README.md", d));

    sdk::TemplateData& row = index.addItem("operators");
    for (const char* key :
         {"op_type", "kernel", "file", "line", "replacement_path", "effort_days", "category"})
      row.set(key, d.find(key)->text);
    row.setFlag("cheaper_path", d.find("cheaper_path")->flag);
  }
  context.writeFile(std::string(kOpsDir) + "/README.md", context.render("ascend_op/index.md", index));
  context.writeFile("build_ascend_ops.sh", context.render("build_ascend_ops.sh", index), true);
}

}  // namespace custom_ops
