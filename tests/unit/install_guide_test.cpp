// sdk::installGuideScript: an installation guide's shell blocks as a script laid out byte for byte
// like the guide, so positions found in the script are the guide's; sdk::isInstallGuide's names.

#include <gtest/gtest.h>

#include <string>

#include "migrate/sdk/install_guide.hpp"

namespace migrate {
namespace {

TEST(InstallGuide, ShellBlocksKeepTheirPlaceAndEverythingElseIsBlank) {
  const std::string guide =
      "# Install — “quickly”\n"
      "Run `pip install flash-attn` (prose, not a step).\n"
      "```bash\n"
      "$ pip install -e .\n"
      "  cd ops && python setup.py install\n"
      "```\n"
      "```python\n"
      "import torch\n"
      "```\n"
      "~~~\n"
      "pip install xformers\n"
      "~~~\n";
  const std::string script = sdk::installGuideScript(guide);
  ASSERT_EQ(script.size(), guide.size());
  for (std::size_t i = 0; i < guide.size(); ++i)
    if (guide[i] == '\n') {
      EXPECT_EQ(script[i], '\n') << i;
    }
  // The shell lines are where the guide has them; the prompt is blanked, not removed.
  const std::size_t install = guide.find("pip install -e .");
  EXPECT_EQ(script.substr(install, 16), "pip install -e .");
  EXPECT_EQ(script.substr(guide.find("$ pip"), 2), "  ");
  EXPECT_EQ(script.substr(guide.find("  cd ops"), 35), "  cd ops && python setup.py install");
  EXPECT_EQ(script.substr(guide.find("pip install xformers"), 20), "pip install xformers");
  // Prose, fences and other languages are blank.
  EXPECT_EQ(script.find("flash-attn"), std::string::npos);
  EXPECT_EQ(script.find("import torch"), std::string::npos);
  EXPECT_EQ(script.find("```"), std::string::npos);
}

TEST(InstallGuide, CommandsWrittenAsOtherBlocksOrListItemsAreShell) {
  const std::string guide =
      "```python\n"
      "# install the train extras\n"
      "pip install -e .[train]\n"
      "```\n"
      "```python\n"
      "import torch  # code, not commands\n"
      "pip_args = ['install']\n"
      "```\n"
      "## Linux prerequisites\n"
      "\n"
      "    pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu118\n"
      "\n"
      "Then load the model:\n"
      "\n"
      "    model = load('cuda')\n"
      "\n"
      "* pip install -r requirements.txt\n"
      "* install pytorch with CUDA from pytorch.org\n"
      "- git clone https://github.com/Dao-AILab/fast-hadamard-transform.git\n";
  const std::string script = sdk::installGuideScript(guide);
  ASSERT_EQ(script.size(), guide.size());
  auto kept = [&](const std::string& s) { return script.substr(guide.find(s), s.size()) == s; };
  EXPECT_TRUE(kept("pip install -e .[train]"));
  EXPECT_TRUE(kept("pip install --pre torch --index-url"));
  EXPECT_TRUE(kept("pip install -r requirements.txt"));
  EXPECT_TRUE(kept("git clone https://github.com/Dao-AILab"));
  // A block with code in it, an indented block of code, prose items and list markers are blank.
  EXPECT_EQ(script.find("import torch"), std::string::npos);
  EXPECT_EQ(script.find("pip_args"), std::string::npos);
  EXPECT_EQ(script.find("load("), std::string::npos);
  EXPECT_EQ(script.find("with CUDA from"), std::string::npos);
  EXPECT_EQ(script.find('*'), std::string::npos);
  EXPECT_EQ(script.find("- git"), std::string::npos);
}

TEST(InstallGuide, NamesOfGuides) {
  for (const char* path :
       {"README.md", "docs/INSTALL.md", "docs/installation.md", "get_started.md", "Setup.md"})
    EXPECT_TRUE(sdk::isInstallGuide(path)) << path;
  for (const char* path : {"README.rst", "docs/usage.md", "install.sh", "README", "notes/readme.txt"})
    EXPECT_FALSE(sdk::isInstallGuide(path)) << path;
}

}  // namespace
}  // namespace migrate
