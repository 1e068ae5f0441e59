// Writers. They all render the same in-memory results, so they cannot drift apart.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "rules/engine.hpp"

namespace condlint {

struct FileResult {
  std::string path;
  std::string format;        // "ir" | "onnx" | "nnapi" | "" when unknown
  std::string io_error;      // set when the file could not be read
  std::vector<Finding> findings;
};

struct RunResult {
  std::vector<FileResult> files;
};

struct Summary {
  size_t files = 0, errors = 0, warnings = 0, notes = 0, io_errors = 0;
};
Summary summarize(const RunResult& r);

void write_text(std::ostream& os, const RunResult& r, bool color);
void write_json(std::ostream& os, const RunResult& r);

}  // namespace condlint
