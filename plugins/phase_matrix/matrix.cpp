// Step 4: bottlenecks grouped by the dependency they are about, one matrix row per dependency.

#include "matrix.hpp"

#include "finding_phases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "migrate/sdk/verdict.hpp"

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

/// The value of `key` in `details`, or an empty string.
std::string detail(const Finding& f, const char* key) {
  const auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

/// A row while its bottlenecks are collected (in id order).
struct RowBuilder {
  MatrixRow row;
  std::vector<bool> phases;  ///< per phase index
  double replacement_effort = -1.0;
};

int priorityRank(const std::string& priority) {
  return priority == "P0" ? 0 : priority == "P1" ? 1 : 2;
}

}  // namespace

std::string libraryOf(const std::string& api) {
  const std::size_t first = api.find('.');
  if (api.rfind("torch.", 0) == 0) {
    const std::size_t second = api.find('.', first + 1);
    return second == std::string::npos ? api : api.substr(0, second);
  }
  return first == std::string::npos ? api : api.substr(0, first);
}

std::string dependencyKey(const Bottleneck& bottleneck, const std::vector<Finding>& findings) {
  const std::string first_api = bottleneck.apis.empty() ? std::string() : bottleneck.apis.front();
  const Finding* f = nullptr;
  if (!bottleneck.findings.empty() && bottleneck.findings.front() < findings.size())
    f = &findings[bottleneck.findings.front()];
  if (f) {
    const std::string& domain = f->domain.empty() ? bottleneck.domain : f->domain;
    if (domain == "deps") {
      // The import name, so that `flash-attn` in requirements.txt and `flash_attn` in code share a row.
      for (const std::string& key : {detail(*f, "name"), detail(*f, "package")})
        if (!key.empty()) return importName(key);
      if (!f->resolved_api.empty()) return libraryOf(f->resolved_api);
      if (!first_api.empty()) return first_api;
    }
    if (const std::string kernel = detail(*f, "kernel"); !kernel.empty()) return "kernel " + kernel;
    if (const std::string extension = detail(*f, "extension"); !extension.empty())
      return "extension " + extension;
    if (const std::string module = detail(*f, "module"); domain == "custom_ops" && !module.empty())
      return "extension " + module;
    // Only an API resolved through the imports names a library; `q.is_cuda` names a variable.
    if (!f->resolved_api.empty()) return libraryOf(f->resolved_api);
  }
  return bottleneck.title.empty() ? first_api : bottleneck.title;
}

std::string priorityOf(const std::vector<std::size_t>& row_phases, const std::vector<std::size_t>& active) {
  if (!active.empty() && std::includes(row_phases.begin(), row_phases.end(), active.begin(), active.end()))
    return "P0";
  return row_phases.empty() ? "skip" : "P1";
}

std::vector<MatrixRow> buildMatrix(const PlanContext& context, const FindingPhases& finding_phases,
                                   const std::vector<std::size_t>& active) {
  const auto& bottlenecks = context.bottlenecks();
  const auto& findings = context.findings();
  const std::size_t phase_count = context.phases().size();
  std::map<std::string, RowBuilder> rows;
  for (std::size_t index : idOrder(bottlenecks)) {
    const Bottleneck& b = bottlenecks[index];
    const std::string key = dependencyKey(b, findings);
    auto [it, created] = rows.try_emplace(key);
    RowBuilder& builder = it->second;
    if (created) {
      builder.row.dependency = key;
      builder.row.domain = b.domain;
      builder.phases.assign(phase_count, false);
    }
    for (std::size_t f : b.findings)
      if (f < finding_phases.size())
        for (std::size_t p : finding_phases[f])
          if (p < phase_count) builder.phases[p] = true;
    if (effortKey(b.effort_days) > effortKey(builder.replacement_effort)) {  // ties keep the lower id
      builder.replacement_effort = b.effort_days;
      builder.row.replacement = b.npu_alternative;
    }
    builder.row.bottlenecks.push_back(b.id);
    builder.row.effort_days += b.effort_days;
  }
  std::vector<MatrixRow> matrix;
  for (auto& [key, builder] : rows) {
    std::vector<std::size_t> phases;
    for (std::size_t p = 0; p < builder.phases.size(); ++p)
      if (builder.phases[p]) phases.push_back(p);
    builder.row.phases = phaseNames(phases, context.phases());
    builder.row.priority = priorityOf(phases, active);
    builder.row.effort_days = std::round(builder.row.effort_days * 100.0) / 100.0;
    matrix.push_back(std::move(builder.row));
  }
  std::stable_sort(matrix.begin(), matrix.end(), [](const MatrixRow& a, const MatrixRow& b) {
    if (priorityRank(a.priority) != priorityRank(b.priority))
      return priorityRank(a.priority) < priorityRank(b.priority);
    if (effortKey(a.effort_days) != effortKey(b.effort_days))
      return effortKey(a.effort_days) > effortKey(b.effort_days);
    return a.dependency < b.dependency;
  });
  return matrix;
}

}  // namespace phase_matrix
