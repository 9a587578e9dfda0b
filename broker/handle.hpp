// broker/handle.hpp: the names the model hands out or accepts: workspace
// handles (immutable slugs), pane names, and the display names of
// workspaces and tabs (docs/rules.md, "Ids, handles, names").
// Runs in: broker (io thread). Pure functions over strings.
// Never: looks at the store; the caller says which handles are taken.
//
// Usage:
//   std::string h = make_handle("My API!!", [&](std::string_view c) { return used(c); });
//   // "my-api", or "my-api-2" when "my-api" is taken
//   SIGNALTTY_RETURN_IF_ERROR(validate_pane_name(name));
//   SIGNALTTY_TRY(std::string title, sanitize_display_name(raw, "title"));
//   if (bad) return field_error("lines", "must be 1..5000");
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::broker {

// BAD_PARAMS about one field: "<field>: <why>", details {field}. Every
// handler that checks a field by hand says it this way.
Error field_error(std::string_view field, std::string why);

// The handle used when a name slugs to nothing (docs/rules.md, Ids, handles,
// names).
inline constexpr std::string_view kEmptyHandle = "ws";

using HandleTaken = std::function<bool(std::string_view candidate)>;

// The slug of `name`: lowercase ASCII letters and digits kept, every other
// run of bytes turned into one '-', cut at limits::kHandleMaxChars, '-'
// trimmed from both ends; `ws` when nothing is left.
std::string handle_slug(std::string_view name);

// A handle for `name` that `taken` does not reject: the slug, else
// `<slug>-2`, `<slug>-3`, … with the slug shortened so the whole handle
// still fits limits::kHandleMaxChars.
std::string make_handle(std::string_view name, const HandleTaken& taken);

// Pane names (pane.rename): `[a-z][a-z0-9_-]*`, at most
// limits::kPaneNameMaxBytes bytes. BAD_PARAMS naming the field `name`.
Status validate_pane_name(std::string_view name);

// A workspace name or tab title as stored: a raw value over
// limits::kNameMaxBytes bytes is BAD_PARAMS; C0 and C1 control characters
// are removed; the rest is cut at limits::kTitleMaxChars code points; empty
// after that is BAD_PARAMS. `field` names the parameter in the error.
// Expects valid UTF-8 (every string that passed the JSON decoder is).
Result<std::string> sanitize_display_name(std::string_view raw, std::string_view field);

// Unicode code points in UTF-8 `text` (docs/rules.md (Model) counts "chars" so).
std::size_t code_point_count(std::string_view text);
// `text` cut after `max_code_points` code points.
std::string cut_code_points(std::string text, std::size_t max_code_points);
// Notification text (docs/rules.md (Model), Notification): C0 and C1 controls removed
// except '\n' and '\t' (so no escape sequence survives), then cut at
// `max_code_points`.
std::string sanitize_notification_text(std::string_view raw, std::size_t max_code_points);

}  // namespace signaltty::broker
