// sdk::installGuideScript: an installation guide's shell blocks as a script laid out byte for byte
// like the guide, so positions found in the script are the guide's; sdk::isInstallGuide's names,
// and the Markdown pages that are guides by a heading on setting up (sdk::hasSetupHeading).

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

TEST(InstallGuide, MystDirectivesAreCodeOnlyWhenTheyNameAShell) {
  const std::string guide =
      "```{code-block} bash\n"
      "pip install -e .\n"
      "```\n"
      "```{list-table}\n"
      "* - `GPUS_PER_NODE=8`\n"
      "  - run nvidia-smi on a node\n"
      "```\n"
      "```{code-block} python\n"
      "import torch\n"
      "```\n";
  const std::string script = sdk::installGuideScript(guide);
  EXPECT_NE(script.find("pip install -e ."), std::string::npos);
  EXPECT_EQ(script.find("nvidia-smi"), std::string::npos);
  EXPECT_EQ(script.find("import torch"), std::string::npos);
}

TEST(InstallGuide, NamesOfGuides) {
  for (const char* path :
       {"README.md", "docs/INSTALL.md", "docs/installation.md", "get_started.md", "Setup.md"})
    EXPECT_TRUE(sdk::isInstallGuide(path)) << path;
  for (const char* path : {"README.rst", "docs/usage.md", "install.sh", "README", "notes/readme.txt"})
    EXPECT_FALSE(sdk::isInstallGuide(path)) << path;
}

TEST(InstallGuide, PagesWithASetupHeadingAreGuides) {
  for (const char* page :
       {"# VibeVoice-ASR\n\n## Results\n\n## Installation\nUse the container:\n", "# Demo Setup Guide\n",
        "Getting started\n===============\n", "Text\n\nQuick start\n-----------\n",
        "  ### Set up the server ###\n", "#\tInstalling\n"})
    EXPECT_TRUE(sdk::hasSetupHeading(page)) << page;
  for (const char* page : {"# Results\n\nWe install nothing here.\n",                 // prose, not a heading
                           "# Results\n```bash\n## install flash-attn first\n```\n",  // a comment in a block
                           "~~~\n# Setup\n~~~~\n# Usage\n",     // a heading in a tilde block
                           "# Usage\n\n    ## Installation\n",  // an indented code line
                           "#Installation\n",                   // no blank after the hashes
                           "####### Installation\n",            // seven: not a heading
                           "\n---\n# Usage\n",                  // a rule, not a Setext heading
                           ""})
    EXPECT_FALSE(sdk::hasSetupHeading(page)) << page;
  // Hostile lines: blanks, tabs and carriage returns alone, hashes alone, a fence left open.
  EXPECT_FALSE(sdk::hasSetupHeading(" \t\n\r\n  \r\n#\n######\n=\n-\n```\n# Install\n"));
  EXPECT_FALSE(sdk::hasSetupHeading(std::string(100000, '#')));
  EXPECT_FALSE(sdk::hasSetupHeading(std::string(100000, '\t') + "\n" + std::string(1000, '=')));
}

TEST(InstallGuide, AMarkdownPageIsAGuideByNameOrByHeading) {
  EXPECT_TRUE(sdk::isInstallGuide("docs/vibevoice-asr.md", "# ASR\n## Installation\n"));
  EXPECT_TRUE(sdk::isInstallGuide("README.md", "# Results only\n"));
  EXPECT_FALSE(sdk::isInstallGuide("docs/results.md", "# Results\n"));
  EXPECT_FALSE(sdk::isInstallGuide("install.sh", "## Installation\n"));
  EXPECT_FALSE(sdk::isInstallGuide("docs/notes.rst", "Installation\n============\n"));
  EXPECT_TRUE(sdk::mayBeInstallGuide("docs/Model.MD"));
  EXPECT_FALSE(sdk::mayBeInstallGuide("md"));
  EXPECT_FALSE(sdk::mayBeInstallGuide("docs/.md/run.sh"));
}

}  // namespace
}  // namespace migrate
