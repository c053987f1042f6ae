// Lexical name scopes of the parser.
#include "frontends/text/name_scope.h"

namespace tile_ir::text {
namespace {

// This Abseil build has its own string_view, which the map's lookups take.
absl::string_view Key(std::string_view name) { return absl::string_view(name.data(), name.size()); }

}  // namespace

void NameScope::Exit() {
  size_t start = scope_starts_.back();
  scope_starts_.pop_back();
  for (size_t i = start; i < visible_order_.size(); ++i) {
    declared_.find(visible_order_[i])->second.visible = false;
  }
  visible_order_.resize(start);
}

const Binding* NameScope::Find(std::string_view name) const {
  auto it = declared_.find(Key(name));
  return it == declared_.end() || !it->second.visible ? nullptr : &it->second.binding;
}

const Binding* NameScope::FindDeclared(std::string_view name) const {
  auto it = declared_.find(Key(name));
  return it == declared_.end() ? nullptr : &it->second.binding;
}

bool NameScope::Declare(std::string_view name, Binding binding) {
  auto [it, inserted] = declared_.try_emplace(std::string(name), Entry{std::move(binding)});
  if (inserted) visible_order_.emplace_back(name);
  return inserted;
}

}  // namespace tile_ir::text
