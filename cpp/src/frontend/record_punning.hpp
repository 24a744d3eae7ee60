// C-style inheritance by layout (issue 12, state in structs): a program that casts between
// pointers to two records sharing a common initial sequence (CoMD's `BasePotential` and
// `LjPotential`, written as one and read as the other) reads through one field what it wrote
// through the other. The fields of that sequence are one model variable, so a value written as
// `LjPotential::lat` is the value read as `BasePotential::lat` (C11 6.5.2.3p6).
#pragma once

#include "program.hpp"

namespace parjava::frontend {

// Fills program.field_representatives from every pointer cast between two record types in the
// input's units; runs before any variable is declared.
void find_record_punning(Program &program);

} // namespace parjava::frontend
