#pragma once
/// A finding's identity across runs: the fingerprint findings.sarif carries in
/// partialFingerprints ("migratePipeline/v1") and the fleet stores per night to tell new, fixed
/// and persisting findings apart. It does not depend on the finding's line: rule, file, the API
/// as written and as resolved, and the occurrence among the findings with the same four before it.

#include <string>
#include <vector>

#include "migrate/sdk/finding.hpp"

namespace migrate::sarif {

/// The key partialFingerprints files the fingerprint under.
inline constexpr const char* kFingerprintKey = "migratePipeline/v1";

/// One fingerprint per finding (32 hex digits), in the findings' order.
std::vector<std::string> findingFingerprints(const std::vector<sdk::Finding>& findings);

}  // namespace migrate::sarif
