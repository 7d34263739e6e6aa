#pragma once
/// A mustache renderer for the code templates in templates/: variables ({{name}}, inserted
/// verbatim: the output is code, not HTML), sections over flags and lists ({{#name}} ...
/// {{/name}}), inverted sections ({{^name}}), comments ({{! ...}}). A tag alone on its line
/// takes the line with it, as the mustache spec says. Partials, lambdas and delimiter changes
/// are refused.

#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"
#include "migrate/sdk/emit.hpp"

namespace migrate::emit {

/// `text` rendered with `data`. A name that no enclosing value has renders as empty text and
/// as a false section. Errors name the template (`name`), line and the problem.
Result<std::string> renderMustache(std::string_view name, std::string_view text,
                                   const sdk::TemplateData& data);

}  // namespace migrate::emit
