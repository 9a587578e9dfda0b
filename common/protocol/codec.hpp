// common/protocol/codec.hpp: the declaration machinery every wire struct is
// written in. A struct lists its fields once (static fields()); from that one
// list come its decoder (typed, BAD_PARAMS naming the field), its encoder
// (absent optionals omitted) and its JSON Schema (server.schema, the CLI).
// Runs in: every process. Never: lets raw JSON past decode(); code that
// wants a typed value asks Codec<T>::decode.
//
// Usage:
//   struct RenameParams {
//     std::string workspace_id;
//     std::string name;
//     static constexpr auto fields() {
//       return std::tuple{req("workspace_id", &RenameParams::workspace_id, "id or handle", 0),
//                         req("name", &RenameParams::name, "new name", 1)};
//     }
//   };
//   Result<RenameParams> p = decode<RenameParams>(json);
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"

namespace signaltty::protocol {

using Json = nlohmann::json;

// A field that encodes as JSON null when empty (instead of being omitted),
// for the few wire fields the protocol declares nullable (`pid`, `code`, …).
template <class T>
struct Nullable {
  std::optional<T> value;
  Nullable() = default;
  Nullable(std::nullopt_t) {}  // NOLINT
  Nullable(T v) : value(std::move(v)) {}  // NOLINT
  bool has_value() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  bool operator==(const Nullable&) const = default;
};

template <class T, class M>
struct Field {
  std::string_view name;
  M T::*member;
  std::string_view doc;
  bool required;
  int positional;  // CLI positional slot, -1 for an --option
};

// A field the caller must send (missing or null is BAD_PARAMS).
template <class T, class M>
constexpr Field<T, M> req(std::string_view name, M T::*member, std::string_view doc = {},
                               int positional = -1) {
  return {name, member, doc, true, positional};
}
// A field that may be absent: std::optional stays empty, anything else keeps
// its default member initializer.
template <class T, class M>
constexpr Field<T, M> opt(std::string_view name, M T::*member, std::string_view doc = {},
                               int positional = -1) {
  return {name, member, doc, false, positional};
}

// Enums on the wire are lowercase strings; specialise EnumNames<E> with
//   static constexpr std::array<std::pair<E, std::string_view>, N> names{...};
template <class E>
struct EnumNames;

template <class T, class = void>
struct Codec;

namespace detail {
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsOptionalNullable : std::false_type {};
template <class T>
struct IsOptionalNullable<std::optional<Nullable<T>>> : std::true_type {};
template <class T, class = void>
struct HasFields : std::false_type {};
template <class T>
struct HasFields<T, std::void_t<decltype(T::fields())>> : std::true_type {};
template <class T, class = void>
struct HasEnumNames : std::false_type {};
template <class T>
struct HasEnumNames<T, std::void_t<decltype(EnumNames<T>::names)>> : std::true_type {};

inline std::string type_name(const Json& j) { return j.type_name(); }
inline Error mistyped(std::string_view path, std::string_view want, const Json& got) {
  Error e{ErrorCode::BadParams,
          std::string(path) + ": expected " + std::string(want) + ", got " + type_name(got)};
  e.details = {{"field", std::string(path)}};
  return e;
}
inline std::string join_path(std::string_view base, std::string_view name) {
  if (base.empty()) return std::string(name);
  return std::string(base) + "." + std::string(name);
}
}  // namespace detail

template <>
struct Codec<std::string> {
  static Result<std::string> decode(const Json& j, std::string_view path) {
    if (!j.is_string()) return detail::mistyped(path, "string", j);
    return j.get<std::string>();
  }
  static Json encode(const std::string& v) { return v; }
  static Json schema() { return {{"type", "string"}}; }
};

template <>
struct Codec<bool> {
  static Result<bool> decode(const Json& j, std::string_view path) {
    if (!j.is_boolean()) return detail::mistyped(path, "boolean", j);
    return j.get<bool>();
  }
  static Json encode(bool v) { return v; }
  static Json schema() { return {{"type", "boolean"}}; }
};

template <class I>
struct Codec<I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>> {
  static Result<I> decode(const Json& j, std::string_view path) {
    if (j.is_number_unsigned()) {
      auto v = j.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<I>::max()))
        return detail::mistyped(path, "integer in range", j);
      return static_cast<I>(v);
    }
    if (j.is_number_integer()) {
      auto v = j.get<std::int64_t>();
      if constexpr (std::is_unsigned_v<I>) {
        if (v < 0) return detail::mistyped(path, "non-negative integer", j);
      } else {
        if (v < static_cast<std::int64_t>(std::numeric_limits<I>::min()) ||
            v > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
          return detail::mistyped(path, "integer in range", j);
      }
      return static_cast<I>(v);
    }
    return detail::mistyped(path, "integer", j);
  }
  static Json encode(I v) { return v; }
  static Json schema() {
    Json s = {{"type", "integer"}};
    if constexpr (std::is_unsigned_v<I>) s["minimum"] = 0;
    return s;
  }
};

template <>
struct Codec<double> {
  static Result<double> decode(const Json& j, std::string_view path) {
    if (!j.is_number()) return detail::mistyped(path, "number", j);
    return j.get<double>();
  }
  static Json encode(double v) { return v; }
  static Json schema() { return {{"type", "number"}}; }
};

// Free JSON (hook payloads, evidence): passed through untouched.
template <>
struct Codec<Json> {
  static Result<Json> decode(const Json& j, std::string_view) { return j; }
  static Json encode(const Json& v) { return v; }
  static Json schema() { return Json::object(); }
};

template <class T>
struct Codec<std::vector<T>> {
  static Result<std::vector<T>> decode(const Json& j, std::string_view path) {
    if (!j.is_array()) return detail::mistyped(path, "array", j);
    std::vector<T> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      auto item = Codec<T>::decode(j[i], std::string(path) + "[" + std::to_string(i) + "]");
      if (!item.ok()) return std::move(item).error();
      out.push_back(std::move(item).value());
    }
    return out;
  }
  static Json encode(const std::vector<T>& v) {
    Json out = Json::array();
    for (const auto& item : v) out.push_back(Codec<T>::encode(item));
    return out;
  }
  static Json schema() { return {{"type", "array"}, {"items", Codec<T>::schema()}}; }
};

template <class T>
struct Codec<std::map<std::string, T>> {
  static Result<std::map<std::string, T>> decode(const Json& j, std::string_view path) {
    if (!j.is_object()) return detail::mistyped(path, "object", j);
    std::map<std::string, T> out;
    for (const auto& [k, v] : j.items()) {
      auto item = Codec<T>::decode(v, detail::join_path(path, k));
      if (!item.ok()) return std::move(item).error();
      out.emplace(k, std::move(item).value());
    }
    return out;
  }
  static Json encode(const std::map<std::string, T>& v) {
    Json out = Json::object();
    for (const auto& [k, item] : v) out[k] = Codec<T>::encode(item);
    return out;
  }
  static Json schema() {
    return {{"type", "object"}, {"additionalProperties", Codec<T>::schema()}};
  }
};

template <class T>
struct Codec<std::optional<T>> {
  static Result<std::optional<T>> decode(const Json& j, std::string_view path) {
    if (j.is_null()) return std::optional<T>{};
    auto v = Codec<T>::decode(j, path);
    if (!v.ok()) return std::move(v).error();
    return std::optional<T>(std::move(v).value());
  }
  static Json encode(const std::optional<T>& v) {
    return v ? Codec<T>::encode(*v) : Json(nullptr);
  }
  static Json schema() { return Codec<T>::schema(); }
};

template <class T>
struct Codec<Nullable<T>> {
  static Result<Nullable<T>> decode(const Json& j, std::string_view path) {
    if (j.is_null()) return Nullable<T>{};
    auto v = Codec<T>::decode(j, path);
    if (!v.ok()) return std::move(v).error();
    return Nullable<T>(std::move(v).value());
  }
  static Json encode(const Nullable<T>& v) {
    return v.value ? Codec<T>::encode(*v.value) : Json(nullptr);
  }
  static Json schema() { return {{"anyOf", Json::array({Codec<T>::schema(), {{"type", "null"}}})}}; }
};

template <class E>
struct Codec<E, std::enable_if_t<std::is_enum_v<E> && detail::HasEnumNames<E>::value>> {
  static Result<E> decode(const Json& j, std::string_view path) {
    if (j.is_string()) {
      const auto& s = j.get_ref<const std::string&>();
      for (const auto& [value, name] : EnumNames<E>::names)
        if (name == s) return value;
    }
    Error e{ErrorCode::BadParams, std::string(path) + ": expected one of " + choices()};
    e.details = {{"field", std::string(path)}};
    return e;
  }
  static Json encode(E v) {
    for (const auto& [value, name] : EnumNames<E>::names)
      if (value == v) return std::string(name);
    return nullptr;
  }
  static Json schema() {
    Json names = Json::array();
    for (const auto& entry : EnumNames<E>::names) names.push_back(std::string(entry.second));
    return {{"type", "string"}, {"enum", names}};
  }
  static std::string choices() {
    std::string out;
    for (const auto& entry : EnumNames<E>::names) {
      if (!out.empty()) out += ", ";
      out += entry.second;
    }
    return out;
  }
};

// Structs that declare `static constexpr auto fields()`.
template <class T>
struct Codec<T, std::enable_if_t<detail::HasFields<T>::value>> {
  static Result<T> decode(const Json& j, std::string_view path) {
    if (!j.is_object()) return detail::mistyped(path.empty() ? "params" : path, "object", j);
    T out{};
    std::optional<Error> failure;
    std::apply([&](const auto&... f) { static_cast<void>((decode_field(j, path, f, out, failure) && ...)); },
               T::fields());
    if (failure) return std::move(*failure);
    return out;
  }

  static Json encode(const T& v) {
    Json out = Json::object();
    std::apply([&](const auto&... f) { (encode_field(v, f, out), ...); }, T::fields());
    return out;
  }

  static Json schema() {
    Json props = Json::object();
    Json req = Json::array();
    std::apply([&](const auto&... f) { (schema_field(f, props, req), ...); }, T::fields());
    Json s = {{"type", "object"}, {"properties", props}};
    if (!req.empty()) s["required"] = req;
    return s;
  }

 private:
  template <class M>
  static bool decode_field(const Json& j, std::string_view path, const Field<T, M>& f, T& out,
                           std::optional<Error>& failure) {
    const std::string name = detail::join_path(path, f.name);
    auto it = j.find(f.name);
    if constexpr (detail::IsOptionalNullable<M>::value) {
      // "present but null" is a value of its own here (`code: null`).
      if (it != j.end() && it->is_null()) {
        out.*(f.member) = typename M::value_type{};
        return true;
      }
    }
    if (it == j.end() || it->is_null()) {
      if (!f.required) return true;
      Error e{ErrorCode::BadParams, name + ": required field missing"};
      e.details = {{"field", name}};
      failure = std::move(e);
      return false;
    }
    auto v = Codec<M>::decode(*it, name);
    if (!v.ok()) {
      failure = std::move(v).error();
      return false;
    }
    out.*(f.member) = std::move(v).value();
    return true;
  }

  template <class M>
  static void encode_field(const T& v, const Field<T, M>& f, Json& out) {
    const M& m = v.*(f.member);
    if constexpr (detail::IsOptional<M>::value) {
      if (!m) return;
      out[std::string(f.name)] = Codec<typename M::value_type>::encode(*m);
    } else {
      out[std::string(f.name)] = Codec<M>::encode(m);
    }
  }

  template <class M>
  static void schema_field(const Field<T, M>& f, Json& props, Json& req) {
    Json s = Codec<M>::schema();
    if (!f.doc.empty()) s["description"] = std::string(f.doc);
    if (f.positional >= 0) s["x-positional"] = f.positional;
    props[std::string(f.name)] = std::move(s);
    if (f.required) req.push_back(std::string(f.name));
  }
};

template <class T>
Result<T> decode(const Json& j, std::string_view path = {}) {
  return Codec<T>::decode(j, path);
}
template <class T>
Json encode(const T& v) {
  return Codec<T>::encode(v);
}
template <class T>
Json schema_of() {
  return Codec<T>::schema();
}

// A struct with no fields, for methods without params or with an empty result.
struct Empty {
  static constexpr auto fields() { return std::tuple<>{}; }
};

}  // namespace signaltty::protocol
