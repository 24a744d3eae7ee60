// Which C/C++ variables the control-variable analysis tracks and how expressions name them:
// scalars (integers, floating point), MPI handles (communicators, requests, datatypes), the
// MPI_SOURCE/MPI_TAG fields of a status, class fields (one variable per field, notes 000 §3.5
// global control variables; one per object for the struct objects record_copies.hpp follows),
// std::vector sizes, and main's argc. Arrays, pointers and records are data: the model never
// keeps them (notes 000 §3.5: large arrays vanish).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include "program.hpp"

namespace parjava::frontend {

VarType classify_type(clang::QualType type);

// An lvalue reference to an arithmetic type (`int &left`, `const double &dt`): a parameter of
// that type names the caller's variable (aliases.cpp gives it a cell or the variable itself).
bool is_scalar_reference(clang::QualType type);

// True for declarations that name the same object in every translation unit: globals with
// external linkage and fields (one variable per field, whatever the object).
bool program_wide(const clang::ValueDecl *decl);

// The variable a plain name denotes once parentheses and implicit casts are removed (`i`, `(n)`),
// nullptr for anything else (a field, an element, a call): loop shapes and OpenMP trip counts
// recognise their index variable with it.
const clang::VarDecl *named_variable(const clang::Expr *e);

class VariableResolver {
public:
  VariableResolver(Program &program, clang::ASTContext &context, FunctionId function)
      : program_(program), context_(context), function_(function) {}

  // The variable an lvalue expression names (x, obj.field, this->field, status.MPI_SOURCE),
  // registering it on first sight; kNoVar for array elements, dereferences and untracked types.
  VarId lvalue(const clang::Expr *expr);
  // Register a declared variable (locals, parameters, globals) and return its id; kNoVar for
  // types the analysis does not track.
  VarId declare(const clang::ValueDecl *decl);
  // Every tracked variable `expr` reads, appended to `out` without repeats.
  void uses(const clang::Expr *expr, std::vector<VarId> &out);
  // The size variable of a std::vector object expression ("u.size()"), kNoVar if `expr` is not
  // a named vector.
  VarId container_size(const clang::Expr *container);
  VarId container_size_of(const clang::ValueDecl *decl);
  // A field of a local struct object the model follows (record_copies.hpp): a local of the
  // object's function named `object.field`.
  VarId object_field(const clang::VarDecl *object, const clang::FieldDecl *field);
  // The value a program function returning a plain struct gives for one field: a global the
  // function's returns set and its callers copy from.
  VarId returned_field(FunctionId function, const clang::FieldDecl *field);
  // The cell through which calls pass one field of a program function's by-value struct
  // parameter: a global every call sets and the callee reads on entry.
  VarId parameter_cell(FunctionId function, unsigned index, const clang::FieldDecl *field);
  // The variable of a status field: `status` is the MPI_Status object expression.
  VarId status_field(const clang::Expr *status, const std::string &field);

  // Scalar replacement of aggregates (Program::aggregates). The aggregate a declaration of a
  // small array of scalars is, registered on first sight; kNoAggregate for anything else.
  AggregateId aggregate(const clang::ValueDecl *decl);
  // An element access `a[i][j]`, `p[k]` or `*p` (through fields and known pointers): the
  // aggregate, the index expressions (outermost first) and the pointer's offset. Invalid
  // (kNoAggregate) when the expression is not a whole element of a known aggregate.
  struct ElementAccess {
    AggregateId aggregate = kNoAggregate;
    std::vector<const clang::Expr *> indices;
    std::uint64_t offset = 0;
    [[nodiscard]] bool valid() const { return aggregate != kNoAggregate; }
  };
  ElementAccess element_access(const clang::Expr *expr);
  // The element an access denotes when every index is a constant.
  std::optional<std::uint64_t> constant_element(const ElementAccess &access) const;
  // What a pointer-valued expression points at: an array (`nbr`, `s->grid`, `&grid[1]`), a
  // tracked scalar (`&n`), or what a known pointer points at.
  std::optional<AliasTarget> pointer_target(const clang::Expr *expr);

  [[nodiscard]] FunctionId function() const { return function_; }
  [[nodiscard]] clang::ASTContext &context() const { return context_; }
  [[nodiscard]] Program &program() const { return program_; }

private:
  VarId field(const clang::FieldDecl *field);
  Program &program_;
  clang::ASTContext &context_;
  FunctionId function_;
};

// The MPI handle typedef a type is spelled with ("MPI_Comm", "MPI_Group"), "" for none.
std::string mpi_typedef_name(clang::QualType type);

// An element of an array of communicators (`comms[level]`, `&comms[n + 1]`, `s->comms[k]`): the
// array's declaration -- a fixed-size array of MPI_Comm, or a pointer to MPI_Comm that is not a
// parameter (miniAMR's `comms = malloc(...)`) -- and the index. Empty for anything else.
struct CommElement {
  const clang::ValueDecl *array = nullptr;
  const clang::Expr *index = nullptr;
  bool parameter = false; // `MPI_Comm *c` of a function: which array it points to is not known
  [[nodiscard]] bool valid() const { return array != nullptr; }
};
CommElement comm_element(const clang::Expr *expr);

// The declaration a name or member access names (`x`, `s->field`), null for anything else.
const clang::ValueDecl *named_decl(const clang::Expr *expr);

// The source text of an expression or statement (for labels and messages), at most `limit`
// characters.
std::string source_text(const clang::Stmt *stmt, const clang::ASTContext &context,
                        std::size_t limit = 60);

} // namespace parjava::frontend
