// NNAPI-specific facts recorded by the NNAPI loader for the NNAPI rules.
#pragma once

#include "model/model.hpp"

namespace condlint {

struct NnapiData {};

}  // namespace condlint
