// ONNX loader: not implemented yet (issue: ONNX lint). Reports the file as unsupported.
#include "loaders/loader.hpp"

namespace condlint {

std::unique_ptr<Model> load_onnx(const std::string&, const std::string&) { return nullptr; }

}  // namespace condlint
