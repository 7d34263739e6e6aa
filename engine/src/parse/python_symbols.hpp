#pragma once
// The node types and fields of tree-sitter-python that the fact walk looks at, as ids looked up
// once per grammar (fact_extractor.hpp). Engine-internal.

#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>

namespace migrate::parse {

/// Symbol ids of the node types the extractor looks at (comparing ids, not names).
struct Symbols {
  explicit Symbols(const TSLanguage* l) {
    aliased_import = named(l, "aliased_import");
    argument_list = named(l, "argument_list");
    assert_statement = named(l, "assert_statement");
    assignment = named(l, "assignment");
    attribute = named(l, "attribute");
    binary_operator = named(l, "binary_operator");
    block = named(l, "block");
    boolean_operator = named(l, "boolean_operator");
    not_operator = named(l, "not_operator");
    call = named(l, "call");
    class_definition = named(l, "class_definition");
    comment = named(l, "comment");
    comparison_operator = named(l, "comparison_operator");
    concatenated_string = named(l, "concatenated_string");
    conditional_expression = named(l, "conditional_expression");
    decorated_definition = named(l, "decorated_definition");
    decorator = named(l, "decorator");
    default_parameter = named(l, "default_parameter");
    dictionary = named(l, "dictionary");
    dictionary_splat = named(l, "dictionary_splat");
    dictionary_splat_pattern = named(l, "dictionary_splat_pattern");
    dotted_name = named(l, "dotted_name");
    expression_list = named(l, "expression_list");
    expression_statement = named(l, "expression_statement");
    false_ = named(l, "false");
    float_ = named(l, "float");
    function_definition = named(l, "function_definition");
    future_import_statement = named(l, "future_import_statement");
    global_statement = named(l, "global_statement");
    identifier = named(l, "identifier");
    import_from_statement = named(l, "import_from_statement");
    import_prefix = named(l, "import_prefix");
    import_statement = named(l, "import_statement");
    integer = named(l, "integer");
    interpolation = named(l, "interpolation");
    keyword_argument = named(l, "keyword_argument");
    lambda_parameters = named(l, "lambda_parameters");
    list = named(l, "list");
    list_pattern = named(l, "list_pattern");
    list_splat = named(l, "list_splat");
    list_splat_pattern = named(l, "list_splat_pattern");
    module = named(l, "module");
    none_ = named(l, "none");
    nonlocal_statement = named(l, "nonlocal_statement");
    pair = named(l, "pair");
    parameters = named(l, "parameters");
    parenthesized_expression = named(l, "parenthesized_expression");
    pattern_list = named(l, "pattern_list");
    raise_statement = named(l, "raise_statement");
    relative_import = named(l, "relative_import");
    set = named(l, "set");
    string = named(l, "string");
    string_content = named(l, "string_content");
    string_start = named(l, "string_start");
    subscript = named(l, "subscript");
    true_ = named(l, "true");
    tuple = named(l, "tuple");
    tuple_pattern = named(l, "tuple_pattern");
    typed_default_parameter = named(l, "typed_default_parameter");
    typed_parameter = named(l, "typed_parameter");
    wildcard_import = named(l, "wildcard_import");
    for_statement = named(l, "for_statement");
    for_in_clause = named(l, "for_in_clause");
    augmented_assignment = named(l, "augmented_assignment");
    return_statement = named(l, "return_statement");
    if_statement = named(l, "if_statement");
    else_clause = named(l, "else_clause");
    elif_clause = named(l, "elif_clause");
    except_clause = named(l, "except_clause");
    type = named(l, "type");
    error = static_cast<TSSymbol>(-1);  // ts_builtin_sym_error
  }
  static TSSymbol named(const TSLanguage* l, const char* name) {
    return ts_language_symbol_for_name(l, name, static_cast<uint32_t>(std::strlen(name)), true);
  }
  TSSymbol aliased_import = 0;
  TSSymbol argument_list = 0;
  TSSymbol assert_statement = 0;
  TSSymbol assignment = 0;
  TSSymbol attribute = 0;
  TSSymbol binary_operator = 0;
  TSSymbol block = 0;
  TSSymbol boolean_operator = 0;
  TSSymbol not_operator = 0;
  TSSymbol call = 0;
  TSSymbol class_definition = 0;
  TSSymbol comment = 0;
  TSSymbol comparison_operator = 0;
  TSSymbol concatenated_string = 0;
  TSSymbol conditional_expression = 0;
  TSSymbol decorated_definition = 0;
  TSSymbol decorator = 0;
  TSSymbol default_parameter = 0;
  TSSymbol dictionary = 0;
  TSSymbol dictionary_splat = 0;
  TSSymbol dictionary_splat_pattern = 0;
  TSSymbol dotted_name = 0;
  TSSymbol expression_list = 0;
  TSSymbol expression_statement = 0;
  TSSymbol false_ = 0;
  TSSymbol float_ = 0;
  TSSymbol function_definition = 0;
  TSSymbol future_import_statement = 0;
  TSSymbol global_statement = 0;
  TSSymbol identifier = 0;
  TSSymbol import_from_statement = 0;
  TSSymbol import_prefix = 0;
  TSSymbol import_statement = 0;
  TSSymbol integer = 0;
  TSSymbol interpolation = 0;
  TSSymbol keyword_argument = 0;
  TSSymbol lambda_parameters = 0;
  TSSymbol list = 0;
  TSSymbol list_pattern = 0;
  TSSymbol list_splat = 0;
  TSSymbol list_splat_pattern = 0;
  TSSymbol module = 0;
  TSSymbol none_ = 0;
  TSSymbol nonlocal_statement = 0;
  TSSymbol pair = 0;
  TSSymbol parameters = 0;
  TSSymbol parenthesized_expression = 0;
  TSSymbol pattern_list = 0;
  TSSymbol raise_statement = 0;
  TSSymbol relative_import = 0;
  TSSymbol set = 0;
  TSSymbol string = 0;
  TSSymbol string_content = 0;
  TSSymbol string_start = 0;
  TSSymbol subscript = 0;
  TSSymbol true_ = 0;
  TSSymbol tuple = 0;
  TSSymbol tuple_pattern = 0;
  TSSymbol typed_default_parameter = 0;
  TSSymbol typed_parameter = 0;
  TSSymbol wildcard_import = 0;
  TSSymbol for_statement = 0;
  TSSymbol for_in_clause = 0;
  TSSymbol augmented_assignment = 0;
  TSSymbol return_statement = 0;
  TSSymbol if_statement = 0;
  TSSymbol else_clause = 0;
  TSSymbol elif_clause = 0;
  TSSymbol except_clause = 0;
  TSSymbol type = 0;
  TSSymbol error = 0;
};

}  // namespace migrate::parse
