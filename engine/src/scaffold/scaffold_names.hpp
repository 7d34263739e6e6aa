#pragma once
/// The names a skeleton (`new pack`, `new plugin`) derives from the one its author gives.

#include <optional>
#include <string>

namespace migrate::scaffold {

/// What `acme-gpu` becomes in the files of its skeleton.
struct ScaffoldNames {
  std::string name;    ///< as given, the skeleton's directory: acme-gpu
  std::string snake;   ///< lower case, '_' for '-': Python module, plugin, domain, CMake target (acme_gpu)
  std::string prefix;  ///< the letters and digits upper-cased, at most eight: rule ids (ACMEGPU-001)
  std::string pascal;  ///< each part capitalised, no separators: a C++ class name (AcmeGpu)
};

/// The names of `name`; nullopt unless it is 1 to 64 letters, digits, '-' and '_' starting with
/// a letter.
std::optional<ScaffoldNames> scaffoldNames(const std::string& name);

}  // namespace migrate::scaffold
