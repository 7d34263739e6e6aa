#pragma once
/// Internal to requirements-npu.txt: what one deps finding becomes (requirements_npu_lines.cpp)
/// and the torch / torch_npu block (requirements_npu_torch.cpp).

#include <set>
#include <string>
#include <vector>

#include "migrate/sdk/finding.hpp"
#include "requirements_npu.hpp"

namespace deps::npu {

using migrate::sdk::Finding;

/// A finding's detail, or "".
std::string detail(const Finding& f, const std::string& key);
/// "file:line" of a finding.
std::string at(const Finding& f);
/// The declaration as its file states it, for comments ("torch>=2.1", "cudatoolkit=11.8").
std::string declared(const Finding& f);
/// The version specifier in PEP 440 (poetry's converted); `problem` says why a part had to go.
std::string pep440Spec(const Finding& f, std::string& problem);
/// True for a requirement location that is a local file or directory ("./libs/x"), not a URL:
/// meaningless relative to the kit.
bool isLocalLocation(const std::string& url);

/// What the lines written so far, in the whole file, already say.
struct Written {
  std::set<std::string> active;     ///< requirement and option lines
  std::set<std::string> explained;  ///< packages whose reason or note was given
};

/// One section in the making.
struct SectionLines {
  std::vector<std::string> lines;
  std::vector<std::string> duplicates;  ///< active lines already written above
  std::vector<std::string> conda_kept;  ///< conda packages that stay in the environment
};

/// `text` as wrapped comment lines.
void addComment(std::vector<std::string>& lines, const std::string& text);
/// A package that runs unchanged (DEP-001, DEP-006, DEP-007): copied as declared.
void keepPackage(const Finding& f, SectionLines& out, Written& written);
/// A package the table replaces or removes (DEP-004, DEP-005), by its `npu_requirement`.
void replaceOrRemove(const Finding& f, SectionLines& out, Written& written);
/// A package pinned to a CUDA build (DEP-008, not torch): its CPU / aarch64 build instead.
void withoutCudaBuild(const Finding& f, SectionLines& out, Written& written);
/// A conda package of environment.yml: it stays with conda, or leaves the environment.
void condaPackage(const Finding& f, SectionLines& out);
/// A CUDA package index or channel (DEP-009): the CPU index, or removed.
void cudaIndexOption(const Finding& f, SectionLines& out, Written& written);
/// An index option that is not a CUDA index (a mirror): copied.
void otherIndexOption(const std::string& option, const std::string& url, SectionLines& out, Written& written);

/// The block at the top: torch pinned to the release the first runtime declaration's finding
/// pairs with torch_npu, then that torch_npu (unless the repository declares it, `declared_npu`).
NpuSection torchSection(const std::vector<const Finding*>& torch,
                        const std::vector<const Finding*>& declared_npu);

}  // namespace deps::npu
