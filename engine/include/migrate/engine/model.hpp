#pragma once
/// The MigrationModel: what a run knows. Each stage reads it and adds its own part.

#include <cstdint>
#include <string>
#include <vector>

#include "migrate/engine/plan.hpp"
#include "migrate/engine/workspace.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate {

struct StageRecord {
  std::string name;
  std::string status;  ///< completed | failed | not_available | skipped
  std::string detail;
  double seconds = 0.0;
};

struct PluginRecord {
  std::string name;
  std::string version;
  std::string domain;
  std::size_t rules = 0;
  std::string file;
};

struct InventoryStats {
  std::size_t files = 0;         ///< files selected for analysis
  std::size_t python_files = 0;  ///< of which Python
  std::size_t python_parsed = 0;
  std::uint64_t bytes = 0;
  std::uint64_t python_lines = 0;
  std::size_t skipped = 0;  ///< binary, oversized, escaping symlinks, unreadable
};

struct MigrationModel {
  std::string tool_version;
  std::string pipeline_name;
  std::string pipeline_file;
  std::string started_at;  ///< UTC, ISO 8601
  SourceInfo source;
  std::vector<PluginRecord> plugins;
  InventoryStats inventory;
  std::vector<sdk::Finding> findings;  ///< sorted: file, line, column, rule id
  std::vector<sdk::Diagnostic> diagnostics;
  std::vector<StageRecord> stages;
  std::vector<ModuleSummary> modules;  ///< one per parsed Python file, sorted by path
  PlanResult plan;
};

/// Sorts findings (file, line, column, rule id, end), modules (path) and diagnostics (file, line, code).
void sortModel(MigrationModel& model);

}  // namespace migrate
