// The Python fact extractor: imports and aliases, reference resolution, calls and arguments,
// string positions, definitions — and what must never be a use.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "parse/python_parser.hpp"

namespace migrate::parse {
namespace {

std::unique_ptr<PythonModule> parse(const std::string& code, const std::string& path = "pkg/mod.py") {
  auto m = parsePython(path, code);
  EXPECT_TRUE(m.ok());
  return std::move(m.value());
}

std::vector<std::string> resolved(const PythonModule& m) {
  std::vector<std::string> out;
  for (const auto& r : m.references())
    if (!r.resolved.empty()) out.push_back(r.resolved);
  return out;
}

const sdk::StringFact* stringWith(const PythonModule& m, const std::string& value) {
  for (const auto& s : m.strings())
    if (s.value == value) return &s;
  return nullptr;
}

TEST(PythonFacts, ImportFormsBindTheirNames) {
  auto m = parse(
      "import torch\n"
      "import torch.cuda as tc\n"
      "from torch import cuda\n"
      "from torch.cuda import amp as a\n"
      "import os.path\n");
  ASSERT_EQ(m->imports().size(), 5u);
  EXPECT_EQ(m->imports()[1].bound, "tc");
  EXPECT_EQ(m->imports()[1].target, "torch.cuda");
  EXPECT_EQ(m->imports()[2].target, "torch.cuda");
  EXPECT_EQ(m->imports()[3].bound, "a");
  EXPECT_EQ(m->imports()[3].target, "torch.cuda.amp");
  EXPECT_EQ(m->imports()[4].bound, "os");
  EXPECT_EQ(m->imports()[4].target, "os");
}

TEST(PythonFacts, ReferencesResolveThroughAliases) {
  auto m = parse(
      "import torch.cuda as tc\n"
      "from torch import cuda\n"
      "from torch.cuda import amp as a\n"
      "tc.synchronize()\n"
      "cuda.empty_cache()\n"
      "with a.autocast():\n"
      "    pass\n");
  auto r = resolved(*m);
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.synchronize"), r.end());
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.empty_cache"), r.end());
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.amp.autocast"), r.end());
}

TEST(PythonFacts, RelativeImportsResolveAgainstThePackage) {
  auto m = parse("from .utils import helper\nfrom .. import top\nhelper()\n", "pkg/sub/mod.py");
  ASSERT_EQ(m->imports().size(), 2u);
  EXPECT_EQ(m->imports()[0].level, 1);
  EXPECT_EQ(m->imports()[0].target, "pkg.sub.utils.helper");
  EXPECT_EQ(m->imports()[1].target, "pkg.top");
  auto init = parse("from .x import y\n", "pkg/__init__.py");
  EXPECT_EQ(init->imports()[0].target, "pkg.x.y");
}

TEST(PythonFacts, NothingInCommentsOrDocstringsIsAReference) {
  auto m = parse(
      "\"\"\"Calls torch.cuda.synchronize() a lot.\"\"\"\n"
      "import torch\n"
      "# torch.cuda.synchronize()\n"
      "def f():\n"
      "    '''torch.cuda.empty_cache()'''\n"
      "    return 1\n");
  EXPECT_TRUE(resolved(*m).size() == 0u) << "only `import torch` and no uses";
  ASSERT_NE(stringWith(*m, "Calls torch.cuda.synchronize() a lot."), nullptr);
  EXPECT_EQ(stringWith(*m, "Calls torch.cuda.synchronize() a lot.")->context, sdk::StringContext::Docstring);
}

TEST(PythonFacts, SelfMethodsAndLocalDefinitionsDoNotResolve) {
  auto m = parse(
      "from torch.distributed import init_process_group\n"
      "class Group:\n"
      "    def init_process_group(self):\n"
      "        return 1\n"
      "    def run(self):\n"
      "        self.init_process_group()\n");
  for (const auto& c : m->calls()) EXPECT_EQ(c.callee_resolved, "") << c.callee_written;
  auto shadow = parse(
      "from torch.distributed import init_process_group\n"
      "def init_process_group():\n"
      "    pass\n"
      "init_process_group()\n");
  for (const auto& c : shadow->calls()) EXPECT_EQ(c.callee_resolved, "");
  auto fallback = parse(
      "try:\n"
      "    from flash_attn import flash_attn_func\n"
      "except ImportError:\n"
      "    def flash_attn_func(q, k, v):\n"
      "        return q\n"
      "flash_attn_func(1, 2, 3)\n");
  EXPECT_EQ(fallback->calls().back().callee_resolved, "flash_attn.flash_attn_func");
}

TEST(PythonFacts, CallsRecordArgumentsAndKeywordLiterals) {
  auto m = parse(
      "import torch.distributed as dist\n"
      "dist.init_process_group(\"nccl\", init_method=url, world_size=4, timeout=None, debug=True)\n");
  ASSERT_EQ(m->calls().size(), 1u);
  const auto& c = m->calls()[0];
  EXPECT_EQ(c.callee_resolved, "torch.distributed.init_process_group");
  ASSERT_EQ(c.args.size(), 5u);
  EXPECT_EQ(c.args[0].index, 0);
  EXPECT_EQ(c.args[0].kind, sdk::ValueKind::String);
  EXPECT_EQ(c.args[0].text, "nccl");
  EXPECT_EQ(c.args[1].keyword, "init_method");
  EXPECT_EQ(c.args[1].kind, sdk::ValueKind::Name);
  EXPECT_EQ(c.args[2].kind, sdk::ValueKind::Int);
  EXPECT_EQ(c.args[3].kind, sdk::ValueKind::None);
  EXPECT_EQ(c.args[4].kind, sdk::ValueKind::Bool);
}

TEST(PythonFacts, MethodCallsOnValuesAreNotModuleCalls) {
  auto m = parse("import torch\nx = torch.ones(2).cuda()\nmodel.cuda(non_blocking=True)\n");
  std::vector<const sdk::CallFact*> cuda;
  for (const auto& c : m->calls())
    if (c.method == "cuda") cuda.push_back(&c);
  ASSERT_EQ(cuda.size(), 2u);
  EXPECT_FALSE(cuda[0]->receiver_is_module);
  EXPECT_FALSE(cuda[1]->receiver_is_module);
  EXPECT_EQ(cuda[1]->callee_written, "model.cuda");
}

TEST(PythonFacts, ResultUsesAreRecorded) {
  auto m = parse(
      "import torch\n"
      "major, minor = torch.cuda.get_device_capability()\n"
      "cap = torch.cuda.get_device_capability()[0]\n"
      "n = torch.cuda.get_device_properties(0).multi_processor_count\n"
      "p = torch.cuda.get_device_properties(0)\n");
  ASSERT_EQ(m->calls().size(), 4u);
  EXPECT_EQ(m->calls()[0].result_use, sdk::ResultUse::TupleUnpack);
  EXPECT_EQ(m->calls()[1].result_use, sdk::ResultUse::Subscript);
  EXPECT_EQ(m->calls()[2].result_use, sdk::ResultUse::Attribute);
  EXPECT_EQ(m->calls()[2].result_attribute, "multi_processor_count");
  EXPECT_EQ(m->calls()[3].assigned_to, "p");
}

TEST(PythonFacts, StringPositions) {
  auto m = parse(
      "import torch, os, logging\n"
      "t = torch.device(\"cuda:0\")\n"
      "x.to(\"cuda\")\n"
      "device = \"cuda\" if ok else \"cpu\"\n"
      "if args.device == \"mps\":\n"
      "    pass\n"
      "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n"
      "def f(dev=\"npu\"):\n"
      "    pass\n"
      "logging.info(\"moving to cuda\")\n"
      "parser.add_argument(\"--device\", default=\"xpu\", help=\"cuda or cpu\")\n"
      "raise RuntimeError(\"cuda missing\")\n"
      "y = f\"cuda:{rank}\"\n");
  EXPECT_EQ(stringWith(*m, "cuda:0")->context, sdk::StringContext::PositionalArg);
  EXPECT_EQ(stringWith(*m, "cuda:0")->callee, "torch.device");
  EXPECT_EQ(stringWith(*m, "cuda")->method, "to");
  EXPECT_TRUE(stringWith(*m, "cuda")->method_on_value);
  EXPECT_EQ(stringWith(*m, "cpu")->context, sdk::StringContext::Assignment);
  EXPECT_EQ(stringWith(*m, "cpu")->name, "device");
  EXPECT_EQ(stringWith(*m, "mps")->context, sdk::StringContext::Compare);
  EXPECT_EQ(stringWith(*m, "CUDA_VISIBLE_DEVICES")->context, sdk::StringContext::Subscript);
  EXPECT_EQ(stringWith(*m, "CUDA_VISIBLE_DEVICES")->callee, "os.environ");
  EXPECT_EQ(stringWith(*m, "npu")->name, "dev");
  EXPECT_EQ(stringWith(*m, "moving to cuda")->context, sdk::StringContext::Message);
  EXPECT_EQ(stringWith(*m, "xpu")->context, sdk::StringContext::KeywordArg);
  EXPECT_EQ(stringWith(*m, "cuda or cpu")->context, sdk::StringContext::Message);
  EXPECT_EQ(stringWith(*m, "cuda missing")->context, sdk::StringContext::Message);
  ASSERT_NE(stringWith(*m, "cuda:{}"), nullptr);
  EXPECT_TRUE(stringWith(*m, "cuda:{}")->fstring);
}

TEST(PythonFacts, DefinitionsWithBasesDecoratorsAndDocstrings) {
  auto m = parse(
      "import torch\n"
      "import triton\n"
      "class Fn(torch.autograd.Function):\n"
      "    \"\"\"Fused op.\n\n    More.\"\"\"\n"
      "    @staticmethod\n"
      "    def forward(ctx, x):\n"
      "        return x\n"
      "@triton.jit\n"
      "def kernel(x):\n"
      "    pass\n");
  ASSERT_EQ(m->definitions().size(), 3u);
  EXPECT_EQ(m->definitions()[0].bases, std::vector<std::string>{"torch.autograd.Function"});
  EXPECT_EQ(m->definitions()[0].docstring_summary, "Fused op.");
  EXPECT_TRUE(m->definitions()[0].top_level);
  EXPECT_EQ(m->definitions()[1].qualified_name, "Fn.forward");
  EXPECT_FALSE(m->definitions()[1].top_level);
  EXPECT_EQ(m->definitions()[2].decorators, std::vector<std::string>{"triton.jit"});
}

TEST(PythonFacts, PositionsAreOneBasedAndCountCharacters) {
  auto m = parse("import torch\ns = 'é'; torch.cuda.synchronize()\n");
  ASSERT_EQ(m->references().size(), 1u);
  const auto& r = m->references()[0].range;
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.column, 10u);  // 'é' is one character, two bytes
  EXPECT_EQ(m->text(r), "torch.cuda.synchronize");
}

TEST(PythonFacts, SyntaxErrorsKeepTheRest) {
  auto m = parse("import torch\ndef broken(:\n    pass\ntorch.cuda.synchronize()\n");
  EXPECT_TRUE(m->hasSyntaxErrors());
  EXPECT_EQ(m->firstErrorLine(), 2u);
  auto r = resolved(*m);
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.synchronize"), r.end());
}

TEST(PythonFacts, DeepNestingIsTruncatedNotFatal) {
  std::string deep = "x = " + std::string(3000, '(') + "1" + std::string(3000, ')') + "\n";
  auto m = parsePython("deep.py", "import torch\n" + deep + "torch.cuda.synchronize()\n");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m.value()->truncated());
  auto r = resolved(*m.value());
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.synchronize"), r.end());
}

// Found by fuzz_python_facts: the chain of `f(a.a.a…b)` was resolved by a recursion as deep as
// the chain, past the walk's depth limit, and overflowed the stack.
TEST(PythonFacts, AnAttributeChainLongerThanTheStackResolves) {
  std::string chain = "torch";
  for (int i = 0; i < 200000; ++i) chain += ".a";
  auto m = parse("import torch\nf(" + chain + ")\ntorch.cuda.synchronize()\n");
  auto r = resolved(*m);
  EXPECT_NE(std::find(r.begin(), r.end(), "torch.cuda.synchronize"), r.end());
  EXPECT_NE(std::find(r.begin(), r.end(), "torch" + chain.substr(5)), r.end());
}

// Found by fuzz_python_facts: children were taken with ts_node_child(n, i), which walks from the
// first child each time, and every column was counted from the start of its line: quadratic,
// minutes for one long list, call, import or class statement (an unclosed `[[[…` of 50,000
// brackets took 3 minutes). Each of these now takes well under a second.
TEST(PythonFacts, LongListsOfChildrenOnOneLineAreLinear) {
  const int n = 100000;
  std::string args, strings, names, bases;
  for (int i = 0; i < n; ++i) {
    args += "a,";
    // Appends, not `"…" + std::string`: GCC 12 at -O3 misreads that as an overlapping copy.
    strings.append("\"s").append(std::to_string(i)).append("\",");
    names.append("m").append(std::to_string(i)).append(",");
    bases += "torch.nn.Module,";
  }
  auto m = parse("import torch\nf(" + args + "x='cuda')\ng(" + strings + ")\nfrom pkg import (" + names +
                 ")\nclass C(" + bases + "): pass\nx = [" + args + "]\n");
  ASSERT_EQ(m->calls().size(), 2u);
  EXPECT_EQ(m->calls()[0].args.size(), static_cast<std::size_t>(n) + 1);
  EXPECT_EQ(m->calls()[0].args.back().keyword, "x");
  const sdk::StringFact* last = stringWith(*m, std::string("s").append(std::to_string(n - 1)));
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->context, sdk::StringContext::PositionalArg);
  EXPECT_EQ(last->arg_index, n - 1);
  EXPECT_EQ(last->range.column, 3u + strings.rfind("\"s"));  // `g(` and the strings before it
  EXPECT_EQ(m->imports().size(), static_cast<std::size_t>(n) + 1);
  ASSERT_EQ(m->definitions().size(), 1u);
  EXPECT_EQ(m->definitions()[0].bases.size(), static_cast<std::size_t>(n));
  EXPECT_TRUE(m->definitions()[0].top_level);

  // Columns count characters, far into a line too.
  std::string accents;
  for (int i = 0; i < 1000; ++i) accents += "é";
  auto wide = parse("import torch\ns = '" + accents + "'; torch.cuda.synchronize()\n");
  ASSERT_EQ(wide->references().size(), 1u);
  EXPECT_EQ(wide->references()[0].range.column, 1009u);
  EXPECT_EQ(wide->text(wide->references()[0].range), "torch.cuda.synchronize");

  auto unclosed = parsePython("u.py", std::string("x = ").append(5000, '[').append("\n"));
  ASSERT_TRUE(unclosed.ok());
  EXPECT_TRUE(unclosed.value()->hasSyntaxErrors());
}

// Found by fuzz_python_facts: tree-sitter 0.20's error recovery frees a subtree twice when some
// 65,536 brackets are left open at the end of a file, and the process aborted. Such a file is
// not parsed: an error the analyzer records as a `parse-failed` diagnostic naming the file.
TEST(PythonFacts, AFileLeavingTooManyBracketsOpenIsAnErrorNotACrash) {
  auto unclosed = parsePython("u.py", std::string("x = ").append(70000, '[').append("\n"));
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.error().message.find("70000 brackets are left open"), std::string::npos)
      << unclosed.error().message;
  auto closed = parse(std::string("x = ").append(70000, '(').append("1").append(70000, ')').append("\n"));
  EXPECT_TRUE(closed->truncated());
}

}  // namespace
}  // namespace migrate::parse

namespace migrate::parse {
namespace {

TEST(PythonFacts, NameUsesFollowVariables) {
  auto m = parsePython("a.py", "cap = f()\nx = cap[0]\nif cap >= (8, 0):\n    pass\na, b = cap\ny = cap\n");
  ASSERT_TRUE(m.ok());
  std::vector<sdk::ResultUse> uses;
  for (const auto& u : (*m)->nameUses())
    if (u.name == "cap") uses.push_back(u.use);
  EXPECT_EQ(uses, (std::vector<sdk::ResultUse>{sdk::ResultUse::Subscript, sdk::ResultUse::Compare,
                                               sdk::ResultUse::TupleUnpack}));
}

}  // namespace
}  // namespace migrate::parse

namespace migrate::parse {
namespace {

std::unique_ptr<PythonModule> parsed(const std::string& code) {
  auto m = parsePython("m.py", code);
  EXPECT_TRUE(m.ok());
  return std::move(m.value());
}

TEST(PythonFacts, ASingleStarImportResolvesCalledBareNames) {
  auto m = parsed("from pynvml import *\nnvmlInit()\nprint(len([]))\ndef local():\n    pass\nlocal()\n");
  std::vector<std::string> callees;
  for (const auto& c : m->calls()) callees.push_back(c.callee_resolved);
  EXPECT_EQ(callees, (std::vector<std::string>{"pynvml.nvmlInit", "", "", ""}));
  auto two = parsed("from a import *\nfrom b import *\nf()\n");
  EXPECT_EQ(two->calls()[0].callee_resolved, "");
}

TEST(PythonFacts, TorchThatOnlyAStarImportCanBringIsTorch) {
  // `from pkg.util_module import *`, where util_module imports torch: `torch.cuda…` is torch's.
  auto m = parsed(
      "import torch.utils.checkpoint as checkpoint\n"
      "from rfdiffusion.util_module import *\n"
      "class Track:\n"
      "    @torch.cuda.amp.autocast(enabled=False)\n"
      "    def forward(self, x):\n"
      "        return torch.cuda.synchronize()\n");
  std::vector<std::string> callees;
  for (const auto& c : m->calls()) callees.push_back(c.callee_resolved);
  EXPECT_EQ(callees, (std::vector<std::string>{"torch.cuda.amp.autocast", "torch.cuda.synchronize"}));
  EXPECT_EQ(m->definitions().at(1).decorators, (std::vector<std::string>{"torch.cuda.amp.autocast"}));
  // The references the rules match resolve the same way (`torch.cuda.synchronize()` is reported).
  bool reference = false;
  for (const auto& r : m->references()) reference = reference || r.resolved == "torch.cuda.synchronize";
  EXPECT_TRUE(reference);
  // Without a star import an unbound `torch` stays unresolved; a local `torch` is not torch.
  auto plain = parsed("def f(torch):\n    return torch.cuda.synchronize()\n");
  EXPECT_EQ(plain->calls().at(0).callee_resolved, "");
  auto local = parsed("from util import *\ntorch = Helper()\ntorch.cuda.go()\n");
  EXPECT_EQ(local->calls().at(1).callee_resolved, "");
}

TEST(PythonFacts, OwnSelfAttributesAndStoresAreNotAttributeReads) {
  auto m = parsed(
      "class Loader:\n"
      "    def __init__(self, device):\n"
      "        self.is_cuda = device.type == 'npu'\n"
      "    def run(self, x):\n"
      "        return self.is_cuda and x.is_cuda\n");
  std::vector<std::string> reads;
  for (const auto& a : m->attributes())
    if (a.name == "is_cuda") reads.push_back(a.receiver_written);
  EXPECT_EQ(reads, (std::vector<std::string>{"x"}));
}

TEST(PythonFacts, IteratedResultsAreRecorded) {
  auto m = parsed(
      "import torch\n"
      "a = '.'.join(str(x) for x in torch.cuda.get_device_capability(0))\n"
      "b = list(map(str, torch.cuda.get_device_capability()))\n"
      "for part in torch.cuda.get_device_capability():\n"
      "    pass\n"
      "cap = torch.cuda.get_device_capability()\n"
      "c = sorted(cap)\n");
  std::vector<sdk::ResultUse> uses;
  for (const auto& c : m->calls())
    if (c.callee_resolved == "torch.cuda.get_device_capability") uses.push_back(c.result_use);
  EXPECT_EQ(uses, (std::vector<sdk::ResultUse>{sdk::ResultUse::Iterate, sdk::ResultUse::Iterate,
                                               sdk::ResultUse::Iterate, sdk::ResultUse::None}));
  bool cap_iterated = false;
  for (const auto& u : m->nameUses()) cap_iterated |= u.name == "cap" && u.use == sdk::ResultUse::Iterate;
  EXPECT_TRUE(cap_iterated);
}

TEST(PythonFacts, ReadsInsideMessageFStringsAreNotUsesButCallsAre) {
  auto m = parsed(
      "import torch, logging\n"
      "logging.info(f\"{torch.backends.cuda.matmul.allow_tf32=} {torch.cuda.max_memory_allocated()}\")\n"
      "flag = f\"{torch.backends.cudnn.benchmark}\"\n");
  std::vector<std::string> refs;
  for (const auto& r : m->references())
    if (!r.resolved.empty()) refs.push_back(r.resolved);
  EXPECT_EQ(refs, (std::vector<std::string>{"logging.info", "torch.cuda.max_memory_allocated",
                                            "torch.backends.cudnn.benchmark"}));
}

}  // namespace
}  // namespace migrate::parse

namespace migrate::parse {
namespace {

TEST(PythonFacts, FormattedLogStringsAreMessagesAndReturnsHaveAPosition) {
  auto m = parsePython("m.py",
                       "import logging\n"
                       "logging.info(\"CUDA_VISIBLE_DEVICES = {}\".format(v))\n"
                       "def backend():\n"
                       "    return \"nccl\"\n"
                       "x = \"cuda:{}\".format(rank)\n");
  ASSERT_TRUE(m.ok());
  std::map<std::string, sdk::StringContext> ctx;
  for (const auto& s : (*m)->strings()) ctx[s.value] = s.context;
  EXPECT_EQ(ctx["CUDA_VISIBLE_DEVICES = {}"], sdk::StringContext::Message);
  EXPECT_EQ(ctx["nccl"], sdk::StringContext::Return);
  EXPECT_EQ(ctx["cuda:{}"], sdk::StringContext::Assignment);
}

}  // namespace
}  // namespace migrate::parse

namespace migrate::parse {
namespace {

TEST(PythonFacts, AssignedNamesAreBindingsNotUses) {
  auto m = parsePython("m.py",
                       "try:\n"
                       "    from torch.cuda import empty_cache\n"
                       "except ImportError:\n"
                       "    empty_cache = None\n"
                       "a, synchronize = 1, 2\n"
                       "empty_cache()\n");
  ASSERT_TRUE(m.ok());
  std::vector<std::uint32_t> lines;
  for (const auto& r : (*m)->references())
    if (!r.resolved.empty()) lines.push_back(r.range.line);
  EXPECT_EQ(lines, (std::vector<std::uint32_t>{6}));
}

}  // namespace
}  // namespace migrate::parse
