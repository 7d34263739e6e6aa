#pragma once
/// verify_junit.xml: the verification's checks as a JUnit XML report, for the CI systems that
/// read one (GitLab, Jenkins, GitHub test reporters). One <testsuite> per stage, one <testcase>
/// per check; only the migration's failures fail (see docs/verify.md, "JUnit XML").

#include <filesystem>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::outputs {

/// Writes `result` as JUnit XML to `file` (atomically): `introduced` → <failure>, `error` →
/// <error>, `pre-existing`, `environment` and `skipped` → <skipped> with the reason; a check
/// without an outcome (no original tree to compare with) by its status.
Status writeVerifyJunit(const VerifyResult& result, const std::filesystem::path& file);

}  // namespace migrate::outputs
