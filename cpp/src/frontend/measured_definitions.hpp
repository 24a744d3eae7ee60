// Control variables that another path sets from data (issue 12, state real programs keep).
//
// SimpleMOC computes its track count from the input (`I->ntracks_2D = I->n_azimuthal *
// (I->assembly_width * sqrt(2) / I->radial_ray_sep)`, init.c) unless the command line names a
// tracking file, whose loader sums the file's counts into the same field (`I->ntracks_2D +=
// num_tracks[i]`, tracks.c). A variable is control or data as a whole (seed 000 notes §3.5,
// representability), so the loader's one data assignment made the field data everywhere: every
// loop over the tracks was measured at the estimation's input, and another input kept its
// counts without a word. Here such an assignment, made once in set-up code by another function
// than the one that computes the variable, takes the value the estimation run measures after
// it, a program input of its own (Program::inputs, how "measured"); the variable stays control
// and the path the run took computes it at any input.
#pragma once

#include "expression_writer.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Before the representability fixpoint of the control analysis: turns qualifying data
// assignments into measured inputs, with a note at each.
void measure_alternative_definitions(Program &program, const ExpressionWriter &writer);

} // namespace parjava::frontend
