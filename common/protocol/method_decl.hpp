// common/protocol/method_decl.hpp: how one signaltty/1 method is declared:
// name, summary, typed params and result, flags, and whether this build
// serves it yet. The router, server.schema and the CLI all read these.
// Runs in: every process. Never: holds behaviour; handlers live in broker/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace signaltty::protocol {

// A string usable as a template argument, so a declaration fits one line.
template <std::size_t N>
struct FixedString {
  char data[N]{};
  constexpr FixedString(const char (&s)[N]) { std::copy_n(s, N, data); }  // NOLINT
  constexpr std::string_view view() const { return {data, N - 1}; }
};

enum MethodFlag : unsigned {
  kNoFlags = 0,
  kMutating = 1u << 0,         // changes the store; answered after its events are journaled
  kConnectionBound = 1u << 1,  // its effect lives as long as the connection (attach, subscribe)
  kSingleFlight = 1u << 2,     // the connection is dedicated to it; another request cancels it
};

// Implemented methods must have a broker handler (a compile error otherwise).
// Planned ones are answered INTERNAL "not implemented yet" and flagged in
// server.schema until the issue that builds them flips the declaration.
enum class Availability { Implemented, Planned };

template <FixedString Name, FixedString Summary, class P, class R, unsigned Flags,
          Availability Avail = Availability::Implemented>
struct MethodDecl {
  static constexpr std::string_view name = Name.view();
  static constexpr std::string_view summary = Summary.view();
  static constexpr unsigned flags = Flags;
  static constexpr Availability availability = Avail;
  using Params = P;
  using Result = R;
};

template <class... Ts>
struct TypeList {
  static constexpr std::size_t size = sizeof...(Ts);
};

template <class List, class F>
struct ForEachType;
template <class... Ts, class F>
struct ForEachType<TypeList<Ts...>, F> {
  static void run(F& f) { (f.template operator()<Ts>(), ...); }
};

// Calls f.template operator()<T>() for each T in List.
template <class List, class F>
void for_each_type(F&& f) {
  ForEachType<List, std::remove_reference_t<F>>::run(f);
}

template <FixedString Name, class Payload>
struct EventDecl {
  static constexpr std::string_view name = Name.view();
  using PayloadType = Payload;
};

}  // namespace signaltty::protocol
