// The text pieces of findings.sarif: SHA-256 (checked against coreutils' sha256sum), URI
// encoding, repository URLs, rule names and SARIF message strings.

#include "report/sarif_text.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace migrate::sarif {
namespace {

using test::TempDir;

TEST(SarifText, Sha256MatchesSha256sumAcrossBlockBoundaries) {
  TempDir dir;
  // Lengths around the 55/56/64-byte padding boundaries, several blocks, bytes of every value.
  for (std::size_t length : {0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000}) {
    std::string data;
    for (std::size_t i = 0; i < length; ++i) data += static_cast<char>((i * 37 + length) % 256);
    test::writeFile(dir / "data", data);
    const auto r = test::run("sha256sum " + test::quote((dir / "data").string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(sha256Hex(data), r.output.substr(0, 64)) << "length " << length;
  }
}

TEST(SarifText, PathsArePercentEncodedSegmentBySegment) {
  EXPECT_EQ(percentEncodePath("src/train.py"), "src/train.py");
  EXPECT_EQ(percentEncodePath("my dir/a b.py"), "my%20dir/a%20b.py");
  EXPECT_EQ(percentEncodePath("\xc3\xa9t\xc3\xa9/\xe6\xa8\xa1\xe5\x9e\x8b.py"),
            "%C3%A9t%C3%A9/%E6%A8%A1%E5%9E%8B.py");
  // Characters that would read as URI syntax: a scheme, a query, a fragment, an escape.
  EXPECT_EQ(percentEncodePath("c:x/a?b#c%d.py"), "c%3Ax/a%3Fb%23c%25d.py");
  EXPECT_EQ(percentEncodePath("a-b_c.d~e"), "a-b_c.d~e");
}

TEST(SarifText, RepositoryUrisLoseCredentialsAndLocalPaths) {
  EXPECT_EQ(repositoryUri("https://github.com/org/repo.git"), "https://github.com/org/repo.git");
  EXPECT_EQ(repositoryUri("https://x-access-token:abc@github.com/org/repo"), "https://github.com/org/repo");
  EXPECT_EQ(repositoryUri("HTTPS://token@host/r"), "https://host/r");
  EXPECT_EQ(repositoryUri("ssh://git@host:2222/r.git"), "ssh://git@host:2222/r.git");
  EXPECT_EQ(repositoryUri("ssh://user:pw@host/r.git"), "ssh://host/r.git");
  EXPECT_EQ(repositoryUri("git@github.com:org/my repo.git"), "ssh://git@github.com/org/my%20repo.git");
  EXPECT_EQ(repositoryUri("/srv/git/repo"), "");
  EXPECT_EQ(repositoryUri("file:///srv/git/repo"), "");
  EXPECT_EQ(repositoryUri("../repo"), "");
  EXPECT_EQ(repositoryUri("C:/repo"), "");  // a drive letter, not a host
}

TEST(SarifText, RuleNamesArePascalCaseTitles) {
  EXPECT_EQ(pascalCase("torch.backends.cudnn flag or query (cuDNN is not used on NPU)"),
            "TorchBackendsCudnnFlagOrQuery");
  EXPECT_EQ(pascalCase("NCCL_SOCKET_IFNAME → HCCL_SOCKET_IFNAME"), "NcclSocketIfnameHcclSocketIfname");
  EXPECT_EQ(pascalCase("bf16 on NPU or an FP unit"), "Bf16OnNpuOrAnFPUnit");  // two capitals stay
  EXPECT_EQ(pascalCase("3D convolution"), "Rule3DConvolution");
  EXPECT_EQ(pascalCase("(only a remark)"), "");
}

TEST(SarifText, MessageStringsDoubleBracesAndTemplatesReadWell) {
  EXPECT_EQ(messageText("f({x: 1}) is {0}"), "f({{x: 1}}) is {{0}}");
  EXPECT_EQ(readableTemplate("{api} has counterpart {npu}.{note}"), "<api> has counterpart <npu>.");
  EXPECT_EQ(readableTemplate("a dict {} and {not closed"), "a dict {} and {not closed");
  EXPECT_EQ(withPeriod("Use it"), "Use it.");
  EXPECT_EQ(withPeriod("Really? "), "Really?");
}

TEST(SarifText, VersionsAndTimestamps) {
  EXPECT_TRUE(isSemanticVersion("0.3.0"));
  EXPECT_TRUE(isSemanticVersion("1.2.3-rc.1+build5"));
  EXPECT_FALSE(isSemanticVersion("1.2"));
  EXPECT_FALSE(isSemanticVersion("1..2"));
  EXPECT_FALSE(isSemanticVersion("v1.2.3"));
  EXPECT_TRUE(isUtcTimestamp("2025-01-31T09:00:00Z"));
  EXPECT_FALSE(isUtcTimestamp("2025-01-31 09:00:00"));
  EXPECT_FALSE(isUtcTimestamp(""));
}

}  // namespace
}  // namespace migrate::sarif
