// Converts the C++ test models that AOSP's NNAPI test generator writes
// (runtime/test/generated/spec_*/NAME.example.cpp: `TestModel` designated initializers,
// `TestBuffer::createFromVector<T>({...})`, one `TestModelManager::get().add("NAME", get_x())`
// per model) into condlint's NNAPI model JSON, with the golden data as `examples`.
// Fields are read by name, so Android 11's and Android 13's field orders both work.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace condlint {

struct ImportedModel {
  std::string name;  // the registered test name ("if_simple_true")
  std::string json;  // the .nnapi.json document
};

// Converts every registered model of one .example.cpp text. Returns false with a message (and the
// line) on a construct it cannot read; models converted before the error are kept in `out`.
bool convert_nnapi_testmodels(std::string_view source, std::vector<ImportedModel>& out, std::string& error);

struct ImportSummary {
  std::vector<std::string> written;  // paths of the files written
  std::vector<std::string> errors;   // "<file>: <message>"
};

// Converts each file and writes <out_dir>/<name>.nnapi.json (creating out_dir).
ImportSummary import_nnapi_testmodels(const std::vector<std::string>& files, const std::string& out_dir);

}  // namespace condlint
