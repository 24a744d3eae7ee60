// Fields set for several objects (issue 13, honest predictions). A field is one model variable
// shared by every object of its type, so a function that sets it through a parameter for two
// objects leaves the last one's value for both. HPCG's GenerateProblem(A) runs for the fine
// matrix and, through GenerateCoarseProblem, for every coarser level; once its sizes became
// parameters, `A.localNumberOfRows` held the coarsest level's and the fine level's loops ran its
// trip counts (self-check -98 %). Such a field is data, with the calls that set it named, until
// the model keeps a value per object.
#pragma once

#include <string>
#include <vector>

#include <clang/AST/Expr.h>

#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Records `assign`, whose target names field `var`, when its object is a reference or pointer
// parameter of the function being analysed (`A.f`, `a->f`, `(*a).f`); not a constant stored
// where the function releases that object (a destructor's `a->n = 0` after `free(a->data)`).
void note_field_write(VariableResolver &vars, VarId var, const clang::BinaryOperator *assign);

struct SharedField {
  VarId var = kNoVar;
  std::string why;
  clang::SourceLocation where;
  const clang::ASTContext *unit = nullptr;
};

// The fields whose writing functions are reached with two or more different objects (followed
// through parameters passed on unchanged, 8 calls deep).
std::vector<SharedField> fields_of_several_objects(const Program &program);

// After the control analysis: the fields it kept as control variables that are written through
// an element at a run-time index (`tiles[t].t_xmax = x`). The model keeps one value for every
// element, the last written: exact when the elements hold the same value, the last element's
// otherwise. CloverLeaf's tiles (tiles_per_chunk > 1, of unequal sizes) took the last tile's
// bounds without a word. One warning per function and container, naming the fields.
void report_element_fields(Program &program);

// After the control analysis: every input parameter a shared field's values are computed from
// (through any assignment, argument or field, flow-insensitively) lists the field in its
// `measured_through`, so that a prediction at another value of it says what stays measured.
void mark_measured_through(Program &program);

} // namespace parjava::frontend
