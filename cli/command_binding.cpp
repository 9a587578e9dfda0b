// cli/command_binding.cpp: ParamSpec → CLI11 option → request params.
// Runs in: CLI. Never: sends anything; app.cpp does, once parsing succeeded.
#include "cli/command_binding.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;

// Checks JSON text at parse time (a usage error, not a broker round trip).
// An array parameter also accepts its items without brackets: "0,1".
CLI::Validator json_text(ParamKind kind) {
  return CLI::Validator(
      [kind](std::string& text) -> std::string {
        if (Json::accept(text)) return {};
        if (kind == ParamKind::JsonArray && Json::accept("[" + text + "]")) {
          text = "[" + text + "]";
          return {};
        }
        return "not valid JSON: " + text;
      },
      "", "json");
}

std::string describe(const ParamSpec& param) {
  if (!param.required || param.positional >= 0) return param.doc;
  return param.doc.empty() ? "(required)" : param.doc + " (required)";
}

}  // namespace

std::string option_names(const ParamSpec& param) {
  std::string names;
  if (param.positional >= 0 && param.kind != ParamKind::Boolean) names = param.field + ",";
  names += "--" + dashed(param.field);
  if (dashed(param.field) != param.field) names += ",--" + param.field;
  return names;
}

CommandBinding::CommandBinding(CLI::App& parent, const std::string& word, CommandSpec spec)
    : spec_(std::move(spec)) {
  std::string description = spec_.summary;
  if (!spec_.implemented) description += " (not implemented yet)";
  app_ = parent.add_subcommand(word, description);
  for (const auto& param : spec_.params) add_slot(param);
}

void CommandBinding::add_slot(const ParamSpec& param) {
  Slot& slot = slots_.emplace_back();
  slot.param = &param;
  const std::string names = option_names(param);
  const std::string doc = describe(param);
  switch (param.kind) {
    case ParamKind::String:
      slot.option = app_->add_option(names, slot.text, doc);
      break;
    case ParamKind::Integer:
      slot.option = app_->add_option(names, slot.integer, doc);
      break;
    case ParamKind::Number:
      slot.option = app_->add_option(names, slot.number, doc);
      break;
    case ParamKind::Boolean:
      slot.option = app_->add_flag(names, slot.flag, doc);
      break;
    case ParamKind::StringList:
      slot.option = app_->add_option(names, slot.list, doc);
      // Repeat the option for more values; a positional list takes the rest.
      if (param.positional < 0) slot.option->allow_extra_args(false);
      break;
    case ParamKind::JsonArray:
    case ParamKind::JsonValue:
      slot.option = app_->add_option(names, slot.text, doc)->type_name("JSON");
      slot.option->transform(json_text(param.kind));
      break;
  }
  if (param.required && param.positional >= 0 && param.kind != ParamKind::Boolean)
    slot.option->required();
}

Json CommandBinding::params() const {
  Json out = Json::object();
  for (const Slot& slot : slots_)
    if (slot.option->count() > 0) out[slot.param->field] = value_of(slot);
  return out;
}

Json CommandBinding::value_of(const Slot& slot) const {
  switch (slot.param->kind) {
    case ParamKind::String:
      return slot.text;
    case ParamKind::Integer:
      return slot.integer;
    case ParamKind::Number:
      return slot.number;
    case ParamKind::Boolean:
      return slot.flag;
    case ParamKind::StringList:
      return slot.list;
    case ParamKind::JsonArray:
    case ParamKind::JsonValue:
      // Free JSON the user typed, checked at parse time, passed through.
      return Json::parse(slot.text, nullptr, false);
  }
  return nullptr;
}

}  // namespace signaltty::cli
