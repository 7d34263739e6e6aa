// Ascend C operator scaffolds written by the custom_ops emit hook: one per CUDA kernel, carrying
// the kernel's parameters; the operator definition read back with python3 and msopgen's rules,
// the host and kernel stubs compiled by g++ against fake CANN headers (tests/fake_cann/include).

#include <regex>
#include <set>
#include <sstream>

#include "emit_fixture.hpp"

namespace migrate::custom_ops_test {
namespace {

/// The tensors and attributes of a written operator definition.
struct OpDef {
  std::vector<std::string> inputs, outputs, attrs;
  std::map<std::string, std::string> types;  ///< tensor or attribute → its types
};

OpDef readOpDef(const fs::path& json) {
  const auto r =
      test::run("/usr/bin/python3 " +
                test::quote((test::sourceDir() / "plugins/custom_ops/tests/read_op_def.py").string()) + " " +
                test::quote(json.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  OpDef def;
  std::istringstream lines(r.output);
  for (std::string kind, name, types; lines >> kind >> name >> types;) {
    (kind == "input" ? def.inputs : kind == "output" ? def.outputs : def.attrs).push_back(name);
    def.types[name] = types;
  }
  return def;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Syntax-checks an operator's host and kernel stubs with g++ and the fake CANN headers; the
/// kernel without its #error line (as after porting), DTYPE_<NAME> defined per tensor of the JSON.
void expectCompiles(const fs::path& dir, const std::string& op, const std::string& stem) {
  const fs::path include = test::sourceDir() / "plugins/custom_ops/tests/fake_cann/include";
  const std::string gxx = "g++ -std=c++17 -fsyntax-only -Wall -Wextra -Wno-unused-parameter -Werror -I " +
                          test::quote(include.string());
  const auto host = test::run(gxx + " -I " + test::quote((dir / "op_host").string()) + " " +
                              test::quote((dir / "op_host" / (stem + ".cpp")).string()));
  EXPECT_EQ(host.exit_code, 0) << op << " host:\n" << host.output;

  const std::string kernel = test::readFile(dir / "op_kernel" / (stem + ".cpp"));
  ASSERT_NE(kernel.find("\n#error \""), std::string::npos) << op << ": the scaffold must not build as it is";
  const fs::path ported = dir / "ported_kernel.cpp";
  test::writeFile(ported, std::regex_replace(kernel, std::regex("\n#error [^\n]*"), "\n"));
  std::string defines = " -DFAKE_TILING_TYPE=optiling::" + op + "TilingData";
  const OpDef def = readOpDef(dir / (stem + ".json"));
  for (const auto* list : {&def.inputs, &def.outputs})
    for (const std::string& name : *list) defines += " -DDTYPE_" + upper(name) + "=float";
  const auto built = test::run(gxx + defines + " -include " +
                               test::quote((dir / "op_host" / (stem + "_tiling.h")).string()) + " " +
                               test::quote(ported.string()));
  EXPECT_EQ(built.exit_code, 0) << op << " kernel:\n" << built.output;
  fs::remove(ported);
}

/// The operator directory whose kernel stub declares `kernel` with `signature`.
std::string opDirOf(const Emitted& e, const std::string& kernel, const std::string& signature) {
  std::string found;
  for (const auto& dir : fs::directory_iterator(e.kit / "ascend_ops")) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path() / "op_kernel"))
      if (test::readFile(file.path()).find("__global__ void " + kernel + signature + "\n") !=
          std::string::npos) {
        EXPECT_TRUE(found.empty()) << kernel << " has two scaffolds";
        found = dir.path().filename().string();
      }
  }
  return found;
}

/// The stem of an operator directory (its JSON file's name).
std::string stemOf(const fs::path& dir) {
  for (const auto& file : fs::directory_iterator(dir))
    if (file.path().extension() == ".json") return file.path().stem().string();
  return {};
}

/// CUDA parameters split at top-level commas, as (name, declaration).
std::vector<std::pair<std::string, std::string>> cudaParams(std::string signature) {
  signature = signature.substr(1, signature.size() - 2);
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream ss(signature);
  for (std::string p; std::getline(ss, p, ',');) {
    p = std::regex_replace(p, std::regex("^\\s+|\\s+$"), "");
    std::smatch m;
    if (std::regex_search(p, m, std::regex("(\\w+)$"))) out.emplace_back(m[1], p);
  }
  return out;
}

TEST_F(CustomOpsEmitTest, BundledExampleGetsOneScaffoldPerCudaKernelCarryingItsSignature) {
  const Emitted e = emit(test::sourceDir() / "examples" / "gpt_cuda");
  const auto kernels = e.rule("OPS-001");
  ASSERT_FALSE(kernels.empty());
  ASSERT_TRUE(e.wrote("build_ascend_ops.sh"));
  EXPECT_TRUE(e.context->written.at("build_ascend_ops.sh")) << "the script is executable";
  EXPECT_TRUE(e.wrote("ascend_ops/README.md"));

  std::set<std::string> dirs;
  for (const sdk::Finding* k : kernels) {
    const std::string name = detail(*k, "kernel");
    const std::string signature = detail(*k, "signature");
    const std::string op = opDirOf(e, name, signature);
    ASSERT_FALSE(op.empty()) << "no scaffold carries " << name << signature;
    dirs.insert(op);
    const fs::path dir = e.kit / "ascend_ops" / op;
    const std::string stem = stemOf(dir);
    const std::string kernel = test::readFile(dir / "op_kernel" / (stem + ".cpp"));
    const std::string where = k->file + ":" + std::to_string(k->range.line);
    EXPECT_NE(kernel.find("TODO(migrate): port the body of " + name + " (" + where + ")"), std::string::npos)
        << kernel;
    EXPECT_NE(kernel.find("template " + detail(*k, "template")), std::string::npos);
    EXPECT_NE(e.read("ascend_ops/" + op + "/README.md").find(where), std::string::npos);
    EXPECT_NE(e.read("ascend_ops/README.md").find("[" + op + "](" + op + "/README.md)"), std::string::npos);

    // Pointers to const are inputs, other pointers outputs, in the CUDA order; scalars are tiling
    // fields; every CUDA parameter is named in the kernel stub's comment.
    std::vector<std::string> inputs, outputs, scalars;
    for (const auto& [param, declaration] : cudaParams(signature)) {
      EXPECT_NE(kernel.find("//   " + param + " ("), std::string::npos) << param;
      if (declaration.find('*') == std::string::npos)
        scalars.push_back(param);
      else
        (declaration.rfind("const", 0) == 0 ? inputs : outputs).push_back(param);
    }
    const OpDef def = readOpDef(dir / (stem + ".json"));
    EXPECT_EQ(def.inputs, inputs) << name;
    EXPECT_EQ(def.outputs, outputs) << name;
    const std::string host = test::readFile(dir / "op_host" / (stem + ".cpp"));
    const std::string tiling = test::readFile(dir / "op_host" / (stem + "_tiling.h"));
    for (const auto& in : inputs) EXPECT_NE(host.find("this->Input(\"" + in + "\")"), std::string::npos);
    for (const auto& out : outputs) EXPECT_NE(host.find("this->Output(\"" + out + "\")"), std::string::npos);
    for (const auto& s : scalars) EXPECT_NE(tiling.find(", " + s + ");"), std::string::npos) << s;
    EXPECT_NE(host.find("OP_ADD(" + op + ");"), std::string::npos);
    EXPECT_NE(tiling.find("REGISTER_TILING_DATA_CLASS(" + op + ", "), std::string::npos);
    expectCompiles(dir, op, stem);

    bool listed = false;
    for (const auto& w : e.context->manual_work)
      listed = listed || (w.rule_id == "OPS-001" && w.file == k->file && w.line == k->range.line &&
                          w.what.find("ascend_ops/" + op + "/") != std::string::npos &&
                          w.what.find("build_ascend_ops.sh --op " + op) != std::string::npos);
    EXPECT_TRUE(listed) << "no manual work names the scaffold of " << name;
  }
  std::size_t on_disk = 0;
  for (const auto& d : fs::directory_iterator(e.kit / "ascend_ops")) on_disk += d.is_directory();
  EXPECT_EQ(on_disk, kernels.size());
  EXPECT_EQ(dirs.size(), kernels.size());
}

/// A hand-built OPS-001 finding.
sdk::Finding cudaKernel(const std::string& file, std::uint32_t line, const std::string& name,
                        const std::string& signature, const std::string& category = "other",
                        const std::string& kind = "ascend_c") {
  sdk::Finding f;
  f.rule_id = "OPS-001";
  f.domain = "custom_ops";
  f.file = file;
  f.range.line = line;
  f.range.column = 1;
  f.api = name;
  f.severity = sdk::Severity::Error;
  f.effort_days = 5;
  f.details = {{"kernel", name},
               {"signature", signature},
               {"template", ""},
               {"category", category},
               {"replacement_kind", kind},
               {"replacement_path", "rewrite it"},
               {"features", "atomics"},
               {"source", file + ":" + std::to_string(line) + "-" + std::to_string(line + 9)},
               {"launch_sites", file + ":99"}};
  return f;
}

TEST_F(CustomOpsEmitTest, ScalarsBecomeAttributesOrTilingFieldsAndNamesStayUnique) {
  Emitted e = emitFindings({
      cudaKernel(
          "csrc/a.cu", 10, "fused_rms_norm_kernel",
          "(const float* __restrict__ x, const at::Half* weight, float* y, float eps, int hidden_size, "
          "const int64_t* idx, float** lists, Params p, int tiling)",
          "rms_norm", "torch_npu_op"),
      cudaKernel("csrc/b.cu", 20, "fused_rms_norm_kernel", "(const float* x, float* y, int n)", "rms_norm",
                 "torch_npu_op"),
      cudaKernel("csrc/c.cu", 30, "flash_fwd_kernel", "(declared by the macro DEFINE_FLASH_KERNEL)"),
  });
  const fs::path first = e.kit / "ascend_ops/FusedRmsNormCustom";
  const fs::path second = e.kit / "ascend_ops/FusedRmsNormV2Custom";
  const fs::path macro = e.kit / "ascend_ops/FlashForwardCustom";
  for (const auto& dir : {first, second, macro}) ASSERT_TRUE(fs::is_directory(dir)) << dir;

  const OpDef def = readOpDef(first / "fused_rms_norm_custom.json");
  EXPECT_EQ(def.inputs, (std::vector<std::string>{"x", "weight", "idx"}));
  EXPECT_EQ(def.outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(def.attrs, (std::vector<std::string>{"eps", "tiling_2"}));
  EXPECT_EQ(def.types.at("x"), "float");  // fixed element types: one combination
  EXPECT_EQ(def.types.at("weight"), "float16");
  EXPECT_EQ(def.types.at("idx"), "int64");
  EXPECT_EQ(def.types.at("eps"), "float");
  const std::string host = test::readFile(first / "op_host/fused_rms_norm_custom.cpp");
  EXPECT_NE(host.find("this->Attr(\"eps\").AttrType(REQUIRED).Float();"), std::string::npos);
  EXPECT_NE(host.find("GetAttrPointer<float>(0)"), std::string::npos) << "the attribute reaches the tiling";
  const std::string tiling = test::readFile(first / "op_host/fused_rms_norm_custom_tiling.h");
  EXPECT_NE(tiling.find("TILING_DATA_FIELD_DEF(int32_t, hidden_size);"), std::string::npos) << tiling;
  EXPECT_NE(tiling.find("TILING_DATA_FIELD_DEF(int64_t, tiling_2);"), std::string::npos)
      << "a parameter named like the kernel entry's own is renamed";
  EXPECT_NE(host.find("this->Attr(\"tiling_2\").AttrType(REQUIRED).Int();"), std::string::npos);
  const std::string kernel = test::readFile(first / "op_kernel/fused_rms_norm_custom.cpp");
  EXPECT_NE(kernel.find("note on lists: a pointer to pointers"), std::string::npos);
  EXPECT_NE(kernel.find("note on p: a Params passed by value"), std::string::npos);
  EXPECT_NE(kernel.find("SetAtomicAdd"), std::string::npos) << "the atomics feature is explained";
  expectCompiles(first, "FusedRmsNormCustom", "fused_rms_norm_custom");
  expectCompiles(second, "FusedRmsNormV2Custom", "fused_rms_norm_v2_custom");

  // A kernel declared through a macro: placeholder tensors, said so.
  const std::string macro_kernel = test::readFile(macro / "op_kernel/flash_forward_custom.cpp");
  EXPECT_NE(macro_kernel.find("could not be read"), std::string::npos);
  EXPECT_EQ(readOpDef(macro / "flash_forward_custom.json").outputs, (std::vector<std::string>{"y"}));
  expectCompiles(macro, "FlashForwardCustom", "flash_forward_custom");

  // An RMSNorm kernel asks for the kit's wrapper of torch_npu.npu_rms_norm.
  EXPECT_EQ(e.context->sections, (std::set<std::string>{"npu_ops.py:op_rms_norm"}));
  std::size_t named = 0;
  for (const auto& w : e.context->manual_work) named += w.what.find("npu_ops.rms_norm") != std::string::npos;
  EXPECT_EQ(named, 2u);
}

TEST_F(CustomOpsEmitTest, WithoutCudaKernelsThereIsNoScaffoldAndNoScript) {
  const Emitted triton_only = emit(repo({{"pkg/kernels.py",
                                          "import triton\n"
                                          "import triton.language as tl\n\n\n"
                                          "@triton.jit\n"
                                          "def _scale_kernel(X, Y, n, BLOCK: tl.constexpr):\n"
                                          "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                          "    x = tl.load(X + offs, mask=offs < n)\n"
                                          "    tl.store(Y + offs, x * 2, mask=offs < n)\n"}}));
  ASSERT_EQ(triton_only.rule("OPS-021").size(), 1u);
  EXPECT_TRUE(triton_only.rule("OPS-001").empty());
  EXPECT_FALSE(triton_only.wrote("build_ascend_ops.sh"));
  EXPECT_FALSE(fs::exists(triton_only.kit / "ascend_ops"));
  EXPECT_TRUE(triton_only.wrote("triton_notes.md"));

  const Emitted plain = emit(repo({{"train.py", "import torch\n\nx = torch.ones(3).cuda()\n"}}));
  EXPECT_TRUE(plain.context->written.empty());
  EXPECT_TRUE(plain.context->manual_work.empty());
  EXPECT_TRUE(plain.context->sections.empty());
}

}  // namespace
}  // namespace migrate::custom_ops_test
