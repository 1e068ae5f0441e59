// What a runtime's child process is given of a model: a view of the files condlint checked, in a folder of
// condlint's own, which no link can lead out of. The model file and every file its loader read for it (an IR's
// .bin, an ONNX model's external data) are hard links to (or, across file systems, copies of) the files condlint
// read, laid out as they lie beside the model; a file that resolves outside the model's folder is not given, and
// neither is the model. The child then opens only files of the view, whatever links the original folder holds.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint::diff {

struct ViewPlan {
  std::string path;  // the model as given
  // (the file condlint read, its path inside the view); the model itself first.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files;
  std::string refused;  // why the model is not given to a runtime at all ("" : it may be)
};

// The plan for `m` (loaded through the front door with its readability verdict): refused when the verdict is
// "unreadable" or a file it reads resolves outside the model's folder. A model file's name is kept in the view when
// it is plain (letters, digits, '.', '_', '-', '+', not starting with '-'), else it is "model" with its extension
// (an IR's .bin follows its .xml).
ViewPlan plan_view(const Model& m);

// A plan for a file no loader read (tests, a runtime that takes the file alone): the file itself.
ViewPlan plan_file(const std::string& path);

// Lays the plan out under `dir` (created); the view's model path, or "" with `error` set.
std::filesystem::path stage_view(const ViewPlan& plan, const std::filesystem::path& dir, std::string& error);

}  // namespace condlint::diff
