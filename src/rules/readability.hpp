// One verdict on readability: the rules whose errors mean "this file cannot be read as a model of its format"
// (it does not parse, breaks the format's schema, points outside itself or holds data that cannot be what it
// declares). `lint` reports them; `run`, `lint --exec`, `diff` and `export` refuse a file that has any of them, so
// every command accepts exactly the files `lint` can read.
#pragma once

#include <string>

#include "model/model.hpp"

namespace condlint {

// The first finding of a readability rule on `model`, as "RULE: message (at location)", or "" when it is readable.
std::string unreadable_reason(const Model& model);

}  // namespace condlint
