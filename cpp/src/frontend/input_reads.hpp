// How the effects collector recognises program inputs (issue 12, program inputs become
// parameters): the Input effect and its InputSite, the conversions of the command line
// (`atoi(argv[k])`, `c ? atoi(..) : 64`, getenv's text), the literals of option registrations,
// and the tables of option prefixes HPCG parses with (`sscanf(argv[i] + strlen(cparams[j]),
// "%d", iparams + j)`). inputs.cpp decides afterwards which reads are parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <clang/AST/Expr.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// An Input effect for `var` and the InputSite that says how it is read.
Effect input(VariableResolver &vars, VarId var, std::string how, std::string what,
             const std::string &spelling, clang::SourceLocation where);

// `base + j` / `&base[j]` with `base` a pointer into an aggregate and `j` known only at run
// time: the aggregate, the offset of `base` in it and the index expression; none otherwise.
struct DynamicElement {
  AggregateId aggregate = kNoAggregate;
  std::uint64_t offset = 0;
  const clang::Expr *index = nullptr;
};

DynamicElement dynamic_element(const clang::Expr *arg, VariableResolver &vars);

// The string literals of a constant table of option prefixes that `table[j]` reads (`e`, with
// `index` the j); empty when `e` is no such read.
std::vector<std::string> option_table(const clang::Expr *e, const clang::ValueDecl *index);

// The prefixes a text `argv[i] + strlen(table[j])` skips, for the index expression `index`.
std::vector<std::string> prefix_table(const clang::Expr *text, const clang::Expr *index);

// The option ("--nx") and the parameter name ("nx") of a prefix ("--nx="); none if unusable.
std::optional<std::pair<std::string, std::string>> prefix_option(const std::string &prefix);

// The literals of a call that describe a command-line option: identifier-like strings are
// long options ("nSteps" -> "--nSteps"), character literals short ones ('N' -> "-N"), and the
// longest string with spaces is the option's help text.
struct OptionLiterals {
  std::vector<std::string> options;
  std::string doc;
  std::string first_word;
};

OptionLiterals option_literals(const std::vector<const clang::Expr *> &args);

// Whether `value` converts the command line's text to a number (atoi, strtol, ... of argv, or
// `argc > 1 ? atoi(argv[1]) : 64`).
bool is_input_conversion(const clang::Expr *value, const CallClassifier &calls,
                         clang::ASTContext &context);

// The one input conversion inside arithmetic on it (`std::stoi(words[1]) / parallel.max_task`,
// CloverLeaf's tiles_per_problem), nullptr when there is none or more than one, or when `value`
// is the conversion itself.
const clang::Expr *conversion_within(const clang::Expr *value, const CallClassifier &calls,
                                     clang::ASTContext &context);

// "environment" when the converted text is getenv()'s, else "argv".
std::string input_origin(const clang::Expr *value);

} // namespace parjava::frontend
