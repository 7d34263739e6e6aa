// The torch / torch_npu block at the top of requirements-npu.txt: torch pinned to a release
// torch_npu is built for, and that torch_npu (see requirements_npu_lines.hpp).

#include <algorithm>

#include "compat_table.hpp"
#include "requirement.hpp"
#include "requirement_text.hpp"
#include "requirements_npu_lines.hpp"

namespace deps::npu {

NpuSection torchSection(const std::vector<const Finding*>& torch,
                        const std::vector<const Finding*>& declared_npu) {
  NpuSection s;
  s.title = "PyTorch and its Ascend adapter, torch_npu";
  const std::string torch_note(lookupPackage("torch").note());
  if (torch.empty()) {
    const TorchNpuRelease* checked = nullptr;
    for (const auto& r : torchNpuReleases())
      if (r.torch == kCheckedTorch) checked = &r;
    addComment(s.lines,
               "torch is not declared by the repository: install torch together with the torch_npu built "
               "for it. " +
                   torch_note +
                   (checked ? " For example torch==" + std::string(checked->torch) +
                                  " with torch_npu==" + std::string(checked->latest) + "."
                            : std::string()));
    return s;
  }
  const Finding* chosen = torch.front();
  for (const Finding* f : torch)
    if (detail(*f, "ecosystem") != "conda") {
      chosen = f;
      break;
    }
  // Every declaration, identical ones together: "torch>=2.1 (requirements.txt:3, setup.py:56)".
  std::vector<std::pair<std::string, std::string>> forms;
  for (const Finding* f : torch) {
    const std::string form = declared(*f);
    auto it = std::find_if(forms.begin(), forms.end(), [&](const auto& p) { return p.first == form; });
    if (it == forms.end()) {
      forms.emplace_back(form, at(*f));
    } else {
      it->second += ", " + at(*f);
    }
  }
  std::string as_declared;
  for (const auto& [form, where] : forms)
    as_declared += (as_declared.empty() ? "" : "; ") + form + " (" + where + ")";

  const std::string pair = detail(*chosen, "torch_npu_torch"), npu = detail(*chosen, "torch_npu");
  const bool conda = detail(*chosen, "ecosystem") == "conda";
  const std::string marker = conda ? "" : detail(*chosen, "marker");
  std::string problem;
  const std::string spec =
      conda ? detail(*chosen, "spec") : withoutLocalVersion(pep440Spec(*chosen, problem));
  std::string line, why;
  const auto pin = conda ? std::nullopt : exactPin(spec, SpecDialect::Pep440);
  const auto pinned = pin ? parseVersion(*pin) : std::nullopt;
  const auto paired = parseVersion(pair);
  if (pair.empty()) {
    line = requirementLine("torch", "", spec, "", marker);
    why = "kept as declared.";
  } else if (pinned && paired && compareVersions(*pinned, *paired) == 0) {
    line = requirementLine("torch", "", spec, "", marker);
    why = "its pin is kept: torch_npu is built for torch " + pair + ".";
  } else {
    line = requirementLine("torch", "", "==" + pair, "", marker);
    why = chosen->rule_id == "DEP-003"
              ? detail(*chosen, "note") + " Pinned to " + pair + ", the nearest release."
              : "pinned to " + pair + ": torch_npu is built for one torch release, and " + pair +
                    " is the one the deps table pairs with " + declared(*chosen) + " (" + at(*chosen) + ").";
  }
  // Declarations whose own pairing differs: one environment holds one torch.
  std::string others;
  for (const Finding* f : torch) {
    const std::string other = detail(*f, "torch_npu_torch");
    if (!other.empty() && other != pair) others += (others.empty() ? "" : ", ") + other + " (" + at(*f) + ")";
  }
  if (!others.empty())
    why += " Other declarations pair with torch " + others +
           "; one environment holds one torch, and this file follows " + at(*chosen) + ".";
  if (!detail(*chosen, "cuda").empty())
    why += " The CUDA build (" + detail(*chosen, "cuda") + ") is not carried over.";
  addComment(s.lines, "torch as declared: " + as_declared + "; " + why);
  if (!problem.empty()) addComment(s.lines, "torch: " + problem);
  s.lines.push_back(line);
  if (!declared_npu.empty()) {
    addComment(s.lines, "torch_npu is declared by the repository (" + at(*declared_npu.front()) +
                            ") and written there; its version must stay equal to torch's. " + torch_note);
  } else if (npu.empty()) {
    addComment(s.lines, "torch_npu: install the release built for the torch version above. " + torch_note);
  } else {
    const std::string cann = detail(*chosen, "cann");
    addComment(s.lines, "torch_npu, PyTorch's Ascend adapter. " + torch_note + " Change both pins together." +
                            (cann.empty() ? ""
                                          : " The deps table lists " + npu + " as released with CANN " +
                                                cann + ": the host needs a matching CANN toolkit."));
    s.lines.push_back(npu + (marker.empty() ? "" : "; " + marker));
  }
  return s;
}

}  // namespace deps::npu
