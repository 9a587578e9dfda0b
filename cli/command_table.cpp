// cli/command_table.cpp: method table → command specs (words, params).
// Runs in: CLI. Never: reads a field's schema anywhere else; past this file
// a parameter is a typed ParamSpec.
#include "cli/command_table.hpp"

#include <algorithm>
#include <limits>

namespace signaltty::cli {
namespace {

using protocol::Json;

// A Nullable<T> field is {"anyOf":[T, {"type":"null"}]}: T is what a user types.
const Json& without_null(const Json& schema) {
  auto any_of = schema.find("anyOf");
  if (any_of == schema.end() || !any_of->is_array()) return schema;
  for (const auto& branch : *any_of)
    if (branch.value("type", "") != "null") return branch;
  return schema;
}

std::string choices_of(const Json& schema) {
  for (const char* key : {"enum", "x-enum-ci"}) {
    auto it = schema.find(key);
    if (it == schema.end() || !it->is_array()) continue;
    std::string out;
    for (const auto& name : *it) {
      if (!name.is_string()) continue;
      if (!out.empty()) out += ", ";
      out += name.get<std::string>();
    }
    return out;
  }
  return {};
}

std::string field_doc(const Json& schema) {
  const Json& effective = without_null(schema);
  std::string doc = schema.value("description", effective.value("description", ""));
  std::string choices = choices_of(effective);
  if (choices.empty()) return doc;
  if (doc.empty()) return "one of: " + choices;
  return doc + " (one of: " + choices + ")";
}

bool is_required(const Json& params_schema, const std::string& field) {
  auto required = params_schema.find("required");
  if (required == params_schema.end() || !required->is_array()) return false;
  return std::find(required->begin(), required->end(), field) != required->end();
}

std::vector<ParamSpec> param_specs(const Json& params_schema) {
  std::vector<ParamSpec> out;
  auto properties = params_schema.find("properties");
  if (properties == params_schema.end() || !properties->is_object()) return out;
  for (const auto& [field, schema] : properties->items()) {
    ParamSpec spec;
    spec.field = field;
    spec.kind = param_kind(schema);
    spec.positional = schema.value("x-positional", -1);
    spec.required = is_required(params_schema, field);
    spec.doc = field_doc(schema);
    out.push_back(std::move(spec));
  }
  // Positionals first, in slot order; options keep the schema's order.
  std::stable_sort(out.begin(), out.end(), [](const ParamSpec& a, const ParamSpec& b) {
    auto rank = [](const ParamSpec& p) { return p.positional < 0 ? std::numeric_limits<int>::max() : p.positional; };
    return rank(a) < rank(b);
  });
  return out;
}

}  // namespace

std::string dashed(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::vector<std::string> command_words(std::string_view method) {
  std::vector<std::string> words;
  std::size_t start = 0;
  for (;;) {
    auto dot = method.find('.', start);
    words.push_back(dashed(method.substr(start, dot - start)));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return words;
}

ParamKind param_kind(const Json& field_schema) {
  const Json& schema = without_null(field_schema);
  const std::string type = schema.value("type", "");
  if (type == "string") return ParamKind::String;
  if (type == "integer") return ParamKind::Integer;
  if (type == "number") return ParamKind::Number;
  if (type == "boolean") return ParamKind::Boolean;
  if (type == "array") {
    auto items = schema.find("items");
    bool strings = items != schema.end() && items->is_object() &&
                   without_null(*items).value("type", "") == "string";
    return strings ? ParamKind::StringList : ParamKind::JsonArray;
  }
  return ParamKind::JsonValue;
}

std::vector<CommandSpec> command_specs(const std::vector<protocol::SchemaMethod>& methods) {
  std::vector<CommandSpec> out;
  out.reserve(methods.size());
  for (const auto& method : methods) {
    CommandSpec spec;
    spec.method = method.name;
    spec.words = command_words(method.name);
    spec.summary = method.summary;
    spec.implemented = method.implemented;
    spec.params = param_specs(method.params);
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace signaltty::cli
