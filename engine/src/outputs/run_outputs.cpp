#include "outputs/run_outputs.hpp"

#include "outputs/emit_json.hpp"
#include "outputs/verify_json.hpp"

namespace migrate {

namespace fs = std::filesystem;

Result<MigrationModel> readRunOutputs(const fs::path& out) {
  const fs::path findings = out / "findings.json";
  std::error_code ec;
  if (!fs::is_regular_file(findings, ec))
    return makeError(out.string() +
                     " has no findings.json: give the output directory of a `migrate-pipeline run`");
  auto model = readFindingsJson(findings);
  if (!model) return model.error();

  const fs::path emit_json = out / "emit.json";
  if (fs::exists(emit_json, ec)) {
    auto emit = outputs::readEmitManifest(emit_json);
    if (!emit) return emit.error();
    for (std::size_t i = 0; i < emit->fixed_findings.size(); ++i)
      if (emit->fixed_findings[i] >= model->findings.size())
        return makeError(emit_json.string() + ": fixed_findings[" + std::to_string(i) + "]: finding index " +
                         std::to_string(emit->fixed_findings[i]) + " is out of range: findings.json has " +
                         std::to_string(model->findings.size()) +
                         " findings; the two files come from different runs: run the pipeline again");
    model->source.root = emit->original_root;
    model->emit = std::move(*emit);
  }

  const fs::path verify_json = out / "verify.json";
  if (fs::exists(verify_json, ec)) {
    auto verify = outputs::readVerifyJson(verify_json);
    if (!verify) return verify.error();
    model->verify = std::move(*verify);
  }
  return model;
}

}  // namespace migrate
