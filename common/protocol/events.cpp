// common/protocol/events.cpp: event selectors and glob matching
// (docs/rules.md, Events). Runs in: broker, CLI.
#include "common/protocol/events.hpp"

namespace signaltty::protocol {

bool is_event_selector(std::string_view selector) {
  for (auto glob : kEventGlobs)
    if (glob == selector) return true;
  bool found = false;
  for_each_type<AllEvents>([&]<class E>() { found = found || E::name == selector; });
  return found;
}

bool event_matches(std::string_view selector, std::string_view name) {
  if (selector == "*") return true;
  if (selector.size() >= 2 && selector.substr(selector.size() - 2) == ".*") {
    auto family = selector.substr(0, selector.size() - 1);  // keeps the dot
    return name.substr(0, family.size()) == family;
  }
  return selector == name;
}

}  // namespace signaltty::protocol
