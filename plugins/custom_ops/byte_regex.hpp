#pragma once
/// custom_ops reads with the in-tree plugins' byte patterns on RE2 (plugin_support/byte_regex.hpp).

#include "plugin_support/byte_regex.hpp"

namespace custom_ops {

using plugin_support::bytePattern;
using plugin_support::forEachMatch;
using plugin_support::str;

}  // namespace custom_ops
