#pragma once
// How a call uses a plain name as its device, shared by the checks that follow an integer to a
// device position (DEV-095's spawned worker index, DEV-097's integer variables).

#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/module.hpp"

namespace device {

/// The parameters a positional argument can bind to in the function `name` defined in `text` (the
/// definition's source): past `self` / `cls`, up to a bare `*` or `*args`. Empty when `text` holds
/// no such definition.
std::vector<std::string> positionalParameters(std::string_view text, const std::string& name);

/// How `call` uses `arg`, the plain name `name`, as a device, written for a message:
/// `.to(name)`, `torch.device(name)`, `device=name`, or `f(…, name) as its device` where a function
/// or `self.` method of the module names that positional parameter for a device (`device`, `dev`,
/// `*_device`). Empty when it is no such use, or when a rank-like name rule already reports it
/// there (DEV-019's `.to(gpu)`, DEV-062's `torch.device(rank)`, DEV-067's `device=local_rank`,
/// DEV-088's `f(x, rank)`), so that a line gets one finding.
std::string deviceUse(const migrate::sdk::Module& module, const migrate::sdk::CallFact& call,
                      const migrate::sdk::ArgumentFact& arg, const std::string& name);

}  // namespace device
