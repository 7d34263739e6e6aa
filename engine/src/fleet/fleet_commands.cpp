// `migrate-pipeline fleet status | history | diff | report | merge`: reading and combining fleet stores.

#include <iostream>
#include <set>

#include "fleet/dashboard.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/fleet_spec.hpp"
#include "fleet/fleet_store.hpp"
#include "fleet/fleet_tables.hpp"
#include "fleet/night_diff.hpp"
#include "migrate/engine/fleet.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"
#include "time/utc_time.hpp"

namespace migrate {
namespace fs = std::filesystem;
using namespace fleet;

namespace {

/// The store of an existing fleet directory; the error printed when there is none.
std::optional<Store> openExisting(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "fleet.db", ec)) {
    std::cerr << "error: " << dir.string()
              << " has no fleet.db: give the --output directory of a `migrate-pipeline fleet run`\n";
    return std::nullopt;
  }
  auto store = Store::open(dir / "fleet.db");
  if (!store) {
    std::cerr << "error: " << store.error().message << "\n";
    return std::nullopt;
  }
  return std::move(store.value());
}

/// The manifest's repositories without a row in night `label` recorded as failed (their shard's
/// task died, was cancelled or never started); the night is then complete.
Status recordMissing(Store& store, const FleetSpec& fleet, const fs::path& manifest,
                     const std::string& label) {
  auto found = store.nightByLabel(label);
  if (!found) return found.error();
  std::optional<Night> night = found.value();
  if (!night) {
    auto begun = store.beginNight(label, utcNow(), "", sdk::kSdkVersion, manifest.string());
    if (!begun) return begun.error();
    night = begun.value();
  }
  auto rows = store.runs(night->id);
  if (!rows) return rows.error();
  std::set<std::string> recorded;
  for (const RepoRun& r : rows.value()) recorded.insert(r.name);
  for (const RepoSpec& repo : fleet.repos) {
    if (recorded.count(repo.name)) continue;
    RepoRun run;
    run.name = repo.name;
    run.source = repo.source;
    run.ref = repo.ref;
    run.status = "failed";
    run.reason =
        "no result: the shard running it recorded none (its task died, was cancelled or did not start)";
    run.started_at = run.finished_at = utcNow();
    if (auto st = store.recordRun(night->id, run); !st) return st;
    std::cerr << "fleet: " << repo.name << ": " << run.reason << "\n";
  }
  return store.setNightState(night->id, "completed", utcNow());
}

}  // namespace

int fleetStatus(const fs::path& dir, std::int64_t id, const std::string& format) {
  auto store = openExisting(dir);
  if (!store) return kExitFleetStore;
  auto night = id ? store->night(id) : store->latestNight();
  if (!night) {
    std::cerr << "error: " << night.error().message << "\n";
    return kExitFleetStore;
  }
  if (!night.value()) {
    std::cerr << "error: " << (id ? "no night " + std::to_string(id) + " in " : "no night yet in ")
              << (dir / "fleet.db").string() << " (`migrate-pipeline fleet history " << dir.string()
              << "` lists the nights)\n";
    return kExitUsage;
  }
  auto runs = store->runs(night.value()->id);
  if (!runs) {
    std::cerr << "error: " << runs.error().message << "\n";
    return kExitFleetStore;
  }
  std::cout << formatStatus(*night.value(), runs.value(), format, fs::absolute(dir).lexically_normal());
  return kExitOk;
}

int fleetReport(const fs::path& dir, const std::string& label, const std::string& format) {
  auto store = openExisting(dir);
  if (!store) return kExitFleetStore;
  auto night = label.empty() ? store->latestNight() : store->nightByLabel(label);
  if (!night) {
    std::cerr << "error: " << night.error().message << "\n";
    return kExitFleetStore;
  }
  if (!night.value()) {
    std::cerr << "error: " << (label.empty() ? std::string("no night yet") : "no night '" + label + "'")
              << " in " << (dir / "fleet.db").string() << "; `migrate-pipeline fleet history " << dir.string()
              << "` lists the nights\n";
    return kExitUsage;
  }
  auto report = buildReport(store.value(), *night.value());
  if (!report) {
    std::cerr << "error: " << report.error().message << "\n";
    return kExitFleetStore;
  }
  std::cout << formatReport(report.value(), format);
  return kExitOk;
}

int fleetDiff(const fs::path& dir, const std::string& from, const std::string& to, const std::string& repo,
              const std::string& format) {
  auto store = openExisting(dir);
  if (!store) return kExitFleetStore;
  auto nights = store->nights();
  if (!nights) {
    std::cerr << "error: " << nights.error().message << "\n";
    return kExitFleetStore;
  }
  auto find = [&](const std::string& label) -> const Night* {
    for (const Night& n : nights.value())
      if (n.label == label) return &n;
    return nullptr;
  };
  const Night* later = to.empty() ? (nights->empty() ? nullptr : &nights->back()) : find(to);
  const Night* earlier = nullptr;
  if (!from.empty()) {
    earlier = find(from);
  } else if (later) {
    for (const Night& n : nights.value())
      if (n.id < later->id) earlier = &n;
  }
  for (const auto& [night, label, flag] :
       {std::tuple{later, to, "--to"}, std::tuple{earlier, from, "--from"}})
    if (!night) {
      std::cerr << "error: "
                << (label.empty()
                        ? std::string("the store has no night to compare with (two nights at least)")
                        : std::string("no night '") + label + "' (" + flag + ")")
                << " in " << (dir / "fleet.db").string() << "; `migrate-pipeline fleet history "
                << dir.string() << "` lists the nights\n";
      return kExitUsage;
    }
  auto diff = diffNights(store.value(), *earlier, *later, repo.empty() ? std::nullopt : std::optional(repo));
  if (!diff) {
    std::cerr << "error: " << diff.error().message << "\n";
    return kExitFleetStore;
  }
  if (!repo.empty() && diff->repos.empty()) {
    std::cerr << "error: no repository '" << repo << "' in night " << earlier->label << " or " << later->label
              << "\n";
    return kExitUsage;
  }
  std::cout << formatDiff(diff.value(), format);
  return kExitOk;
}

int fleetHistory(const fs::path& dir, const std::string& format) {
  auto store = openExisting(dir);
  if (!store) return kExitFleetStore;
  auto history = store->history();
  if (!history) {
    std::cerr << "error: " << history.error().message << "\n";
    return kExitFleetStore;
  }
  std::cout << formatHistory(history.value(), format);
  return kExitOk;
}

int fleetMerge(const fs::path& output, const std::vector<fs::path>& shards, const fs::path& manifest,
               const std::string& night_label) {
  const fs::path target = fs::absolute(output).lexically_normal();
  std::optional<FleetSpec> fleet;
  if (!manifest.empty()) {
    auto loaded = loadFleet(manifest);
    if (!loaded) {
      std::cerr << "error: " << loaded.error().message << "\n";
      return kExitUsage;
    }
    if (night_label.empty()) {
      std::cerr << "error: fleet merge --manifest needs --night LABEL: the night whose missing repositories "
                   "to record\n";
      return kExitUsage;
    }
    fleet = std::move(loaded.value());
  }
  std::error_code ec;
  fs::create_directories(target, ec);
  if (ec) {
    std::cerr << "error: cannot create " << target.string() << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  auto store = Store::open(target / "fleet.db");
  if (!store) {
    std::cerr << "error: " << store.error().message << "\n";
    return kExitFleetStore;
  }
  for (const fs::path& shard_dir : shards) {
    const fs::path from = fs::absolute(shard_dir).lexically_normal();
    if (from == target) continue;  // merging a store into itself changes nothing
    if (fleet && !fs::is_regular_file(from / "fleet.db", ec)) {  // a task that never started
      std::cerr << "warning: " << from.string()
                << " has no fleet.db: its repositories are recorded as failed\n";
      continue;
    }
    auto shard = openExisting(from);
    if (!shard) return kExitFleetStore;
    const auto rebase = [&](const std::string& rel) {
      return rel.empty() ? rel : (from / rel).lexically_normal().lexically_relative(target).generic_string();
    };
    if (auto st = store->mergeFrom(*shard, rebase); !st) {
      std::cerr << "error: merging " << from.string() << ": " << st.error().message << "\n";
      return kExitFleetStore;
    }
    std::cerr << "fleet: merged " << (from / "fleet.db").string() << "\n";
  }
  if (fleet) {
    if (auto st = recordMissing(*store, *fleet, manifest, night_label); !st) {
      std::cerr << "error: " << st.error().message << "\n";
      return kExitFleetStore;
    }
  }
  std::cerr << "fleet: " << (target / "fleet.db").string() << " holds the merged nights\n";
  if (auto st = writeDashboard(*store, target); !st)
    std::cerr << "warning: the dashboard was not written: " << st.error().message << "\n";
  return kExitOk;
}

int fleetDashboard(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cerr << "error: " << dir.string()
              << " is not a directory: give the --output directory of a `fleet run`\n";
    return kExitUsage;
  }
  Status written = Ok{};
  if (!fs::is_regular_file(dir / "fleet.db", ec)) {
    written = writeDashboardProblem(
        dir, (dir / "fleet.db").string() + " does not exist: no night has run here yet");
  } else if (auto store = Store::open(dir / "fleet.db"); !store) {
    std::cerr << "warning: " << store.error().message << "\n";
    written = writeDashboardProblem(dir, store.error().message);
  } else {
    written = writeDashboard(store.value(), dir);
  }
  if (!written) {
    std::cerr << "error: " << written.error().message << "\n";
    return kExitFleetStore;
  }
  std::cerr << "fleet: wrote " << (dir / "index.html").string() << "\n";
  return kExitOk;
}

}  // namespace migrate
