// Which If branches a failed run went through on its way to the node that failed: a run that fails at a node after
// an If (a consumer that one branch breaks, rule C014) says under which branch of which If it failed, so the static
// finding and the run name the same consumer and the same branch.
#pragma once

#include "exec/runner.hpp"
#include "model/model.hpp"

namespace condlint::exec {

// For every case of `r` that failed at a node ("at PATH (OP): ..."): the Ifs whose outputs reach that node (the
// nearest on each path back through its inputs) that ran one branch in that case are named in its message ("at
// main/proj (MatMul), under the else branch of If 'main/pick': ...").
void name_branches_of_failures(const Model& m, ModelResult& r);

}  // namespace condlint::exec
