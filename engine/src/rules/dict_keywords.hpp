#pragma once
/// Keywords passed through a dict: `kwargs = {"load_in_8bit": True}` or
/// `kwargs["use_flash_attention_2"] = flag`, later spread into a call as `**kwargs`. A `keyword`
/// rule with `dict_keys: true` matches the key there (docs/writing-rules.md).

#include <optional>
#include <string_view>

#include "migrate/sdk/module.hpp"

namespace migrate::rules {

/// The source text of the value set under the string `key` when the key is a dict display's key
/// (`{"name": value}`) or the key of a subscript assignment (`d["name"] = value`); nullopt when it
/// is neither.
std::optional<std::string_view> dictKeywordValue(std::string_view src, const sdk::StringFact& key);

}  // namespace migrate::rules
