// NNAPI loader: not implemented yet (issue: NNAPI lint). Reports the file as unsupported.
#include "loaders/loader.hpp"

namespace condlint {

std::unique_ptr<Model> load_nnapi(const std::string&, const std::string&) { return nullptr; }

}  // namespace condlint
