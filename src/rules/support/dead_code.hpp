// Shared by the rules that stay silent in code that never runs (C011, C012): one root cause, one finding.
#pragma once

#include <vector>

#include "model/model.hpp"

namespace condlint {

// Per graph of `m`: whether it never runs because it is, or is nested in, a branch C012 proves dead (a conditional
// whose condition is decided, with two different branch graphs). NNAPI subgraphs are never counted dead: one may be
// the branch of several IFs, and dead for one of them is not dead for all.
std::vector<bool> dead_graphs(const Model& m);

}  // namespace condlint
