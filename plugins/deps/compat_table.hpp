#pragma once
/// The dependency compatibility matrix: package → verdict, replacement, note. The data lives in
/// data/compatibility.yaml; tools/gen_compat_table.cpp checks it and generates the table at build
/// time (compat_table.cpp in the build tree).

#include <span>
#include <string>
#include <string_view>
#include "package_name.hpp"

namespace deps {

/// Seed 002's four verdicts.
enum class Verdict { Compatible, NeedsReplacement, Unsupported, NotInvolved };

/// "compatible", "needs replacement", "unsupported", "not involved".
std::string_view verdictName(Verdict v);

/// One distribution name (a package's own name or one of its aliases).
struct PackageEntry {
  std::string_view name;       ///< normalised (PEP 503)
  std::string_view canonical;  ///< the entry's main name (== name unless an alias)
  Verdict verdict;
  std::string_view replacement;
  std::string_view note;
  std::string_view import_rule;  ///< rule reporting imports of its NVIDIA-only modules, or empty
  /// What requirements-npu.txt writes for a package that is not compatible: "keep", the
  /// distribution replacing it, or empty (removed).
  std::string_view npu_requirement;
  std::string_view kit_note;  ///< what the adaptation kit provides in its place, or empty
  /// Installs and runs on an Ascend host (its CPU build): a manifest entry stays as written and is
  /// a row of the dependency matrix, not a finding; its imports carry the findings.
  bool host_installable = false;
};

/// A family of names (`nvidia-*`), tried in order after the exact names.
struct PatternEntry {
  std::string_view glob;
  Verdict verdict;
  std::string_view replacement;
  std::string_view note;
};

/// A torch version that has torch_npu releases.
struct TorchNpuRelease {
  std::string_view torch;   ///< "2.7.1"
  std::string_view latest;  ///< newest known torch_npu package for it, e.g. "2.7.1.post8"
  std::string_view cann;    ///< the CANN version `latest` was released with ("" when unknown)
  bool maintained;
};

/// An NVIDIA-only module and the package providing it.
struct ImportEntry {
  std::string_view module;
  std::string_view package;
  std::string_view rule;
};

/// The torch version the knowledge files (torch_npu's support list of torch.cuda APIs) were
/// checked against: the preferred torch_npu pairing when a specifier allows several.
inline constexpr std::string_view kCheckedTorch = "2.7.1";

/// Generated tables; packages and imports are sorted by name.
std::span<const PackageEntry> packageTable();
std::span<const PatternEntry> patternTable();
std::span<const TorchNpuRelease> torchNpuReleases();
std::span<const ImportEntry> importTable();

/// The result of looking a package up.
struct Lookup {
  const PackageEntry* package = nullptr;  ///< exact or alias match
  const PatternEntry* pattern = nullptr;  ///< family match when no exact one
  bool known() const { return package || pattern; }
  /// Known and unsupported or in need of replacement: a dependency the migration has to change.
  bool flagged() const {
    return known() && (verdict() == Verdict::Unsupported || verdict() == Verdict::NeedsReplacement);
  }
  Verdict verdict() const;
  std::string_view replacement() const;
  std::string_view note() const;
};

/// Looks a (not necessarily normalised) distribution name up.
Lookup lookupPackage(std::string_view name);

/// The repository a direct reference builds from
/// (`git+https://github.com/Dao-AILab/flash-attention.git@v2.6.3#subdirectory=csrc/layer_norm` →
/// `flash-attention`): the path segment after the owner on a forge, without `.git`; "" when the URL names no
/// repository.
std::string sourceRepositoryName(std::string_view url);

/// Looks a requirement up with its extras ("srt,openai"): an entry for `name[extra]` (a profile
/// that pulls CUDA-only packages, `sglang[srt]`) wins over the one for the name alone.
Lookup lookupRequirement(std::string_view name, std::string_view extras);

}  // namespace deps
