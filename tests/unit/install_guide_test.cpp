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

TEST(InstallGuide, NamesOfGuides) {
  for (const char* path :
       {"README.md", "docs/INSTALL.md", "docs/installation.md", "get_started.md", "Setup.md"})
    EXPECT_TRUE(sdk::isInstallGuide(path)) << path;
  for (const char* path : {"README.rst", "docs/usage.md", "install.sh", "README", "notes/readme.txt"})
    EXPECT_FALSE(sdk::isInstallGuide(path)) << path;
}

}  // namespace
}  // namespace migrate
