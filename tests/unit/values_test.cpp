// The values layer: aliases resolved like imports, strings followed through the names they are
// assigned to, and the branches the NPU never takes.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "parse/python_parser.hpp"
#include "values/name_bindings.hpp"
#include "values/platform_branches.hpp"
#include "values/string_flow.hpp"

namespace migrate::values {
namespace {

std::unique_ptr<parse::PythonModule> parse(const std::string& code) {
  auto m = parse::parsePython("pkg/mod.py", code);
  EXPECT_TRUE(m.ok());
  return std::move(m.value());
}

/// Where the first string literal with content `value` reaches (StringFlow::reached).
std::vector<sdk::StringFact> reachedBy(const parse::PythonModule& m, const StringFlow& flow,
                                       const std::string& value) {
  for (const auto& s : m.strings())
    if (s.value == value) return flow.reached(s);
  return {};
}

/// Whether the first occurrence of `text` in `code` lies in a range the NPU never takes.
bool offNpu(const parse::PythonModule& m, const std::string& code, const std::string& text) {
  const auto at = static_cast<std::uint32_t>(code.find(text));
  return std::any_of(m.offNpuRanges().begin(), m.offNpuRanges().end(),
                     [&](const auto& r) { return r.first <= at && at < r.second; });
}

std::string decoratorOf(const parse::PythonModule& m, const std::string& def) {
  for (const auto& d : m.definitions())
    if (d.name == def && !d.decorators.empty()) return d.decorators.front();
  return {};
}

TEST(NameBindings, AnAliasOfAnImportedNameResolvesToIt) {
  NameBindings b;
  b.bindImport("torch", "torch");
  b.noteAssignment("custom_op", "torch.library.custom_op");
  b.noteAssignment("op", "custom_op");
  b.finish();
  EXPECT_EQ(b.resolve("custom_op"), "torch.library.custom_op");
  EXPECT_EQ(b.resolve("op"), "torch.library.custom_op");
  EXPECT_EQ(b.resolve("op.register_fake"), "torch.library.custom_op.register_fake");
}

TEST(NameBindings, ANameBoundToTwoThingsOrToACycleIsNoAlias) {
  NameBindings b;
  b.bindImport("torch", "torch");
  b.noteAssignment("dev", "torch.cuda");
  b.noteAssignment("dev", "");  // dev = make_device() elsewhere
  b.noteAssignment("a", "b");
  b.noteAssignment("b", "a");
  b.noteAssignment("torch", "");  // `except ImportError: torch = None` keeps the import
  b.finish();
  EXPECT_EQ(b.resolve("dev.synchronize"), "");
  EXPECT_EQ(b.resolve("a"), "");
  EXPECT_EQ(b.resolve("torch.cuda"), "torch.cuda");
}

TEST(NameBindings, AFallbackBoundInAnExceptHandlerYieldsAndNoneIsNoValue) {
  auto m = parse(
      "import torch\n"
      "try:\n"
      "    import flash_attn_3._C as _C\n"
      "    ops: Any = torch.ops.flash_attn_3\n"
      "except ImportError:\n"
      "    try:\n"
      "        import flash_attn_3_cuda as _C\n"
      "        ops = _C\n"
      "    except ImportError:\n"
      "        ops = None\n"
      "if torch.cuda.is_available():\n"
      "    dev = torch.cuda\n"
      "else:\n"
      "    dev = torch.cpu\n"
      "def fwd(q):\n"
      "    dev.synchronize()\n"
      "    return ops.fwd(q)\n");
  std::set<std::string> callees;
  for (const auto& c : m->calls()) callees.insert(c.callee_resolved);
  EXPECT_TRUE(callees.count("torch.ops.flash_attn_3.fwd"))
      << "the value bound outside the handlers is what runs where the library is installed";
  EXPECT_FALSE(callees.count("torch.cuda.synchronize")) << "two values bound outside handlers: no alias";
  EXPECT_FALSE(callees.count("torch.cpu.synchronize"));

  NameBindings b;
  b.bindImport("fa", "flash_attn_3_cuda");
  b.noteAssignment("ext", "fa", /*fallback=*/true);  // only bound in a handler: still its value
  b.finish();
  EXPECT_EQ(b.resolve("ext.fwd"), "flash_attn_3_cuda.fwd");
}

TEST(NameBindings, ADecoratorThroughAModuleLevelAliasIsResolved) {
  auto m = parse(
      "import torch\n"
      "custom_op = torch.library.custom_op\n"
      "@custom_op('lib::f', mutates_args=(), device_types='cuda')\n"
      "def f(x):\n"
      "    return x\n"
      "def g():\n"
      "    from torch.utils.cpp_extension import CUDAExtension\n"
      "    ext = CUDAExtension\n"
      "    return ext('k', ['k.cu'])\n");
  EXPECT_EQ(decoratorOf(*m, "f"), "torch.library.custom_op");
  bool found = false;
  for (const auto& c : m->calls())
    found = found || c.callee_resolved == "torch.utils.cpp_extension.CUDAExtension";
  EXPECT_TRUE(found) << "an import inside a function, then an alias of it";
}

TEST(NameBindings, ACallThroughAnAliasIsResolvedButAPlainReadIsNot) {
  auto m = parse(
      "import exllamav2_ext\n"
      "ext_c = exllamav2_ext\n"
      "def f(w):\n"
      "    return ext_c.make_q_matrix(w)\n"
      "def g():\n"
      "    return ext_c\n");
  bool call = false;
  for (const auto& c : m->calls()) call = call || c.callee_resolved == "exllamav2_ext.make_q_matrix";
  EXPECT_TRUE(call);
  for (const auto& r : m->references())
    if (r.written == "ext_c") {
      EXPECT_EQ(r.resolved, "") << "a read of the alias is its value, not a use";
    }
}

TEST(NameBindings, ABranchBesideANoOpContextIsTheAlias) {
  auto m = parse(
      "from contextlib import nullcontext\n"
      "from torch import autocast\n"
      "def run(opt):\n"
      "    scope = autocast if opt.amp else nullcontext\n"
      "    with scope('cuda'):\n"
      "        pass\n"
      "    other = autocast if opt.amp else opt.ctx\n"
      "    with other('cuda'):\n"
      "        pass\n");
  std::vector<std::string> resolved;
  for (const auto& c : m->calls()) resolved.push_back(c.callee_resolved);
  EXPECT_NE(std::find(resolved.begin(), resolved.end(), "torch.autocast"), resolved.end());
  EXPECT_EQ(std::count(resolved.begin(), resolved.end(), "torch.autocast"), 1)
      << "a choice between two things that do something is no alias";
}

TEST(StringFlow, AStringReachesTheArgumentsItsNameIsPassedAs) {
  auto m = parse(
      "import torch\n"
      "TARGET = 'cuda'\n"
      "def run(model):\n"
      "    return model.to(TARGET)\n"
      "def local(x):\n"
      "    where = 'cuda:0'\n"
      "    return torch.zeros(2, device=where)\n"
      "def other(x, where='cpu'):\n"
      "    return torch.ones(2, device=where)\n");
  const StringFlow flow(*m);
  auto placedOf = [&](const std::string& value) { return reachedBy(*m, flow, value); };
  auto target = placedOf("cuda");
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].context, sdk::StringContext::PositionalArg);
  EXPECT_EQ(target[0].method, "to");
  EXPECT_TRUE(target[0].method_on_value);
  EXPECT_EQ(target[0].range.line, 2u) << "reported where the literal stands";
  auto local = placedOf("cuda:0");
  ASSERT_EQ(local.size(), 1u) << "the `where` of another function is another name";
  EXPECT_EQ(local[0].context, sdk::StringContext::KeywordArg);
  EXPECT_EQ(local[0].name, "device");
  EXPECT_EQ(local[0].callee, "torch.zeros");
}

TEST(StringFlow, AStringPassedToAFunctionOfTheModuleReachesWhereItsParameterGoes) {
  auto m = parse(
      "def move(model, device, *args, dtype=None, **kw):\n"
      "    return model.to(device)\n"
      "def run(model):\n"
      "    move(model, 'cuda')\n"
      "    move(model, device='cuda:1')\n"
      "    move(model, 'cpu', 'cuda:2')\n");
  const StringFlow flow(*m);
  auto placedOf = [&](const std::string& value) { return reachedBy(*m, flow, value); };
  for (const char* value : {"cuda", "cuda:1"}) {
    auto placed = placedOf(value);
    ASSERT_EQ(placed.size(), 1u) << value;
    EXPECT_EQ(placed[0].method, "to") << value;
    EXPECT_EQ(placed[0].arg_index, 0) << value;
  }
  EXPECT_TRUE(placedOf("cuda:2").empty()) << "the third positional argument binds *args";
}

TEST(PlatformBranches, ConditionsAreClassifiedByWhatTheyTest) {
  EXPECT_EQ(classifyCondition("torch.version.hip is not None"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("torch.version.hip is None"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("(\n  torch.version.hip\n  and (a or b)\n)"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("x and not is_npu_available()"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("device.type != 'npu'"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("torch.npu.is_available()"), PlatformTest::NpuOnly);
  EXPECT_EQ(classifyCondition("is_torch_npu_available() and x"), PlatformTest::NpuOnly);
  EXPECT_EQ(classifyCondition("torch.version.hip or torch.cuda.is_available()"), PlatformTest::Neither);
  // A CUDA or ROCm build, `and`-ed with the CUDA test: still the CUDA branch.
  EXPECT_EQ(classifyCondition("torch.cuda.is_available() and (torch.version.cuda or torch.version.hip)"),
            PlatformTest::Cuda);
  EXPECT_EQ(classifyCondition("x and (torch.version.hip or is_xpu_available())"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("opt.amd"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("args.use_amd_gpu"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("args.camdata"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("(torch.cuda.is_available() and torch.version.hip is not None) or "
                              "os.getenv(\"FORCE_ROCM\", \"0\") == 1"),
            PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("(torch.cuda.is_available() and torch.version.cuda is not None) or "
                              "os.getenv(\"FORCE_CUDA\", \"0\") == \"1\""),
            PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("os.environ.get('USE_ROCM') == '1'"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("torch.cuda.is_available()"), PlatformTest::Cuda);
  EXPECT_EQ(classifyCondition("cfg.device.startswith('cuda')"), PlatformTest::Cuda);
  EXPECT_EQ(classifyCondition("'cuda' in device"), PlatformTest::Cuda);
  EXPECT_EQ(classifyCondition("x.device.type != 'cuda'"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("torch.cuda.is_available() and amp"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("not x.is_cuda"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("SYSTEM == 'rocm'"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("is_xla_installed()"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("torch.backends.mps.is_available()"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("device.type == 'xpu'"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("not torch.backends.mps.is_available()"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("is_torch_cuda_available()"), PlatformTest::OffNpu)
      << "a helper named for the CUDA test stays False on an NPU: the kit renames only torch.cuda's";
  EXPECT_EQ(classifyCondition("utils.is_cuda_available()"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("not is_torch_cuda_available()"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("is_torch_cuda_available() and fast"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("is_npu_available"), PlatformTest::NpuOnly) << "a flag named for the test";
  EXPECT_EQ(classifyCondition("not is_npu_available"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("npu_config"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("use_torch_npu"), PlatformTest::NpuOnly) << "a flag set from the NPU test";
  EXPECT_EQ(classifyCondition("self.on_npu and fast"), PlatformTest::NpuOnly);
  EXPECT_EQ(classifyCondition("USE_NPU"), PlatformTest::NpuOnly);
  EXPECT_EQ(classifyCondition("not use_torch_npu"), PlatformTest::OffNpu);
  EXPECT_EQ(classifyCondition("use_npu_kernels_count > 0"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("reuse_npu"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("HAS_FLASH_ATTN_V2_ROCM and ROCM_USE_FLASH_ATTN_V2_CK"), PlatformTest::OffNpu)
      << "a flag named for ROCm";
  EXPECT_EQ(classifyCondition("HAS_FLASH_ATTN_V2_CUDA"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("HAS_CUDA"), PlatformTest::Cuda) << "a flag named for the CUDA test";
  EXPECT_EQ(classifyCondition("self.use_cuda"), PlatformTest::Cuda);
  EXPECT_EQ(classifyCondition("device_type == 'cuda' and HAS_CUDA"), PlatformTest::Cuda)
      << "every term a CUDA test";
  EXPECT_EQ(classifyCondition("HAS_CUDA and fast"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("not HAS_CUDA"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("ship_ready"), PlatformTest::Neither);
  EXPECT_EQ(classifyCondition("not HAS_ROCM"), PlatformTest::Neither);
  EXPECT_TRUE(namesOtherPlatform("_infer_amd_arch"));
  EXPECT_TRUE(namesOtherPlatform("is_rocm"));
  EXPECT_FALSE(namesOtherPlatform("chip_name"));
  EXPECT_FALSE(namesOtherPlatform("ampere_check"));
}

TEST(PlatformBranches, TheModuleKnowsWhichBranchesTheNpuNeverTakes) {
  const std::string code =
      "import torch\n"
      "if torch.version.hip:\n"
      "    torch.cuda.synchronize()\n"
      "if torch.npu.is_available():\n"
      "    torch.npu.synchronize()\n"
      "elif torch.cuda.is_available():\n"
      "    torch.cuda.synchronize()\n"
      "torch.cuda.empty_cache()\n";
  auto m = parse(code);
  auto off = [&](const std::string& text) { return offNpu(*m, code, text); };
  EXPECT_TRUE(off("torch.cuda.synchronize()\nif"));
  EXPECT_FALSE(off("torch.npu.synchronize"));
  EXPECT_TRUE(off("torch.cuda.is_available"));
  EXPECT_TRUE(off("torch.cuda.synchronize()\ntorch.cuda.empty"));
  EXPECT_FALSE(off("torch.cuda.empty_cache"));
}

TEST(PlatformBranches, ACudaBranchIsOffTheNpuOnlyWhenItsChainHasAnNpuBranch) {
  const std::string code =
      "import torch\n"
      "def pick(cfg):\n"
      "    if cfg.device.startswith('cuda'):\n"
      "        m = {'': torch.cuda.current_device()}\n"
      "    elif cfg.device.startswith('npu'):\n"
      "        m = {'npu': torch.npu.current_device()}\n"
      "    if torch.cuda.is_available():\n"
      "        torch.cuda.set_device(cfg.rank)\n"
      "    elif is_xla_installed():\n"
      "        xla_setup(torch.cuda.device_count())\n"
      "    return m\n";
  auto m = parse(code);
  auto off = [&](const std::string& text) { return offNpu(*m, code, text); };
  EXPECT_TRUE(off("torch.cuda.current_device"));
  EXPECT_FALSE(off("torch.npu.current_device"));
  EXPECT_FALSE(off("torch.cuda.set_device")) << "no NPU branch beside it: the NPU may take it";
  EXPECT_TRUE(off("torch.cuda.device_count")) << "an XLA branch";
}

TEST(PlatformBranches, AMembershipTestOnCudaBesideAnNpuBranchIsOffTheNpu) {
  const std::string code =
      "import torch\n"
      "def device_sync(device):\n"
      "    if 'cuda' in device:\n"
      "        torch.cuda.synchronize(device)\n"
      "    elif 'npu' in device:\n"
      "        torch.npu.synchronize(device)\n";
  auto m = parse(code);
  auto off = [&](const std::string& text) { return offNpu(*m, code, text); };
  EXPECT_TRUE(off("torch.cuda.synchronize"));
  EXPECT_FALSE(off("torch.npu.synchronize"));
}

TEST(PlatformBranches, ConsecutiveIfStatementsAreOneChain) {
  const std::string code =
      "import torch\n"
      "def new_stream():\n"
      "    if HAS_CUDA:\n"
      "        return torch.cuda.Stream()\n"
      "    # Intel next\n"
      "    if HAS_XPU:\n"
      "        return torch.xpu.Stream()\n"
      "    if HAS_NPU:\n"
      "        return torch.npu.Stream()\n"
      "def sync():\n"
      "    if torch.cuda.is_available():\n"
      "        torch.cuda.synchronize()\n"
      "    done = True\n"
      "    if HAS_NPU:\n"
      "        torch.npu.synchronize()\n"
      "def count(dev):\n"
      "    if dev == 'cuda':\n"
      "        n = torch.cuda.device_count()\n"
      "    if dev == 'npu':\n"
      "        n = torch.npu.device_count()\n"
      "    return n\n"
      "def mem(dev):\n"
      "    if dev == 'cuda':\n"
      "        m = torch.cuda.memory_allocated()\n"
      "    if dev == 'xpu':\n"
      "        m = 0\n"
      "    elif dev == 'npu':\n"
      "        m = torch.npu.memory_allocated()\n"
      "    return m\n";
  auto m = parse(code);
  auto off = [&](const std::string& text) { return offNpu(*m, code, text); };
  EXPECT_TRUE(off("torch.cuda.Stream")) << "an NPU test two statements on, past a comment";
  EXPECT_FALSE(off("torch.npu.Stream"));
  EXPECT_FALSE(off("torch.cuda.synchronize")) << "a statement between ends the run";
  EXPECT_TRUE(off("torch.cuda.device_count"));
  EXPECT_FALSE(off("torch.cuda.memory_allocated")) << "the next if is a chain of its own";
}

TEST(PlatformBranches, TheRestOfABlockAfterAnEarlyReturnOnTheNpuIsOffIt) {
  const std::string code =
      "import torch\n"
      "def set_affinity(is_npu_available):\n"
      "    if is_npu_available:\n"
      "        return\n"
      "    import pynvml\n"
      "    pynvml.nvmlInit()\n"
      "def sync():\n"
      "    if torch.npu.is_available():\n"
      "        torch.npu.synchronize()\n"
      "    torch.cuda.synchronize()\n"
      "def count():\n"
      "    if torch.npu.is_available():\n"
      "        raise RuntimeError('npu')\n"
      "    else:\n"
      "        pass\n"
      "    return torch.cuda.device_count()\n"
      "torch.cuda.empty_cache()\n";
  auto m = parse(code);
  auto off = [&](const std::string& text) { return offNpu(*m, code, text); };
  EXPECT_TRUE(off("pynvml.nvmlInit"));
  EXPECT_FALSE(off("torch.cuda.synchronize")) << "no return: the NPU goes on past the if";
  EXPECT_FALSE(off("torch.cuda.device_count")) << "an else branch: not an early return";
  EXPECT_FALSE(off("torch.cuda.empty_cache")) << "outside the function";
}

}  // namespace
}  // namespace migrate::values
