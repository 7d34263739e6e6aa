// requirements-npu.txt written by the deps plugin's emit hook: the real plugin library analyses a
// repository (the bundled example, or files written by the test), its findings go to a test emit
// context, and the written file is read back line by line with /usr/bin/python3 and `packaging`.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "analyze/analyzer.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/workspace.hpp"
#include "support/emit_test_context.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;

/// One entry of the written file, as python's `packaging` reads it.
struct Entry {
  std::string kind;                                  ///< "req" or "opt"
  std::string name, specifier, extras, marker, url;  ///< for "opt": name = option, url = value
};

/// What one run of the emit hook produced.
struct Emitted {
  std::vector<sdk::Finding> findings;
  bool written = false;
  std::string text;
  std::vector<Entry> entries;
  std::string comments;  ///< every comment line's text, joined with spaces (wrapping undone)

  const Entry* requirement(const std::string& name) const {
    for (const auto& e : entries)
      if (e.kind == "req" && e.name == name) return &e;
    return nullptr;
  }
  std::size_t count(const std::string& name) const {
    return static_cast<std::size_t>(std::count_if(
        entries.begin(), entries.end(), [&](const Entry& e) { return e.kind == "req" && e.name == name; }));
  }
  const Entry* option(const std::string& option) const {
    for (const auto& e : entries)
      if (e.kind == "opt" && e.name == option) return &e;
    return nullptr;
  }
  /// The deps findings of declarations (not Dockerfile installs) for a package.
  std::vector<const sdk::Finding*> declarations(const std::string& package) const {
    std::vector<const sdk::Finding*> out;
    for (const auto& f : findings) {
      auto p = f.details.find("package");
      auto s = f.details.find("source");
      if (p != f.details.end() && p->second == package && s != f.details.end() && s->second != "dockerfile" &&
          s->second != "shell")
        out.push_back(&f);
    }
    return out;
  }
  /// Offset of `line` as a whole line of the file, or npos.
  std::size_t lineAt(const std::string& line) const {
    std::size_t pos = 0;
    while ((pos = text.find(line, pos)) != std::string::npos) {
      const bool starts = pos == 0 || text[pos - 1] == '\n';
      const bool ends = pos + line.size() == text.size() || text[pos + line.size()] == '\n';
      if (starts && ends) return pos;
      ++pos;
    }
    return std::string::npos;
  }
};

std::string detail(const sdk::Finding& f, const std::string& key) {
  auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

class RequirementsNpuTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto loaded = test::ConfiguredPlugin::load("deps");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = loaded->release();
  }
  static void TearDownTestSuite() {
    delete plugin_;
    plugin_ = nullptr;
  }

  /// Analyses `repo` with the deps plugin, runs its emit hook and reads back what it wrote.
  Emitted emit(const fs::path& repo, int jobs = 1) {
    const auto [ws, model] = plugin_->analyze(repo, jobs);
    for (const auto& d : model.diagnostics) EXPECT_NE(d.code, "plugin-error") << d.message;

    const fs::path kit = kits_.path() / std::to_string(++runs_);
    test::TestEmitContext context(kit, repo.filename().string());
    context.mutableFindings() = model.findings;
    for (const auto& f : ws.files()) context.mutableWorkspace().add(f.path, ws.read(f.path).value_or(""));
    plugin_->plugin().emit(context);

    Emitted out;
    out.findings = model.findings;
    EXPECT_LE(context.written.size(), 1u);
    out.written = context.written.count("requirements-npu.txt") > 0;
    if (!out.written) return out;
    EXPECT_FALSE(context.written.at("requirements-npu.txt")) << "requirements-npu.txt is not a script";
    out.text = test::readFile(kit / "requirements-npu.txt");
    std::istringstream lines(out.text);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("#", 0) == 0) out.comments += line.substr(std::min<std::size_t>(line.size(), 2)) + " ";
    // Every line that is not a comment, read by pip's rules and parsed by `packaging`.
    const auto check =
        test::run("/usr/bin/python3 " +
                  test::quote((test::sourceDir() / "plugins/deps/tests/check_requirements.py").string()) +
                  " " + test::quote((kit / "requirements-npu.txt").string()));
    EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << out.text;
    std::istringstream parsed(check.output);
    for (std::string line; std::getline(parsed, line);) {
      std::vector<std::string> cells;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, '\t');) cells.push_back(cell);
      cells.resize(6);
      if (cells[0] == "req") out.entries.push_back({"req", cells[1], cells[2], cells[3], cells[4], cells[5]});
      if (cells[0] == "opt") out.entries.push_back({"opt", cells[1], "", "", "", cells[2]});
    }
    return out;
  }

  /// A repository made of `files` (path → content).
  fs::path repo(const std::map<std::string, std::string>& files) { return repos_.make(files); }

  static test::ConfiguredPlugin* plugin_;
  test::TempDir kits_;
  test::RepositoryMaker repos_;
  int runs_ = 0;
};

test::ConfiguredPlugin* RequirementsNpuTest::plugin_ = nullptr;

/// A removed package: no requirement of that name, and a comment naming it with the finding's reason.
void expectRemoved(const Emitted& e, const std::string& name, const std::string& package) {
  EXPECT_EQ(e.requirement(name), nullptr) << name << " is still required:\n" << e.text;
  EXPECT_NE(e.comments.find("removed " + name), std::string::npos) << name << ":\n" << e.text;
  const auto found = e.declarations(package);
  ASSERT_FALSE(found.empty()) << "no finding for " << package;
  // The finding's replacement; for "remove it (reason)" entries, the reason.
  std::string reason = detail(*found.front(), "replacement");
  if (reason.rfind("remove it (", 0) == 0) reason = reason.substr(11, reason.size() - 12);
  EXPECT_NE(e.comments.find(reason), std::string::npos)
      << name << ": the comment does not give the finding's replacement:\n"
      << e.text;
}

TEST_F(RequirementsNpuTest, BundledExampleAgreesWithTheFindings) {
  const Emitted e = emit(test::sourceDir() / "examples" / "gpt_cuda");
  ASSERT_TRUE(e.written);

  // torch pinned to the release its finding pairs with torch_npu, and that torch_npu added once.
  const auto torch = e.declarations("torch");
  ASSERT_FALSE(torch.empty());
  const std::string paired = detail(*torch.front(), "torch_npu_torch");
  ASSERT_FALSE(paired.empty());
  ASSERT_NE(e.requirement("torch"), nullptr);
  EXPECT_EQ(e.requirement("torch")->specifier, "==" + paired);
  EXPECT_EQ(e.count("torch"), 1u);
  ASSERT_NE(e.requirement("torch_npu"), nullptr);
  EXPECT_EQ("torch_npu" + e.requirement("torch_npu")->specifier, detail(*torch.front(), "torch_npu"));
  EXPECT_NE(e.comments.find("torch_npu==X.Y.Z or X.Y.Z.postN"), std::string::npos) << "the matching rule";

  // NVIDIA-only packages removed, each with the finding's reason; triton replaced.
  expectRemoved(e, "flash-attn", "flash-attn");
  expectRemoved(e, "xformers", "xformers");
  expectRemoved(e, "apex", "apex");
  expectRemoved(e, "pynvml", "nvidia-ml-py");
  expectRemoved(e, "bitsandbytes", "bitsandbytes");
  EXPECT_NE(e.comments.find("npu_ops.py"), std::string::npos)
      << "flash-attn's comment names the kit's wrappers";
  EXPECT_NE(e.comments.find("NF4"), std::string::npos) << "bitsandbytes' limited NF4 path";
  EXPECT_EQ(e.requirement("triton"), nullptr);
  ASSERT_NE(e.requirement("triton-ascend"), nullptr);
  EXPECT_EQ(e.count("triton-ascend"), 1u) << "declared in requirements.txt and setup.py, written once";
  EXPECT_NE(e.comments.find("triton>=2.1.0 → triton-ascend"), std::string::npos);

  // The CUDA wheel index replaced by the one its DEP-009 finding names.
  for (const auto& f : e.findings)
    if (f.rule_id == "DEP-009" && detail(f, "source") == "requirements") {
      const Entry* index = e.option(detail(f, "option"));
      ASSERT_NE(index, nullptr);
      EXPECT_EQ(index->url, detail(f, "replacement"));
    }
  EXPECT_EQ(e.text.find("\n--extra-index-url https://download.pytorch.org/whl/cu"), std::string::npos);

  // Every compatible / not-involved declaration copied with its pins, extras and markers.
  for (const auto& f : e.findings) {
    if (f.rule_id != "DEP-001" && f.rule_id != "DEP-006") continue;
    const Entry* r = e.requirement(detail(f, "name"));
    ASSERT_NE(r, nullptr) << detail(f, "name") << " missing:\n" << e.text;
    EXPECT_EQ(r->specifier, detail(f, "spec"));
    EXPECT_EQ(r->extras, detail(f, "extras"));
  }
  // Runtime first, development last; the header names every declaring file.
  EXPECT_LT(e.lineAt("numpy>=1.24"), e.lineAt("pytest>=7.4"));
  for (const std::string source : {"requirements.txt", "requirements-dev.txt (included by requirements.txt)",
                                   "setup.py install_requires", "setup.py extras_require[kernels]"})
    EXPECT_NE(e.text.find(source), std::string::npos) << source;
  EXPECT_EQ(e.text.find("\n-r "), std::string::npos) << "includes are merged, not referenced";
}

TEST_F(RequirementsNpuTest, HandWrittenRequirementsKeepMarkersAndExtrasAndReplaceCudaBuilds) {
  const Emitted e = emit(repo({
      {"requirements.txt",
       "# Training stack\n"
       "--index-url https://download.pytorch.org/whl/cu118\n"
       "--extra-index-url https://pypi.mirror.example/simple\n"
       "torch==2.1.0+cu118\n"
       "torchvision==0.16.0+cu118 ; platform_machine == \"x86_64\"\n"
       "numpy>=1.24,<2  # arrays\n"
       "transformers[torch,sentencepiece]>=4.40; python_version >= \"3.9\"\n"
       "accelerate \\\n"
       "    >=0.30\n"
       "nvidia-cudnn-cu12==8.9.2.26\n"
       "cupy-cuda12x\n"
       "pycuda\n"
       "cuda-python>=12\n"
       "tensorrt\n"
       "transformer-engine[pytorch]\n"
       "nvidia-dali-cuda120\n"
       "nvidia-ml-py\n"
       "vllm==0.6.3; sys_platform == \"linux\"\n"
       "deepspeed>=0.14\n"
       "triton==2.1.0\n"
       "mystery-package==1.0\n"
       "jax[cuda12]>=0.4\n"
       "rembg[gpu,cli]==2.0.57\n"
       "torch-scatter @ "
       "https://data.pyg.org/whl/torch-2.1.0%2Bcu118/torch_scatter-2.1.2-cp310-cp310-linux_x86_64.whl\n"
       "-e git+https://github.com/example/thing.git#egg=thing\n"
       "./libs/localpkg\n"
       "-r requirements/extra.txt\n"
       "-c constraints.txt\n"},
      {"requirements/extra.txt", "einops>=0.7\nnvidia-nccl-cu12\n"},
      {"requirements-test.txt", "pytest>=8\n"},
      {"constraints.txt", "scipy<1.14\n"},
  }));
  ASSERT_TRUE(e.written);

  // torch: the CUDA local version dropped, the pin kept (torch_npu is built for it).
  const auto torch = e.declarations("torch");
  ASSERT_EQ(torch.size(), 1u);
  ASSERT_NE(e.requirement("torch"), nullptr);
  EXPECT_EQ(e.requirement("torch")->specifier, "==" + detail(*torch.front(), "torch_npu_torch"));
  EXPECT_EQ(detail(*torch.front(), "torch_npu_torch"), "2.1.0")
      << "the release table changed; adapt the test input";
  EXPECT_EQ("torch_npu" + e.requirement("torch_npu")->specifier, detail(*torch.front(), "torch_npu"));
  // Other CUDA builds: local version dropped, marker kept.
  ASSERT_NE(e.requirement("torchvision"), nullptr);
  EXPECT_EQ(e.requirement("torchvision")->specifier, "==0.16.0");
  EXPECT_EQ(e.requirement("torchvision")->marker, "platform_machine == \"x86_64\"");
  EXPECT_NE(e.comments.find("the CUDA build (cu118) is not carried over"), std::string::npos);

  // Index options: the CUDA one to the CPU index, the mirror copied as written.
  ASSERT_NE(e.option("--index-url"), nullptr);
  EXPECT_EQ(e.option("--index-url")->url, "https://download.pytorch.org/whl/cpu");
  EXPECT_NE(e.comments.find("--index-url https://download.pytorch.org/whl/cu118: serves CUDA builds"),
            std::string::npos);
  ASSERT_NE(e.option("--extra-index-url"), nullptr);
  EXPECT_EQ(e.option("--extra-index-url")->url, "https://pypi.mirror.example/simple");

  // Unchanged packages as written: specifiers, extras, markers, continuation lines.
  ASSERT_NE(e.requirement("numpy"), nullptr);
  EXPECT_EQ(e.requirement("numpy")->specifier, "<2,>=1.24");
  ASSERT_NE(e.requirement("transformers"), nullptr);
  EXPECT_EQ(e.requirement("transformers")->extras, "sentencepiece,torch");
  EXPECT_EQ(e.requirement("transformers")->marker, "python_version >= \"3.9\"");
  ASSERT_NE(e.requirement("accelerate"), nullptr);
  EXPECT_EQ(e.requirement("accelerate")->specifier, ">=0.30");
  // CUDA extras and CUDA wheel URLs: the package from the index instead.
  ASSERT_NE(e.requirement("jax"), nullptr);
  EXPECT_EQ(e.requirement("jax")->extras, "");
  EXPECT_EQ(e.requirement("jax")->specifier, ">=0.4");
  ASSERT_NE(e.requirement("rembg"), nullptr) << "the gpu extra is the NVIDIA profile:\n" << e.text;
  EXPECT_EQ(e.requirement("rembg")->extras, "cli");
  EXPECT_EQ(e.requirement("rembg")->specifier, "==2.0.57");
  ASSERT_NE(e.requirement("torch-scatter"), nullptr);
  EXPECT_EQ(e.requirement("torch-scatter")->url, "");
  // An editable VCS requirement stays editable.
  ASSERT_NE(e.option("-e"), nullptr);
  EXPECT_EQ(e.option("-e")->url, "git+https://github.com/example/thing.git#egg=thing");
  // A local path means nothing next to the kit: named in a comment only.
  EXPECT_EQ(e.requirement("localpkg"), nullptr);
  EXPECT_NE(e.comments.find("./libs/localpkg is a local path"), std::string::npos);
  ASSERT_NE(e.requirement("mystery-package"), nullptr);
  EXPECT_NE(e.comments.find("mystery-package: Not in the compatibility table"), std::string::npos);

  // Unsupported packages removed, each with its reason.
  expectRemoved(e, "nvidia-cudnn-cu12", "nvidia-cudnn-cu12");
  expectRemoved(e, "cupy-cuda12x", "cupy");
  expectRemoved(e, "pycuda", "pycuda");
  expectRemoved(e, "cuda-python", "cuda-python");
  expectRemoved(e, "tensorrt", "tensorrt");
  expectRemoved(e, "transformer-engine", "transformer-engine");
  expectRemoved(e, "nvidia-dali-cuda120", "nvidia-dali");
  expectRemoved(e, "nvidia-ml-py", "nvidia-ml-py");
  EXPECT_NE(e.comments.find("npu-smi"), std::string::npos);
  // Replaced and kept ones.
  EXPECT_EQ(e.requirement("vllm"), nullptr);
  ASSERT_NE(e.requirement("vllm-ascend"), nullptr);
  EXPECT_EQ(e.requirement("vllm-ascend")->marker, "sys_platform == \"linux\"");
  ASSERT_NE(e.requirement("triton-ascend"), nullptr);
  ASSERT_NE(e.requirement("deepspeed"), nullptr);
  EXPECT_EQ(e.requirement("deepspeed")->specifier, ">=0.14");
  EXPECT_NE(e.comments.find("deepspeed>=0.14: kept"), std::string::npos);
  EXPECT_NE(e.comments.find("NPU accelerator"), std::string::npos);

  // -r includes merged (their removals too), constraints not merged, test requirements last.
  ASSERT_NE(e.requirement("einops"), nullptr);
  expectRemoved(e, "nvidia-nccl-cu12", "nvidia-nccl-cu12");
  EXPECT_NE(e.text.find("requirements/extra.txt (included by requirements.txt)"), std::string::npos);
  EXPECT_EQ(e.option("-r"), nullptr);
  EXPECT_EQ(e.option("-c"), nullptr);
  EXPECT_EQ(e.requirement("scipy"), nullptr);
  EXPECT_NE(e.text.find("not merged: constraints.txt"), std::string::npos);
  ASSERT_NE(e.requirement("pytest"), nullptr);
  EXPECT_LT(e.lineAt("einops>=0.7"), e.lineAt("pytest>=8"));
  EXPECT_NE(e.text.find("# ==== development and test: requirements-test.txt"), std::string::npos);
}

TEST_F(RequirementsNpuTest, SetupPyPyprojectSetupCfgAndCondaEnvironments) {
  const Emitted e = emit(repo({
      {"setup.py",
       "from setuptools import setup\n"
       "setup(name='demo', install_requires=['torch>=2.1,<2.8', 'safetensors'],\n"
       "      extras_require={'fast': ['flash-attn>=2'], 'dev': ['pytest']})\n"},
      {"pyproject.toml",
       "[tool.poetry]\nname = \"demo-poetry\"\n\n"
       "[tool.poetry.dependencies]\n"
       "python = \"^3.10\"\n"
       "einops = \"^0.7.0\"\n"
       "tqdm = \"~4.66\"\n"
       "rich = \"13.7.1\"\n"
       "xformers = { version = \">=0.0.23\", markers = \"sys_platform == 'linux'\" }\n"},
      {"setup.cfg", "[options]\ninstall_requires =\n    pyyaml>=6\n    cupy-cuda11x\n"},
      {"requirements.txt", "torch>=2.1,<2.4\n"},
      {"environment.yml",
       "name: demo\nchannels: [nvidia, conda-forge]\n"
       "dependencies:\n  - python=3.10\n  - cudatoolkit=11.8\n  - numpy=1.26\n"
       "  - pip:\n    - sentencepiece>=0.1.99\n    - bitsandbytes>=0.41\n"},
  }));
  ASSERT_TRUE(e.written);
  // Poetry constraints in pip's terms.
  ASSERT_NE(e.requirement("einops"), nullptr);
  EXPECT_EQ(e.requirement("einops")->specifier, "<0.8,>=0.7.0");
  ASSERT_NE(e.requirement("tqdm"), nullptr);
  EXPECT_EQ(e.requirement("tqdm")->specifier, "<4.67,>=4.66");
  ASSERT_NE(e.requirement("rich"), nullptr);
  EXPECT_EQ(e.requirement("rich")->specifier, "==13.7.1");
  EXPECT_EQ(e.requirement("python"), nullptr) << "the interpreter is not a package";
  expectRemoved(e, "xformers", "xformers");
  // setup.py and setup.cfg.
  ASSERT_NE(e.requirement("safetensors"), nullptr);
  ASSERT_NE(e.requirement("pyyaml"), nullptr);
  EXPECT_EQ(e.requirement("pyyaml")->specifier, ">=6");
  expectRemoved(e, "cupy-cuda11x", "cupy");
  expectRemoved(e, "flash-attn", "flash-attn");
  EXPECT_NE(e.text.find("# ==== optional 'fast': setup.py extras_require[fast]"), std::string::npos);
  EXPECT_LT(e.lineAt("safetensors"), e.lineAt("pytest"));
  // torch declared twice with ranges that pair differently: the first runtime declaration's
  // pairing (requirements.txt comes before setup.py), the other one named in the comment.
  const auto torch = e.declarations("torch");
  ASSERT_EQ(torch.size(), 2u);
  ASSERT_EQ(torch.front()->file, "requirements.txt");
  const std::string other = detail(*torch.back(), "torch_npu_torch");
  ASSERT_NE(detail(*torch.front(), "torch_npu_torch"), other) << "the test needs two different pairings";
  EXPECT_EQ(e.count("torch"), 1u);
  EXPECT_EQ(e.requirement("torch")->specifier, "==" + detail(*torch.front(), "torch_npu_torch"));
  EXPECT_NE(e.comments.find("Other declarations pair with torch " + other + " (setup.py:2)"),
            std::string::npos)
      << e.text;
  // conda: the pip list installed, conda packages named in comments.
  ASSERT_NE(e.requirement("sentencepiece"), nullptr);
  expectRemoved(e, "bitsandbytes", "bitsandbytes");
  const auto cudatoolkit = e.comments.find("conda package cudatoolkit=11.8 (unsupported)");
  ASSERT_NE(cudatoolkit, std::string::npos) << e.text;
  EXPECT_NE(e.comments.find("Remove it from the conda environment.", cudatoolkit), std::string::npos);
  EXPECT_NE(e.comments.find("numpy=1.26"), std::string::npos);
  EXPECT_EQ(e.requirement("numpy"), nullptr) << "conda packages are not pip requirements";
  EXPECT_NE(e.comments.find("removed conda channel nvidia"), std::string::npos) << e.text;
}

TEST_F(RequirementsNpuTest, AProfileThatPullsCudaKernelsIsReplacedAndThePackageAloneIsNot) {
  // sglang[srt] / sglang[all] install sgl-kernel and flashinfer (CUDA); sglang alone is the
  // frontend. The extras decide the verdict (`name[extra]` entries of the table).
  const Emitted e = emit(repo({
      {"requirements.txt", "sglang[openai,srt]==0.5.6\nsglang>=0.4\n"},
      {"pyproject.toml",
       "[project]\nname = \"demo\"\nversion = \"0.1\"\ndependencies = []\n\n"
       "[project.optional-dependencies]\nserve = [\"sglang[all]; platform_system == 'Linux'\"]\n"},
  }));
  ASSERT_TRUE(e.written);
  const auto srt = e.declarations("sglang[srt]");
  ASSERT_EQ(srt.size(), 2u) << "sglang[all] is an alias of the same entry";
  for (const sdk::Finding* f : srt) {
    EXPECT_EQ(detail(*f, "verdict"), "needs replacement");
    EXPECT_NE(detail(*f, "replacement").find("srt_npu"), std::string::npos);
  }
  EXPECT_NE(e.comments.find("removed sglang[openai,srt]==0.5.6"), std::string::npos) << e.text;
  EXPECT_TRUE(e.declarations("sglang").empty() ||
              detail(*e.declarations("sglang").front(), "verdict") != "needs replacement");
  ASSERT_NE(e.requirement("sglang"), nullptr) << "the frontend alone stays:\n" << e.text;
  EXPECT_EQ(e.requirement("sglang")->specifier, ">=0.4");
}

TEST_F(RequirementsNpuTest, DeclaredTorchNpuIsNotAddedTwiceAndMissingTorchIsExplained) {
  const Emitted declared = emit(repo({{"requirements.txt", "torch==2.1.0\ntorch-npu==2.1.0.post17\n"}}));
  ASSERT_TRUE(declared.written);
  EXPECT_EQ(declared.count("torch-npu") + declared.count("torch_npu"), 1u) << declared.text;
  EXPECT_EQ(declared.requirement("torch")->specifier, "==2.1.0");

  const Emitted without = emit(repo({{"requirements.txt", "numpy\n"}}));
  ASSERT_TRUE(without.written);
  EXPECT_EQ(without.requirement("torch"), nullptr);
  EXPECT_EQ(without.requirement("torch_npu"), nullptr) << "no torch_npu pin without a torch version to match";
  EXPECT_NE(without.comments.find("torch is not declared by the repository"), std::string::npos);
}

TEST_F(RequirementsNpuTest, CogsPythonPackagesAreDeclarationsAndABrokenCogYamlIsADiagnostic) {
  const Emitted cog = emit(repo({{"cog.yaml",
                                  "build:\n  gpu: true\n  cuda: \"11.8\"\n  python_packages:\n"
                                  "    - \"torch==2.1.0\"\n    - \"xformers==0.0.22\"\n"
                                  "predict: \"predict.py:Predictor\"\n"}}));
  ASSERT_TRUE(cog.written);
  EXPECT_EQ(cog.requirement("torch")->specifier, "==2.1.0") << cog.text;
  expectRemoved(cog, "xformers", "xformers");
  std::size_t images = 0;
  for (const auto& f : cog.findings)
    if (f.rule_id == "DEP-010" && detail(f, "source") == "cog") ++images;
  EXPECT_EQ(images, 2u) << "gpu: true and cuda: each name the nvidia/cuda base";
  // build.run steps are shell lines of the image build, as strings or {command: …}.
  const auto [run_ws, run_model] =
      plugin_->analyze(repo({{"demo/cog.yaml",
                              "build:\n  gpu: true\n  run:\n    - pip install detectron2 -f "
                              "https://dl.fbaipublicfiles.com/detectron2/wheels/cu101/torch1.8/index.html\n"
                              "    - command: \"pip install flash-attn==2.5.8\"\n"}}),
                       1);
  std::vector<std::pair<std::string, std::uint32_t>> steps;
  for (const auto& f : run_model.findings)
    if (f.rule_id == "DEP-009" || f.rule_id == "DEP-004") steps.emplace_back(f.rule_id, f.range.line);
  EXPECT_EQ(steps, (std::vector<std::pair<std::string, std::uint32_t>>{{"DEP-009", 4}, {"DEP-004", 5}}));
  // A file that opens with a Python docstring is a single scalar to yaml-cpp; Cog refuses it.
  const auto [doc_ws, doc_model] =
      plugin_->analyze(repo({{"cog.yaml", "\"\"\"\ndemo\n\"\"\"\n\nbuild:\n  gpu: true\n"}}), 1);
  EXPECT_TRUE(std::any_of(doc_model.diagnostics.begin(), doc_model.diagnostics.end(), [](const auto& d) {
    return d.code == "cog-config-unreadable" && d.message.find("not a mapping") != std::string::npos;
  }));

  const auto [ws, model] = plugin_->analyze(repo({{"cog.yaml", "build:\n  gpu: [true\n"}}), 1);
  const bool diagnosed = std::any_of(model.diagnostics.begin(), model.diagnostics.end(), [](const auto& d) {
    return d.code == "cog-config-unreadable" && d.file == "cog.yaml" &&
           d.message.find("not read as a Cog configuration") != std::string::npos;
  });
  EXPECT_TRUE(diagnosed);
}

TEST_F(RequirementsNpuTest, NothingIsWrittenWithoutPythonDependencies) {
  const Emitted none = emit(repo({
      {"train.py", "import torch\nimport flash_attn\nprint(torch.cuda.is_available())\n"},
      {"Dockerfile", "FROM nvidia/cuda:12.1.1-devel-ubuntu22.04\nRUN pip install torch flash-attn\n"},
      {"scripts/setup.sh", "pip install triton\n"},
      {"INSTALL.md", "# Install\n```bash\npip install xformers==0.0.27\n```\n"},
      {"constraints.txt", "numpy<2\n"},
  }));
  const bool from_guide = std::any_of(none.findings.begin(), none.findings.end(), [](const sdk::Finding& f) {
    return f.file == "INSTALL.md" && f.range.line == 3;
  });
  EXPECT_TRUE(from_guide) << "the install guide's shell block is read";
  EXPECT_FALSE(none.findings.empty()) << "the repository has findings, none of them declarations";
  EXPECT_FALSE(none.written);
}

TEST_F(RequirementsNpuTest, OutputIsDeterministic) {
  const fs::path example = test::sourceDir() / "examples" / "gpt_cuda";
  const Emitted first = emit(example, 1);
  const Emitted second = emit(example, 2);
  ASSERT_TRUE(first.written);
  EXPECT_EQ(first.text, second.text);
}

}  // namespace
}  // namespace migrate
