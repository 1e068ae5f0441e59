// What the HTML page of a lint needs of one file beyond a SARIF or JSON report (the path and format as linted, every
// finding with its place, the suppressed ones, baseline states, the conditional panels), as JSON: a share of a
// sharded lint carries it in its shard bookkeeping, so that `condlint merge --html` writes the page the unsharded
// lint writes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report.hpp"

namespace condlint {

// The page data of `f`. Conditionals are written only when the lint summarized them (`has_conditionals`).
template <class Json>
Json html_file_data(const FileResult& f, bool has_conditionals);

// `f` from page data; false (and `err` says what) when `j` is not page data as html_file_data writes it. Sets
// `has_conditionals` when the data holds the conditional panels.
template <class Json>
bool html_file_from_data(const Json& j, FileResult& f, bool& has_conditionals, std::string& err);

}  // namespace condlint
