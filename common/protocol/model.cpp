// common/protocol/model.cpp: the layout tree's codec (docs/rules.md, Tab and
// layout). Runs in: every process. Never: checks pane ownership (the
// broker's layout rules do, against the store).
#include "common/protocol/model.hpp"

#include <algorithm>
#include <cmath>

#include "common/limits.hpp"

namespace signaltty::protocol {
namespace {

Error layout_error(std::string_view path, std::string message) {
  Error e{ErrorCode::BadParams, std::string(path) + ": " + std::move(message)};
  e.details = {{"field", std::string(path)}};
  return e;
}

Result<Layout> decode_node(const Json& j, const std::string& path, std::size_t depth) {
  if (depth > limits::kLayoutMaxDepth) return layout_error(path, "layout nested too deeply");
  if (!j.is_object()) return detail::mistyped(path, "layout object", j);
  auto type = j.find("type");
  if (type == j.end() || !type->is_string())
    return layout_error(path + ".type", "expected \"pane\" or \"split\"");
  if (*type == "pane") {
    auto id = Codec<std::string>::decode(j.value("pane_id", Json(nullptr)), path + ".pane_id");
    if (!id.ok()) return std::move(id).error();
    if (id->empty()) return layout_error(path + ".pane_id", "must not be empty");
    return Layout::leaf(std::move(id).value());
  }
  if (*type != "split") return layout_error(path + ".type", "expected \"pane\" or \"split\"");
  auto dir = Codec<SplitDir>::decode(j.value("dir", Json(nullptr)), path + ".dir");
  if (!dir.ok()) return std::move(dir).error();
  double ratio = 0.5;
  if (auto r = j.find("ratio"); r != j.end() && !r->is_null()) {
    auto v = Codec<double>::decode(*r, path + ".ratio");
    if (!v.ok()) return std::move(v).error();
    if (!std::isfinite(*v)) return layout_error(path + ".ratio", "must be finite");
    ratio = std::clamp(*v, limits::kRatioMin, limits::kRatioMax);
  }
  auto first_it = j.find("first");
  auto second_it = j.find("second");
  if (first_it == j.end() || second_it == j.end())
    return layout_error(path, "split needs first and second");
  auto first = decode_node(*first_it, path + ".first", depth + 1);
  if (!first.ok()) return std::move(first).error();
  auto second = decode_node(*second_it, path + ".second", depth + 1);
  if (!second.ok()) return std::move(second).error();
  return Layout::split(*dir, ratio, std::move(first).value(), std::move(second).value());
}

}  // namespace

bool Layout::operator==(const Layout& o) const {
  if (type != o.type) return false;
  if (type == Type::Pane) return pane_id == o.pane_id;
  return dir == o.dir && ratio == o.ratio && *first == *o.first && *second == *o.second;
}

Result<Layout> Codec<Layout>::decode(const Json& j, std::string_view path) {
  return decode_node(j, path.empty() ? std::string("layout") : std::string(path), 0);
}

Json Codec<Layout>::encode(const Layout& v) {
  if (v.type == Layout::Type::Pane) return {{"type", "pane"}, {"pane_id", v.pane_id}};
  return {{"type", "split"},
          {"dir", Codec<SplitDir>::encode(v.dir)},
          {"ratio", v.ratio},
          {"first", encode(*v.first)},
          {"second", encode(*v.second)}};
}

Json Codec<Layout>::schema() {
  return {{"type", "object"},
          {"description",
           "{\"type\":\"pane\",\"pane_id\"} or {\"type\":\"split\",\"dir\":\"right\"|\"down\","
           "\"ratio\",\"first\",\"second\"}"},
          {"required", Json::array({"type"})}};
}

}  // namespace signaltty::protocol
