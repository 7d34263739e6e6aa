// Import bindings and plain aliases of one module (name_bindings.hpp).

#include "values/name_bindings.hpp"

#include <algorithm>

namespace migrate::values {
namespace {

/// Aliases of aliases are followed this far; a cycle (`a = b`, `b = a`) ends here unresolved.
constexpr int kMaxAliasDepth = 8;

}  // namespace

void NameBindings::bindImport(const std::string& bound, const std::string& target) {
  imports_[bound] = target;
}

void NameBindings::noteAssignment(std::string_view name, std::string_view chain, bool fallback) {
  auto [it, first] = assignments_.try_emplace(std::string(name));
  std::vector<Chain>& chains = it->second;
  if (chain.empty()) {  // a value that is no chain: the name has no qualified value
    chains.assign(1, Chain{});
    return;
  }
  if (!chains.empty() && chains.front().text.empty()) return;
  auto same = std::find_if(chains.begin(), chains.end(), [&](const Chain& c) { return c.text == chain; });
  if (same == chains.end())
    chains.push_back(Chain{std::string(chain), fallback});
  else
    same->fallback = same->fallback && fallback;
}

void NameBindings::shadow(const std::string& name) {
  shadowed_.insert(name);
}

void NameBindings::finish() {
  auto rootOf = [](const std::string& chain) { return chain.substr(0, chain.find('.')); };
  for (const auto& [name, noted] : assignments_) {
    // An import of the same name keeps its meaning (`try: import x` / `except: x = None`), and a
    // name assigned from anything but chains has no qualified value.
    if (noted.empty() || noted.front().text.empty() || imports_.count(name) != 0) continue;
    // Chains bound in `except` handlers are stand-ins for the others.
    const bool primary = std::any_of(noted.begin(), noted.end(), [](const Chain& c) { return !c.fallback; });
    std::vector<std::string> chains;
    for (const Chain& c : noted)
      if (!primary || !c.fallback) chains.push_back(c.text);
    // A name bound to two different things is no alias, its value depends on the path taken;
    // unless one is an imported API and the others are the module's own names, stand-ins for
    // it where it is missing (`wrapper = torch.library.custom_op` on a new torch, else `wrapper =
    // noop_custom_op_wrapper`): the API is what a current torch runs.
    std::string chain = chains.size() == 1 ? chains.front() : std::string();
    for (std::size_t i = 0; chains.size() > 1 && i < chains.size(); ++i) {
      if (imports_.count(rootOf(chains[i])) == 0) continue;
      if (!chain.empty()) {
        chain.clear();
        break;
      }
      chain = chains[i];
    }
    if (chain.empty() || rootOf(chain) == name) continue;  // `x = x.y`: a new value of x, not an alias
    aliases_.emplace(name, chain);
  }
}

std::string NameBindings::resolveRoot(std::string_view root, int depth, bool aliases) const {
  const std::string key(root);
  if (auto it = imports_.find(key); it != imports_.end())
    return shadowed_.count(key) ? std::string() : it->second;
  if (!aliases || depth >= kMaxAliasDepth) return {};
  auto it = aliases_.find(key);
  if (it == aliases_.end()) return {};
  const std::string& chain = it->second;
  const std::size_t dot = chain.find('.');
  std::string base = resolveRoot(std::string_view(chain).substr(0, dot), depth + 1, true);
  if (base.empty()) return {};
  return dot == std::string::npos ? base : base + chain.substr(dot);
}

namespace {

std::string joined(std::string base, std::string_view written, std::size_t dot) {
  if (base.empty() || dot == std::string_view::npos) return base;
  base += written.substr(dot);
  return base;
}

}  // namespace

std::string NameBindings::resolve(std::string_view written) const {
  const std::size_t dot = written.find('.');
  return joined(resolveRoot(written.substr(0, dot), 0, true), written, dot);
}

std::string NameBindings::resolveImport(std::string_view written) const {
  const std::size_t dot = written.find('.');
  return joined(resolveRoot(written.substr(0, dot), 0, false), written, dot);
}

bool NameBindings::isImport(std::string_view name) const {
  const std::string key(name);
  return imports_.count(key) != 0 && shadowed_.count(key) == 0;
}

}  // namespace migrate::values
