#pragma once
// Hand-written attention: a softmax over scores that come from q @ k^T and whose result is
// multiplied with the values, within one function.

#include <string>
#include <vector>

#include "migrate/sdk/module.hpp"
#include "source_text.hpp"

namespace migrate_attention {

struct HandwrittenAttention {
  migrate::sdk::SourceRange range;  ///< the softmax, from its name to the end of the call
  std::string written;              ///< `F.softmax`, `attn.softmax`, `.softmax`
  std::string resolved;             ///< `torch.nn.functional.softmax`, or "" for the method
  std::string scores;               ///< the softmax input as written
  std::string qk;                   ///< where the scores come from (`@ k.transpose(-2, -1)`, `einsum(...)`)
  std::string weights;              ///< the name the probabilities are stored in, or "" when used directly
  std::string function;             ///< enclosing function (qualified), or "" at module level
};

/// Every hand-written attention softmax of the module.
std::vector<HandwrittenAttention> findHandwrittenAttention(const migrate::sdk::Module& module,
                                                           const SourceText& src);

}  // namespace migrate_attention
