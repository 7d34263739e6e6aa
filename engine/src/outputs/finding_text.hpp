#pragma once
/// One finding as findings.json writes it: as a JSON value (the definition) and as text written
/// directly (what the writer uses: a findings.json has tens of thousands of findings, and building
/// a JSON value for each cost more than the rest of an unchanged re-run's analysis).

#include <nlohmann/json.hpp>
#include <string>

#include "migrate/sdk/finding.hpp"

namespace migrate::outputs {

/// The finding as a JSON object, members in findings.json's order.
nlohmann::ordered_json findingJson(const sdk::Finding& f);

/// Appends exactly what writeIndented(out, findingJson(f), "    ") writes.
void appendFindingText(std::string& out, const sdk::Finding& f);

}  // namespace migrate::outputs
