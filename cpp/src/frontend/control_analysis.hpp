// The control-variable analysis and reduction of seed 000 notes §3.5 (Akopyan §4.2):
//  1. representability: a variable the model can compute has only definitions it can write
//     (assignments from tracked variables, parameters, rank/size); anything fed by arrays,
//     pointers, received data or external calls is data, and conditions reading it are opaque;
//  2. the backward search for control variables, per function (In/Out sets over the control
//     tree), interprocedural through global control variables (GCVariables), control
//     parameters (ControlParams) and control-return functions (ControlReturnMethods), iterated
//     to a global fixpoint;
//  3. classification: a definition is kept iff it reaches a control use (a condition, an MPI
//     argument, a control parameter of a call, a control return); the rest is reduced away
//     with the data it touches.
#pragma once

#include "calls.hpp"
#include "expression_writer.hpp"
#include "program.hpp"

namespace parjava::frontend {

void analyse_control(Program &program, const ExpressionWriter &writer);

} // namespace parjava::frontend
