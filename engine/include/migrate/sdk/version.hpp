#pragma once
/// Version of the plugin SDK and the toolchain tag checked in the plugin handshake.

#include <cstdint>

#define MIGRATE_STRINGIFY_INNER(x) #x
#define MIGRATE_STRINGIFY(x) MIGRATE_STRINGIFY_INNER(x)

namespace migrate::sdk {

/// Bumped whenever a type that crosses the plugin boundary changes layout or meaning.
inline constexpr std::uint32_t kAbiVersion = 8;  ///< 8: CallFact::unpacked_first

/// Human-readable SDK version (the product version the headers come from).
inline constexpr const char* kSdkVersion = "0.4.0";

}  // namespace migrate::sdk

/// C++ standard-library ABI and compiler family: plugins exchange std::string and std::vector with
/// the host, so both sides must agree on them.
#if defined(__clang__)
#define MIGRATE_COMPILER_TAG "clang-" MIGRATE_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define MIGRATE_COMPILER_TAG "gcc-" MIGRATE_STRINGIFY(__GNUC__)
#else
#define MIGRATE_COMPILER_TAG "unknown"
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
#define MIGRATE_TOOLCHAIN_TAG MIGRATE_COMPILER_TAG "/libstdc++-cxx11"
#elif defined(_LIBCPP_VERSION)
#define MIGRATE_TOOLCHAIN_TAG MIGRATE_COMPILER_TAG "/libc++"
#else
#define MIGRATE_TOOLCHAIN_TAG MIGRATE_COMPILER_TAG "/libstdc++-old"
#endif
