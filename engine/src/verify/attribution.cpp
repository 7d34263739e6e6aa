#include "verify/attribution.hpp"

#include <git2.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "acquire/git_session.hpp"
#include "verify/outcomes.hpp"

namespace migrate::verify {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::optional<std::string> readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) {
      lines.push_back(text.substr(at));
      break;
    }
    lines.push_back(text.substr(at, end - at + 1));
    at = end + 1;
  }
  return lines;
}

int hunkCallback(const git_diff_delta*, const git_diff_hunk* hunk, void* payload) {
  static_cast<std::vector<Hunk>*>(payload)->push_back(
      {hunk->old_start, hunk->old_lines, hunk->new_start, hunk->new_lines});
  return 0;
}

/// A changed file of the adaptation and its hunks.
struct ChangedFile {
  std::string path;
  std::string before, after;
  std::vector<Hunk> hunks;
};

/// The findings whose edits the hunk holds: on the hunk's original lines (an insertion: the line
/// it follows), of the same file.
std::vector<std::string> findingsOf(const std::vector<EditedFinding>& findings, const std::string& path,
                                    const Hunk& h) {
  const int first = h.old_lines ? h.old_start : std::max(1, h.old_start);
  const int last = h.old_lines ? h.old_start + h.old_lines - 1 : first;
  std::vector<std::string> out;
  for (const EditedFinding& f : findings)
    if (f.file == path && f.line >= first && f.line <= last)
      out.push_back(f.rule_id + " at " + path + ":" + std::to_string(f.line));
  if (out.empty())
    out.push_back("an edit without a finding (e.g. the npu_compat import) at " + path + ":" +
                  std::to_string(first));
  return out;
}

}  // namespace

std::vector<Hunk> lineHunks(const std::string& before, const std::string& after) {
  git::Session session;
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = 0;
  std::vector<Hunk> hunks;
  git_diff_buffers(before.data(), before.size(), nullptr, after.data(), after.size(), nullptr, &options,
                   nullptr, nullptr, hunkCallback, nullptr, &hunks);
  return hunks;
}

std::string applyHunks(const std::string& before, const std::string& after, const std::vector<Hunk>& hunks,
                       const std::vector<std::size_t>& chosen) {
  const std::vector<std::string> old_lines = splitLines(before), new_lines = splitLines(after);
  std::set<std::size_t> use(chosen.begin(), chosen.end());
  std::string out;
  int next = 1;  // the next old line to copy
  for (std::size_t i = 0; i < hunks.size(); ++i) {
    const Hunk& h = hunks[i];
    // An insertion (old_lines 0) comes after line old_start; a change replaces its old lines.
    const int until = h.old_lines ? h.old_start - 1 : h.old_start;
    for (; next <= until && next <= static_cast<int>(old_lines.size()); ++next) out += old_lines[next - 1];
    if (use.count(i)) {
      for (int n = 0; n < h.new_lines; ++n)
        if (h.new_start - 1 + n < static_cast<int>(new_lines.size())) out += new_lines[h.new_start - 1 + n];
      next = h.old_lines ? h.old_start + h.old_lines : next;
    }
  }
  for (; next <= static_cast<int>(old_lines.size()); ++next) out += old_lines[next - 1];
  return out;
}

std::vector<std::size_t> minimalFailingSet(
    std::size_t items, const std::function<std::optional<bool>(const std::vector<std::size_t>&)>& fails,
    bool& complete) {
  complete = true;
  std::vector<std::size_t> current(items);
  for (std::size_t i = 0; i < items; ++i) current[i] = i;
  std::size_t n = 2;
  while (current.size() >= 2) {
    std::vector<std::vector<std::size_t>> chunks(std::min(n, current.size()));
    for (std::size_t i = 0; i < current.size(); ++i)
      chunks[i * chunks.size() / current.size()].push_back(current[i]);
    bool reduced = false;
    for (const auto& chunk : chunks) {
      const auto r = fails(chunk);
      if (!r) {
        complete = false;
        return current;
      }
      if (*r) {
        current = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && chunks.size() > 2) {
      for (const auto& chunk : chunks) {
        std::vector<std::size_t> rest;
        std::set_difference(current.begin(), current.end(), chunk.begin(), chunk.end(),
                            std::back_inserter(rest));
        const auto r = fails(rest);
        if (!r) {
          complete = false;
          return current;
        }
        if (*r) {
          current = rest;
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (n >= current.size()) break;
    n = std::min(n * 2, current.size());
  }
  return current;
}

void attributeIntroduced(std::vector<CheckResult>& checks, const AttributionInputs& in) {
  if (in.max_reruns <= 0 || !in.run_check) return;
  // The adaptation's changed files (new files — the kit's modules — are in every trial).
  std::vector<ChangedFile> changed;
  std::vector<TrialFile> added;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(in.adapted, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = fs::relative(it->path(), in.adapted).generic_string();
    const auto before = readText(in.original / rel);
    if (!before) {
      added.push_back({rel, std::nullopt});
      continue;
    }
    auto after = readText(it->path());
    if (after && *after != *before) changed.push_back({rel, *before, *after, lineHunks(*before, *after)});
  }
  std::sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  const auto deadline = Clock::now() + in.budget;
  for (CheckResult& c : checks) {
    if (c.outcome != "introduced" || c.reused || c.reference_status.empty() || changed.empty()) continue;
    if (c.stage != "imports" && c.check.rfind("test:", 0) != 0) continue;
    int reruns = 0;
    std::string stopped;
    const std::string failure = errorClass(c.detail + "\n" + c.output);
    // Whether the check still fails on a trial tree; nullopt when the budget is spent.
    auto trial = [&](const std::vector<TrialFile>& files) -> std::optional<bool> {
      if (reruns >= in.max_reruns) {
        stopped = "after " + std::to_string(reruns) + " re-runs (verify.attribution.max_reruns)";
        return std::nullopt;
      }
      if (Clock::now() >= deadline) {
        stopped = "when verify.attribution.timeout was used up";
        return std::nullopt;
      }
      ++reruns;
      std::vector<TrialFile> all = added;
      all.insert(all.end(), files.begin(), files.end());
      const std::optional<CheckResult> t = in.run_check(c.stage, c.check, all);
      if (!t) {
        stopped = "because a trial could not run";
        return std::nullopt;
      }
      // Still failing means failing the same way: a part of the adaptation without the rest can
      // fail for another reason (a use of npu_compat without its import), which is no answer.
      return (t->status == "failed" || t->status == "error") &&
             errorClass(t->detail + "\n" + t->output) == failure;
    };
    // The whole adaptation on a trial tree first: the failure must show there to be narrowed.
    std::vector<TrialFile> whole;
    for (const ChangedFile& f : changed) whole.push_back({f.path, std::nullopt});
    if (const auto reproduced = trial(whole); !reproduced || !*reproduced) {
      c.attribution = reproduced ? "not narrowed: the check passes on a trial tree with the whole adaptation"
                                 : "not narrowed: stopped " + stopped;
      continue;
    }
    // Files first, then the hunks of the files that matter.
    bool complete = true;
    const auto files = minimalFailingSet(
        changed.size(),
        [&](const std::vector<std::size_t>& chosen) {
          std::vector<TrialFile> tf;
          for (std::size_t i : chosen) tf.push_back({changed[i].path, std::nullopt});
          return trial(tf);
        },
        complete);
    std::vector<std::pair<std::size_t, std::size_t>> items;  // (file, hunk)
    for (std::size_t f : files)
      for (std::size_t h = 0; h < changed[f].hunks.size(); ++h) items.emplace_back(f, h);
    std::vector<std::size_t> hunks(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) hunks[i] = i;
    if (complete && items.size() > 1)
      hunks = minimalFailingSet(
          items.size(),
          [&](const std::vector<std::size_t>& chosen) {
            std::map<std::size_t, std::vector<std::size_t>> per_file;
            for (std::size_t i : chosen) per_file[items[i].first].push_back(items[i].second);
            std::vector<TrialFile> tf;
            for (std::size_t f : files) {
              const ChangedFile& cf = changed[f];
              tf.push_back({cf.path, applyHunks(cf.before, cf.after, cf.hunks, per_file[f])});
            }
            return trial(tf);
          },
          complete);
    std::set<std::string> named;
    for (std::size_t i : hunks) {
      const auto& [f, h] = items[i];
      for (std::string& s : findingsOf(in.findings, changed[f].path, changed[f].hunks[h])) named.insert(s);
    }
    c.broken_by.assign(named.begin(), named.end());
    c.attribution = (complete ? "found in " : "stopped early " + stopped + "; narrowed in ") +
                    std::to_string(reruns) + " re-runs of the check on trial trees";
  }
}

}  // namespace migrate::verify
