// Values an input file sets by keyword (issue 12, "values read from an input file"): the loop
// over the file's lines tests each line's first word against key literals and converts the
// next word, `if (words[0] == "x_cells") globals.grid.x_cells = std::stoi(words[1]);`
// (UoB-HPC/CloverLeaf's read_input; `strcmp(word, "steps") == 0` in C). Such a read inside that
// loop is configuration, not data that changes: the input named after the variable it sets,
// measured by the estimation run after the loop, and settable with `params=`.
#pragma once

#include <optional>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

namespace parjava::frontend {

// The key literal of the innermost `if` whose then-branch holds `s`, between `s` and the
// nearest enclosing loop, when its condition compares a word of text with a key literal
// (`a == "key"`, `strcmp(a, "key") == 0`, `!strcmp(a, "key")`, `a.compare("key") == 0`);
// nullopt otherwise, and when the test or `value` (what the read converts) reads the command
// line (argv, optarg, a copy named arg...), which the option idioms read.
std::optional<std::string> file_key(const clang::Stmt *s, const clang::Expr *value,
                                    clang::ASTContext &context);

} // namespace parjava::frontend
