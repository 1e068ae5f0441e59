// Reading JSON documents condlint did not write this run (the shares of a sharded lint, a SARIF baseline): a member
// is read only when it has the type asked for, so a foreign or hand-edited document is read as far as it makes sense
// and never throws. For nlohmann::json and nlohmann::ordered_json alike.
#pragma once

#include <cstdint>
#include <string>

namespace condlint {

// Member `key` of `j`, null when `j` is no object or has no such member.
template <class Json>
const Json* json_find(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
// The same as a value to read on from: a null JSON value when absent.
template <class Json>
const Json& json_at(const Json& j, const char* key) {
  static const Json none;
  const Json* v = json_find(j, key);
  return v ? *v : none;
}
// The first element of array member `key`, a null JSON value when there is none.
template <class Json>
const Json& json_first(const Json& j, const char* key) {
  static const Json none;
  const Json& v = json_at(j, key);
  return v.is_array() && !v.empty() ? v[0] : none;
}
// String member `key`, else `otherwise`.
template <class Json>
std::string json_text(const Json& j, const char* key, const std::string& otherwise = "") {
  const Json* v = json_find(j, key);
  return v && v->is_string() ? v->template get<std::string>() : otherwise;
}
// Integer member `key` when it fits an int, else 0.
template <class Json>
int json_int(const Json& j, const char* key) {
  const Json* v = json_find(j, key);
  return v && v->is_number_integer() && v->template get<int64_t>() >= INT32_MIN &&
                 v->template get<int64_t>() <= INT32_MAX
             ? static_cast<int>(v->template get<int64_t>())
             : 0;
}

}  // namespace condlint
