// The analysis of program inputs (inputs.hpp), one class whose parts live in three files:
// inputs.cpp (which reads are inputs, their defaults, the parameters' names), input_options.cpp
// (the command-line options that select a read, option tables, parsing loops) and
// input_broadcasts.cpp (values rank 0 reads and broadcasts).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include "program.hpp"

namespace parjava::frontend {

class InputAnalysis {
public:
  explicit InputAnalysis(Program &program) : p_(program) {}

  void run();

  // An input replaces what the variable held: `int steps = cfg.nsteps; PARJAVA_PARAM(steps);`
  // or `int n = guess(); fscanf(f, "%d", &n);`. The analysis is per variable, so an earlier
  // definition from data would make every use data; when nothing reads the variable between
  // its earlier definitions and the input (in the same function, outside loops), those
  // definitions are forgotten by the model (their statements keep their time).
  void forget_before(std::uint32_t k);

  bool writes_var(const StructNode &n, VarId v) const;

private:
  struct Tree {
    std::vector<StructIndex> preorder;
    std::map<StructIndex, StructIndex> parent;
    std::set<StructIndex> in_data_loop; // nodes inside a loop that does not parse argv
  };

  // Does every path from `def` pass through `n`: is no branch or loop around `n` that is not
  // around `def` too? (A loop that parses the command line counts as a branch: each option's
  // read runs only when the option is given.)
  bool reaches_unconditionally(const Tree &t, StructIndex def, StructIndex n) const;

  // A definition whose value the model can compute without the input: a constant or an
  // expression of other variables (`int pex = world;`), not data.
  static bool computed_default(const Effect &e);

  // A loop that walks the command line (its condition reads argc, or it calls getopt): reading
  // numbers inside it is parsing inputs, not data changing from one iteration to the next.
  bool parses_command_line(const StructNode &loop) const;

  void walk(FunctionId f);

  // Functions called (directly or not) from inside a data loop run many times: what they read
  // is data of the iteration, not an input of the program.
  void looped_functions();

  void classify(FunctionId f, StructIndex n);

  // A helper that parses one value into its pointer argument (`StrToInt(argv[i + 1],
  // &opts->its)`, whose body does `*retVal = strtol(token, ...)`) reads a different input at
  // every call: the input is the caller's variable, under the caller's option, set when the
  // call returns. The helper's own read becomes the cell's, which nothing else uses.
  void helper_inputs();
  void argument_inputs();
  void flag_inputs();

  // The outermost loop over the command line around node `n` of function `f`, or kNoStruct.
  StructIndex argv_loop(FunctionId f, StructIndex n) const;
  // The innermost loop around node `n` of function `f` (an input file's loop), or kNoStruct.
  StructIndex enclosing_loop(FunctionId f, StructIndex n) const;

  // A value read under an entry of a table of option prefixes (effects.cpp: `sscanf(argv[i] +
  // strlen(cparams[j]), "%d", iparams + j)` inside `for (i...) for (j...)`) holds its value once
  // the loop over argv ends, whichever argument set it: the input moves to a block just after
  // that loop, so the model sets the element there, on every path, and the estimation code reads
  // it there. Earlier writes of the same elements that the model cannot follow (HPCG's
  // positional `sscanf(argv[i+1], "%d", iparams+i)` into an element known only at run time) are
  // what that input replaces: forgotten, with a note. A keyword of an input file (file_keys.hpp)
  // moves the same way to just after the loop over the file's lines.
  void hoist_table_inputs();

  // An option read in the loop over argv (`if (!strcmp(argv[i], "-kba")) kba = atoi(argv[i +
  // 1]);`, a getopt case) that nothing else in that loop writes or reads: the variable holds the
  // option's value once the loop ends, or the program's own when the option is absent. Moved
  // after the loop, the model sets it from its parameter on every path: a command line that
  // gives an option the estimation run did not (or omits one it gave) sets it too, where the
  // branch inside the loop keeps the estimation run's outcomes.
  // Also an option whose variable other branches of the loop write, when nothing there reads
  // it but to update it (XSBench's `-m event` sets lookups to lookups * particles while -l did
  // not come first): given, the option's value holds after the loop whatever the order; absent,
  // the value depends on the other options and their order, so the site joins
  // order_dependent_ and its parameter has no default.
  bool parsed_option(const InputSite &site, StructIndex holder);
  std::set<std::uint32_t> order_dependent_;

  static bool inside(const Tree &t, StructIndex n, StructIndex ancestor);

  void forget_unfollowed_writes(FunctionId f, StructIndex block, const std::set<VarId> &vars);

  // A broadcast of a value every rank already read itself: HPCG parses argv on every rank and
  // broadcasts `iparams` from rank 0 (when it read a file). When the same function reads the
  // variable as an input on a path every rank runs (not under a condition), every rank holds
  // rank 0's value already and the broadcast changes nothing the model computes: it is no input
  // of its own (a note says so).
  void local_broadcasts();

  // Between the read at node `from` and the broadcast at node `to` of function `f`, nothing the
  // program computes depends on the rank: no condition reads a variable derived from it, no
  // assignment uses one. Then every rank holds what rank 0 sends.
  bool same_on_every_rank(FunctionId f, StructIndex from, StructIndex to);

  // No condition of the function decides whether node `n` runs (loops over the command line
  // aside: they run on every rank alike).
  bool unconditional(FunctionId f, StructIndex n) const;

  // The options that select an argv read: the string literals compared in the if around it
  // (`if (!strcmp(argv[i], "-nx")) nx = atoi(argv[++i]);`), or the option characters of the
  // getopt case it is in (with their getopt_long spellings). `position` is set to the place of
  // the value the read at `read` takes after the option (argv_position). `conditional`, when
  // given, is set when another test lies between `n` and the option's (XSBench's `if
  // (default_lookups && default_particles) input.particles = 0;` under `-m event`).
  std::vector<std::string> options_around(FunctionId f, StructIndex n, clang::SourceLocation read,
                                          int &position, bool *conditional = nullptr);

  const std::map<std::int64_t, std::string> &long_options(clang::ASTContext &ctx);

  // An option table entry (`addArg("nSteps", 'N', ..., &cmd.nSteps)`) stores an address; the
  // value arrives when the program parses argv, at the next call of the function that takes
  // argv (`processArgs(argc, argv)`). The input is modelled, and measured, there.
  void defer_registrations(FunctionId f, const std::vector<StructIndex> &order, std::size_t i);

  std::string base_name(const Variable &v) const;

  std::string location(const InputSite &site) const;

  // The constant a variable holds when the program reads an input into it: the last effect on
  // it before, in program order within the reading function, if that is a constant assignment;
  // its initialiser when nothing assigns it before.
  std::optional<double> value_before(const InputSite &site);

  static std::optional<double> constant(const clang::Expr *e, const clang::ASTContext &ctx);
  bool broadcast_expression(InputSite &site);
  // The constant the variable of a broadcast input holds before `definition`, the root's read
  // of it (its last constant assignment before, else its initialiser).
  std::optional<double> value_before_definition(const InputSite &site,
                                                const std::vector<StructIndex> &order,
                                                std::vector<StructIndex>::const_iterator at,
                                                const Effect *definition) const;
  // omp_get_num_procs() / omp_get_max_threads(): a default the prediction's threads give.
  static bool processors_call(const clang::Expr *e);
  static std::optional<double> constructor_default(const clang::FieldDecl *field);

  // The one call of function `g` in the program (caller, ufc node), if there is exactly one.
  std::optional<std::pair<FunctionId, StructIndex>> only_call_of(FunctionId g) const;

  // The definition of a broadcast value the root made last before sending it (the root's own
  // broadcast, in the other branch, is skipped: what it sends is what counts); null when there
  // is none. `order` and `at` are the function's nodes in preorder and the broadcast's place.
  const Effect *sent_definition(const InputSite &site, const std::vector<StructIndex> *&order,
                                std::vector<StructIndex>::const_iterator &at) const;

  // A broadcast value the root copied from another input just before (`params[0] =
  // max_num_blocks; MPI_Bcast(params, ...)`, the root having parsed max_num_blocks) is that
  // input: every rank ends with it, and a new command line changes it.
  VarId broadcast_source(const InputSite &site);

  // A broadcast value the root read from a position of the command line just before
  // (`iterations = atoi(*++argv); ... MPI_Bcast(&iterations, ...)`, every Parallel Research
  // Kernel) is that position's parameter on every rank: a new command line changes it.
  std::string broadcast_argv(const InputSite &site);

  // Does the program change an input after reading it (miniAMR's `if (comm_vars == 0)
  // comm_vars = num_vars;` before rank 0 broadcasts it)? Then what the root sends is not the
  // command line's value: the broadcast gets a parameter of its own, measured where it is sent.
  // Looks at what runs before the broadcast in its function (`order` up to `at`), and at every
  // function those nodes call (`check_input()`).
  bool redefined(VarId v, const std::vector<StructIndex> &order,
                 std::vector<StructIndex>::const_iterator at) const;

  // One parameter per input variable, named after it (`nSteps`, `nx`), with every option that
  // sets it; the variable's source spellings name it too.
  void name_parameters();

  // A warning about an input, at the place the program reads it.
  void parameter_warning(const InputSite &site, const std::string &message);

  Program &p_;
  std::vector<Tree> trees_;
  std::vector<bool> looped_;
  std::map<std::uint32_t, StructIndex> holder_;
  std::set<VarId> rank_derived_; // variables computed from the rank (same_on_every_rank)
  std::vector<std::uint32_t> unparsed_;
  // Broadcasts of an input the root changes before sending it: the input it started from.
  std::map<std::uint32_t, VarId> changed_before_sent_;
  std::map<const clang::ASTContext *, std::map<std::int64_t, std::string>> tables_;
};

} // namespace parjava::frontend
