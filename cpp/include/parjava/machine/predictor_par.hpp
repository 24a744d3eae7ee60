// Reader for the DVM predictor's configuration file Predictor.par (seed 002 §1.3.2):
//
//   // System type = network | transputer
//   type = network;
//   // Communication characteristics (mks)
//   start time = 75;
//   send byte time = 0.2;
//   // Comparative processors performance
//   power = 1.00;
//   // Topology - optional
//   topology = {2, 2};
//
// Syntax: `//` starts a comment to the end of the line; statements `name = value;` in any order,
// names may contain spaces and are compared ignoring case and repeated blanks; a statement may
// span lines. Mapping to a Machine (seed 002 §8 formula 1, T = start_time + n * send_byte_time):
//  * `start time` [µs]      -> Hockney latency = start_time * 1e-6 s (both networks);
//  * `send byte time` [µs]  -> Hockney bandwidth = 1 / (send_byte_time * 1e-6) bytes/s;
//  * `power`                -> Machine::power (same meaning, see machine.hpp);
//  * `topology = {d1,...}`  -> one rank per node, nodes = d1 * d2 * ... (the virtual processor
//                              system of the DVM program; the product is the processor count);
//                              without it, one node of one rank;
//  * `type`                 -> network or transputer, recorded in the description. The DVM
//                              network/transputer difference is about collective exchanges
//                              (bus vs. pipelined grid, seed 002 §4.2.3), not point-to-point
//                              cost, so both map to the same Hockney model.
// DVM has no eager limit and no thread costs. Its cost model never makes a sender wait for its
// receiver, which is eager behaviour for every size, so the eager limit is `unlimited_eager`;
// the thread costs are 0. The description says both. Required: `start time`, `send byte time`,
// `power`; a missing one is an error, as are unknown names and duplicates.
#pragma once

#include <string>
#include <string_view>

#include "parjava/machine/machine.hpp"

namespace parjava::machine {

Machine machine_from_predictor_par(std::string_view text, std::string_view origin = "<string>");
Machine read_predictor_par(const std::string &path);

} // namespace parjava::machine
