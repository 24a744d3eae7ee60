// Interpreting a program model (seed 000 notes §3; seed 003 notes §4): run it for N logical
// processes x M logical threads on a machine description and return the Prediction.
#pragma once

#include "parjava/interp/options.hpp"
#include "parjava/interp/prediction.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/model/model.hpp"

namespace parjava::interp {

// Interpret the model's entry function (or options.entry). Throws DeadlockError when every
// unfinished logical thread is blocked, Error(Model) for model defects found while running
// (a message to a rank outside its communicator, an integer division by zero, ...), and
// Error(Usage) for wrong options (unknown parameter, np < 1).
Prediction interpret(const model::Model &model, const machine::Machine &machine,
                     const InterpretOptions &options);

// Partial interpretation (notes 000 §3.4): run only the subtree of `node` on every process,
// with the given variable values as its inputs (`inputs`: variable name -> value, for the
// variables of the node's function or globals). Returns the prediction of that fragment; its
// program_time is the fragment's time, the value a reduced block replacing it would carry.
Prediction interpret_node(const model::Model &model, model::NodeId node,
                          const machine::Machine &machine, const InterpretOptions &options,
                          const std::map<std::string, model::Value> &inputs = {});

} // namespace parjava::interp
