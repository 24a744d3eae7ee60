#include "expression_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>

#include "compile_time_inputs.hpp"
#include "effects.hpp"
#include "subscripts.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

WriteResult fail(std::string why, const clang::Expr *e) {
  WriteResult r;
  r.why = std::move(why);
  if (e != nullptr) {
    r.where = e->getBeginLoc();
  }
  return r;
}

WriteResult ok(std::string text) {
  WriteResult r;
  r.ok = true;
  r.text = std::move(text);
  return r;
}

bool has_side_effect_free_constant(const clang::Expr *e, const clang::ASTContext &ctx) {
  return !e->isValueDependent() && !e->isTypeDependent() && !e->HasSideEffects(ctx);
}

} // namespace

std::string float_literal(double value) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), value);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  }
  return s;
}

std::string ExpressionWriter::name(VarId var) const {
  const Variable &v = program_.variables[var];
  return v.scope == VarScope::Builtin ? v.builtin : v.model_name;
}

WriteResult ExpressionWriter::variable(VarId var, const clang::Expr *e,
                                       const WriteOptions &o) const {
  if (o.substitutions != nullptr) {
    const auto it = o.substitutions->find(var);
    if (it != o.substitutions->end()) {
      // A loop's own copy of the variable (loop_scopes.hpp) is a variable like any other: it
      // may be data too.
      const auto copies = program_.loop_copies.find(var);
      if (copies != program_.loop_copies.end()) {
        for (VarId inner : copies->second) {
          if (name(inner) == it->second) {
            WriteOptions plain = o;
            plain.substitutions = nullptr;
            return variable(inner, e, plain);
          }
        }
      }
      return ok(it->second);
    }
  }
  const Variable &v = program_.variables[var];
  if (!v.representable) {
    WriteResult r = fail(v.unrepresentable_reason.empty()
                             ? "'" + v.source_name + "' is data the model does not keep"
                             : v.unrepresentable_reason,
                         e);
    if (v.unrepresentable_at.isValid()) {
      r.where = v.unrepresentable_at;
      r.unit = v.unrepresentable_unit;
    }
    return r;
  }
  if (v.type == VarType::Comm || v.type == VarType::Request) {
    return fail("'" + v.source_name + "' is an MPI handle, not a number", e);
  }
  return ok(name(var));
}

WriteResult ExpressionWriter::write(const clang::Expr *e, FunctionId f,
                                    const WriteOptions &options) const {
  if (e == nullptr) {
    return fail("no expression", nullptr);
  }
  return expr(e, f, options, *program_.functions[f].context);
}

WriteResult ExpressionWriter::constant(const clang::Expr *e, clang::ASTContext &unit) const {
  return expr(e, 0, {}, unit);
}

WriteResult ExpressionWriter::expr(const clang::Expr *e, FunctionId f, const WriteOptions &o,
                                   clang::ASTContext &ctx) const {
  e = e->IgnoreParens();
  // MPI constants the model names.
  const std::string macro = macro_name(e, ctx);
  if (macro == "MPI_ANY_SOURCE") {
    return ok("ANY_SOURCE");
  }
  if (macro == "MPI_ANY_TAG") {
    return ok("ANY_TAG");
  }
  if (macro == "MPI_PROC_NULL") {
    return ok("PROC_NULL");
  }
  if (macro == "MPI_UNDEFINED") {
    return ok("-1");
  }
  // A number of the compile line (-D_NX=200) is the parameter named after its macro, and a
  // constant computed from one is the expression it is (compile_time_inputs.hpp).
  if (const auto literal = command_line_literal(e, ctx)) {
    Program::CompileTimeInput &input = program_.compile_time_inputs[literal->macro];
    input.value = literal->value;
    input.floating = literal->floating;
    input.read = true;
    if (input.source.empty()) {
      const clang::SourceManager &sm = ctx.getSourceManager();
      const clang::PresumedLoc at = sm.getPresumedLoc(sm.getExpansionLoc(e->getBeginLoc()));
      if (at.isValid()) {
        input.source =
            program_.source_file(ctx, at.getFilename()) + ":" + std::to_string(at.getLine());
      }
    }
    return ok(literal->negated ? "(-" + literal->macro + ")" : literal->macro);
  }
  if (const clang::Expr *init = compile_time_initializer(e, ctx)) {
    return expr(init, f, o, ctx);
  }
  // Constants (literals, sizeof, enumerators, constexpr) fold to literals.
  if (has_side_effect_free_constant(e, ctx) && !reads_command_line_macro(e, ctx)) {
    const clang::QualType type = e->getType();
    if (type->isIntegralOrEnumerationType()) {
      clang::Expr::EvalResult result;
      if (e->EvaluateAsInt(result, ctx)) {
        // The model's integers are 64-bit signed: XSBench's LCG modulus 2^63 (an unsigned long
        // long) has no value there, and wrapping it to -2^63 would compute another program.
        const std::optional<std::int64_t> value = result.Val.getInt().tryExtValue();
        if (!value) {
          return fail("the constant " + source_text(e, ctx, 30) +
                          " (beyond the model's 64-bit signed integers)",
                      e);
        }
        if (*value == std::numeric_limits<std::int64_t>::min()) {
          return ok("(-9223372036854775807 - 1)"); // the literal 9223372036854775808 is not one
        }
        return ok(std::to_string(*value));
      }
    } else if (type->isRealFloatingType()) {
      llvm::APFloat value(0.0);
      if (e->EvaluateAsFloat(value, ctx) == true) {
        bool lost = false;
        value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
        const double d = value.convertToDouble();
        if (std::isfinite(d)) {
          return ok(float_literal(d));
        }
      }
    }
  }
  VariableResolver vars(program_, ctx, f);
  if (llvm::isa<clang::DeclRefExpr>(e) || llvm::isa<clang::MemberExpr>(e)) {
    if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      if (!llvm::isa<clang::VarDecl>(ref->getDecl())) {
        return fail("'" + ref->getDecl()->getNameAsString() + "' is not a variable", e);
      }
    }
    const VarId var = vars.lvalue(e);
    if (var == kNoVar) {
      return fail("'" + source_text(e, ctx, 40) +
                      "' is data the model does not keep (an "
                      "array, pointer or record)",
                  e);
    }
    if (o.rank_as_peer && program_.variables[var].scope == VarScope::Builtin &&
        program_.variables[var].builtin == "rank") {
      return ok("peer");
    }
    return variable(var, e, o);
  }
  if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const clang::CXXMethodDecl *method = member->getMethodDecl();
    if (method != nullptr && method->getNameAsString() == "size" && member->getNumArgs() == 0) {
      const VarId size = vars.container_size(member->getImplicitObjectArgument());
      if (size != kNoVar) {
        return variable(size, e, o);
      }
    }
  }
  if (const auto *cast = llvm::dyn_cast<clang::CastExpr>(e)) {
    const clang::Expr *sub = cast->getSubExpr();
    switch (cast->getCastKind()) {
    case clang::CK_LValueToRValue:
    case clang::CK_NoOp:
    case clang::CK_IntegralCast:
    case clang::CK_FloatingCast:
    case clang::CK_BooleanToSignedIntegral:
      return expr(sub, f, o, ctx);
    case clang::CK_IntegralToFloating: {
      WriteResult r = expr(sub, f, o, ctx);
      return r.ok ? ok("float(" + r.text + ")") : r;
    }
    case clang::CK_FloatingToIntegral: {
      WriteResult r = expr(sub, f, o, ctx);
      return r.ok ? ok("int(" + r.text + ")") : r;
    }
    case clang::CK_IntegralToBoolean:
    case clang::CK_FloatingToBoolean: {
      WriteResult r = expr(sub, f, o, ctx);
      return r.ok ? ok("(" + r.text + " != 0)") : r;
    }
    case clang::CK_PointerToIntegral: {
      // A pthread worker's `(long)arg`, where the model passes the task number in arg.
      const VarId var = vars.lvalue(sub);
      if (var != kNoVar && program_.variables[var].type == VarType::Integer) {
        return variable(var, e, o);
      }
      return fail("'" + source_text(e, ctx, 40) + "' converts a pointer to an integer", e);
    }
    case clang::CK_ConstructorConversion:
    case clang::CK_UserDefinedConversion:
    default:
      if (const auto *ewc = llvm::dyn_cast<clang::ImplicitCastExpr>(cast)) {
        (void)ewc;
      }
      return fail("'" + source_text(e, ctx, 40) +
                      "' is a conversion the model does not "
                      "follow",
                  e);
    }
  }
  if (const auto *folded = llvm::dyn_cast<clang::ConstantExpr>(e)) {
    return expr(folded->getSubExpr(), f, o, ctx); // an enumerator's value that reads a -D flag
  }
  if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
    return expr(temp->getSubExpr(), f, o, ctx);
  }
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e)) {
    return expr(cleanups->getSubExpr(), f, o, ctx);
  }
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const char *op = nullptr;
    switch (unary->getOpcode()) {
    case clang::UO_Minus:
      op = "-";
      break;
    case clang::UO_Plus:
      return expr(unary->getSubExpr(), f, o, ctx);
    case clang::UO_LNot:
      op = "!";
      break;
    case clang::UO_Not:
      op = "~";
      break;
    case clang::UO_Deref: {
      WriteResult r = element(e, f, o, ctx);
      if (r.ok || !r.why.empty()) {
        return r;
      }
      const VarId var = vars.lvalue(e);
      if (var != kNoVar) {
        return variable(var, e, o); // a pointer that always points at one scalar
      }
      return fail("'" + source_text(e, ctx, 40) +
                      "' reads through a pointer (data the model "
                      "does not keep)",
                  e);
    }
    case clang::UO_PostInc:
    case clang::UO_PostDec:
      if (program_.argument_steps.contains(unary)) {
        return expr(unary->getSubExpr(), f, o, ctx); // stepped after the call
      }
      return fail("'" + source_text(e, ctx, 40) + "' changes a variable inside an expression", e);
    default:
      return fail("'" + source_text(e, ctx, 40) + "' changes a variable inside an expression", e);
    }
    WriteResult r = expr(unary->getSubExpr(), f, o, ctx);
    return r.ok ? ok("(" + std::string(op) + r.text + ")") : r;
  }
  if (const auto *binary = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (binary->isAssignmentOp()) {
      // `m = level = 0`: the value of an assignment is its left side after it (the effects
      // collector records the inner assignment first).
      const VarId target = vars.lvalue(binary->getLHS());
      if (target != kNoVar) {
        return variable(target, e, o);
      }
      return fail("'" + source_text(e, ctx, 40) + "' assigns inside an expression", e);
    }
    if (binary->getOpcode() == clang::BO_Comma) {
      return fail("'" + source_text(e, ctx, 40) + "' uses the comma operator", e);
    }
    if (binary->getOpcode() == clang::BO_PtrMemD || binary->getOpcode() == clang::BO_PtrMemI ||
        binary->getOpcode() == clang::BO_Cmp) {
      return fail("'" + source_text(e, ctx, 40) + "' is not an arithmetic expression", e);
    }
    if (binary->getLHS()->getType()->isPointerType() ||
        binary->getRHS()->getType()->isPointerType()) {
      return fail("'" + source_text(e, ctx, 40) +
                      "' is pointer arithmetic or a pointer "
                      "comparison (data the model does not keep)",
                  e);
    }
    WriteResult l = expr(binary->getLHS(), f, o, ctx);
    if (!l.ok) {
      return l;
    }
    WriteResult r = expr(binary->getRHS(), f, o, ctx);
    if (!r.ok) {
      return r;
    }
    return ok("(" + l.text + " " + std::string(binary->getOpcodeStr()) + " " + r.text + ")");
  }
  if (const auto *cond = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    WriteResult c = expr(cond->getCond(), f, o, ctx);
    if (!c.ok) {
      return c;
    }
    WriteResult t = expr(cond->getTrueExpr(), f, o, ctx);
    if (!t.ok) {
      return t;
    }
    WriteResult x = expr(cond->getFalseExpr(), f, o, ctx);
    if (!x.ok) {
      return x;
    }
    return ok("(" + c.text + " ? " + t.text + " : " + x.text + ")");
  }
  if (is_std_array_access(e)) {
    WriteResult r = element(e, f, o, ctx);
    if (r.ok || !r.why.empty()) {
      return r;
    }
    return fail("'" + source_text(e, ctx, 40) + "' reads a std::array element (data the model " +
                    "does not keep)",
                e);
  }
  if (llvm::isa<clang::CallExpr>(e)) {
    const ClassifiedCall c = calls_.classify(e, ctx);
    switch (c.kind) {
    case CallClass::Math: {
      if (c.math.empty()) {
        return fail("'" + source_text(e, ctx, 40) + "' reads an atomic or container", e);
      }
      if (c.math == "cbrt") {
        // The expression language has no cube root (LULESH: tp = cbrt(numRanks) + 0.5).
        WriteResult a = expr(c.args.front(), f, o, ctx);
        return a.ok ? ok("pow(float(" + a.text + "), " + float_literal(1.0 / 3.0) + ")") : a;
      }
      if (c.args.empty()) {
        return ok(c.math); // a builtin of the model (omp_get_num_procs: nthreads)
      }
      std::string text = c.math + "(";
      for (std::size_t i = 0; i < c.args.size(); ++i) {
        WriteResult a = expr(c.args[i], f, o, ctx);
        if (!a.ok) {
          return a;
        }
        text += (i ? ", " : "") + a.text;
      }
      return ok(text + ")");
    }
    case CallClass::ArgvNumber: {
      const std::string pname = "argv" + std::to_string(c.argv_index);
      if (program_.parameter(pname) == nullptr) {
        ProgramParameter p;
        p.name = pname;
        p.doc = "argv[" + std::to_string(c.argv_index) + "] read as a number by " + c.name + "()";
        p.floating = c.argv_floating;
        program_.add_parameter(std::move(p));
      }
      return ok(c.argv_floating ? "float(" + pname + ")" : pname);
    }
    case CallClass::Accessor:
      // The accessor's own expression, in its own unit; it reads no parameters or locals.
      return expr(c.inline_expr, f, o, *program_.functions[c.user].context);
    case CallClass::InputNumber:
      if (const auto it = program_.argument_inputs.find(e); it != program_.argument_inputs.end()) {
        const InputSite &site = program_.inputs[it->second];
        if (site.setup && !site.parameter.empty()) {
          const bool floating = program_.variables[site.var].type == VarType::Floating;
          return ok(floating ? "float(" + site.parameter + ")" : site.parameter);
        }
      }
      return fail("the number " + c.name + "() reads from '" +
                      source_text(c.args.front(), ctx, 30) +
                      "' (a program input, modelled only when assigned to a variable outside "
                      "loops)",
                  e);
    case CallClass::User: {
      const auto it = program_.call_results.find(e);
      if (it != program_.call_results.end()) {
        return variable(it->second, e, o);
      }
      return fail("the value " + c.name + "() returns", e);
    }
    case CallClass::Mpi:
      return fail("the value " + c.name + "() returns (" +
                      (c.mpi && c.mpi->role == MpiRole::Wtime ? std::string("a clock reading")
                                                              : std::string("an MPI result")) +
                      ")",
                  e);
    default:
      return fail("the value " + c.name + "() returns (an external function)", e);
    }
  }
  if (llvm::isa<clang::ArraySubscriptExpr>(e)) {
    WriteResult r = element(e, f, o, ctx);
    if (r.ok || !r.why.empty()) {
      return r;
    }
    return fail("'" + source_text(e, ctx, 40) +
                    "' reads an array element (data the model "
                    "does not keep)",
                e);
  }
  return fail("'" + source_text(e, ctx, 40) + "' (" + e->getStmtClassName() +
                  ") is not an expression the model can evaluate",
              e);
}

WriteResult ExpressionWriter::flat_index(const std::vector<const clang::Expr *> &indices,
                                         const std::vector<std::uint64_t> &dims,
                                         std::uint64_t offset, FunctionId f, const WriteOptions &o,
                                         clang::ASTContext &ctx) const {
  std::string text;
  for (std::size_t d = 0; d < indices.size(); ++d) {
    WriteResult r = expr(indices[d], f, o, ctx);
    if (!r.ok) {
      return r;
    }
    if (text.empty()) {
      text = r.text;
    } else {
      const std::uint64_t extent = d < dims.size() ? dims[d] : 1;
      text = "(" + text + " * " + std::to_string(extent) + " + " + r.text + ")";
    }
  }
  if (text.empty()) {
    text = "0";
  }
  if (offset != 0) {
    text = "(" + text + " + " + std::to_string(offset) + ")";
  }
  return ok(text);
}

WriteResult ExpressionWriter::element(const clang::Expr *e, FunctionId f, const WriteOptions &o,
                                      clang::ASTContext &ctx) const {
  VariableResolver vars(program_, ctx, f);
  const VariableResolver::ElementAccess access = vars.element_access(e);
  if (!access.valid()) {
    return {};
  }
  const Aggregate &agg = program_.aggregates[access.aggregate];
  if (const auto k = vars.constant_element(access)) {
    return variable(agg.elements[*k], e, o);
  }
  // The index is known only at run time: select the element (seed 000 §3.5 keeps the control
  // variable; scalar replacement makes its elements variables).
  const WriteResult index = flat_index(access.indices, agg.dims, access.offset, f, o, ctx);
  if (!index.ok) {
    return index;
  }
  std::string text;
  for (std::size_t k = agg.elements.size(); k-- > 0;) {
    const WriteResult v = variable(agg.elements[k], e, o);
    if (!v.ok) {
      return v;
    }
    text = text.empty() ? v.text
                        : "(" + index.text + " == " + std::to_string(k) + " ? " + v.text + " : " +
                              text + ")";
  }
  return ok(text);
}

// Cartesian topologies (MPI 4.0 §8.5), row-major: the last dimension varies fastest, so the
// rank of coordinates c is sum c[k] * stride[k] with stride[k] the product of the extents after
// k. Dims follows MPI_Dims_create: entries that are zero on entry are filled with the balanced
// grid of the nodes the others leave (the model's dims_create).
WriteResult ExpressionWriter::topology(const Effect::Grid &g, FunctionId f,
                                       const WriteOptions &o) const {
  std::vector<std::string> d;
  std::vector<std::string> p;
  std::vector<std::string> c;
  for (const auto &[list, out] :
       {std::pair{&g.dims, &d}, std::pair{&g.periods, &p}, std::pair{&g.coords, &c}}) {
    for (VarId v : *list) {
      const WriteResult r = variable(v, nullptr, o);
      if (!r.ok) {
        return r;
      }
      out->push_back(r.text);
    }
  }
  const auto stride = [&](std::size_t k) {
    std::string s;
    for (std::size_t j = k + 1; j < d.size(); ++j) {
      s += (s.empty() ? "" : " * ") + d[j];
    }
    return s.empty() ? std::string("1") : "(" + s + ")";
  };
  const auto wrap = [](const std::string &x, const std::string &n) {
    return "(((" + x + ") % " + n + " + " + n + ") % " + n + ")";
  };
  const std::size_t k = static_cast<std::size_t>(g.axis);
  switch (g.formula) {
  case Effect::Grid::Formula::Coord: {
    const WriteResult r = write(g.value, f, o);
    if (!r.ok) {
      return r;
    }
    return ok("((" + r.text + " / " + stride(k) + ") % " + d[k] + ")");
  }
  case Effect::Grid::Formula::ShiftSource:
  case Effect::Grid::Formula::ShiftDest: {
    WriteResult disp = write(g.disp, f, o);
    if (!disp.ok) {
      return disp;
    }
    const std::string step = g.formula == Effect::Grid::Formula::ShiftDest
                                 ? "(" + disp.text + ")"
                                 : "(-(" + disp.text + "))";
    const std::string mine = "((rank / " + stride(k) + ") % " + d[k] + ")";
    const std::string moved = "(" + mine + " + " + step + ")";
    const std::string periodic =
        "(rank + (" + wrap(moved, d[k]) + " - " + mine + ") * " + stride(k) + ")";
    const std::string open = "((" + moved + " < 0 || " + moved + " >= " + d[k] +
                             ") ? PROC_NULL : (rank + " + step + " * " + stride(k) + "))";
    return ok("(" + p[k] + " != 0 ? " + periodic + " : " + open + ")");
  }
  case Effect::Grid::Formula::Rank: {
    std::string sum;
    for (std::size_t j = 0; j < d.size(); ++j) {
      sum += (sum.empty() ? "" : " + ") + wrap(c[j], d[j]) + " * " + stride(j);
    }
    return ok("(" + sum + ")");
  }
  case Effect::Grid::Formula::Dims: {
    std::string product;
    std::string zeros;
    std::string before;
    for (std::size_t l = 0; l < c.size(); ++l) {
      product +=
          (product.empty() ? "" : " * ") + std::string("(") + c[l] + " != 0 ? " + c[l] + " : 1)";
      zeros += (zeros.empty() ? "" : " + ") + std::string("(") + c[l] + " == 0)";
      if (l < k) {
        before += (before.empty() ? "" : " + ") + std::string("(") + c[l] + " == 0)";
      }
    }
    const WriteResult n = write(g.value, f, o);
    if (!n.ok) {
      return n;
    }
    return ok("(" + c[k] + " != 0 ? " + c[k] + " : dims_create((" + n.text + ") / (" + product +
              "), " + zeros + ", " + (before.empty() ? std::string("0") : before) + "))");
  }
  }
  return fail("unknown topology formula", nullptr);
}

WriteResult ExpressionWriter::datatype_size(const clang::Expr *datatype, FunctionId f) const {
  clang::ASTContext &ctx = *program_.functions[f].context;
  const std::string macro = macro_name(datatype, ctx);
  if (!macro.empty()) {
    if (const auto size = mpi_datatype_size(macro)) {
      return ok(std::to_string(*size));
    }
  }
  const clang::Expr *e = datatype->IgnoreParenCasts();
  // `(sizeof(Real_t) == 4) ? MPI_FLOAT : MPI_DOUBLE`: the branch a constant condition picks.
  if (const auto *choice = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    bool pick = false;
    if (!choice->getCond()->isValueDependent() &&
        choice->getCond()->EvaluateAsBooleanCondition(pick, ctx)) {
      return datatype_size(pick ? choice->getTrueExpr() : choice->getFalseExpr(), f);
    }
  }
  // `TypeTraits<T>::mpi_type()` (miniFE), a function whose body is `return MPI_INT;`: the
  // C++ way to map a template's type to its MPI datatype.
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    const clang::FunctionDecl *def = callee != nullptr ? callee->getDefinition() : nullptr;
    const auto *body =
        def != nullptr ? llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody()) : nullptr;
    if (body != nullptr && body->size() == 1 && &def->getASTContext() == &ctx) {
      if (const auto *ret = llvm::dyn_cast<clang::ReturnStmt>(body->body_front());
          ret != nullptr && ret->getRetValue() != nullptr) {
        const clang::Expr *value = ret->getRetValue()->IgnoreParenCasts();
        if (const std::string inner = macro_name(ret->getRetValue(), ctx); !inner.empty()) {
          if (const auto size = mpi_datatype_size(inner)) {
            return ok(std::to_string(*size));
          }
        }
        if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(value)) {
          if (const auto size = mpi_datatype_size(ref->getDecl()->getNameAsString())) {
            return ok(std::to_string(*size));
          }
        }
      }
    }
  }
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    e = unary->getSubExpr()->IgnoreParenCasts();
  }
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (const auto size = mpi_datatype_size(ref->getDecl()->getNameAsString())) {
      return ok(std::to_string(*size));
    }
  }
  // A datatype variable, or a struct's field that holds one (`grid.flux`, SimpleMOC).
  if (llvm::isa<clang::DeclRefExpr, clang::MemberExpr>(e)) {
    VariableResolver vars(program_, ctx, f);
    const VarId var = vars.lvalue(e);
    if (var != kNoVar && program_.variables[var].type == VarType::Datatype) {
      if (!program_.variables[var].representable) {
        return fail(program_.variables[var].unrepresentable_reason, datatype);
      }
      return ok(name(var));
    }
  }
  return fail("the size of datatype '" + source_text(datatype, ctx, 40) + "' is unknown", datatype);
}

WriteResult ExpressionWriter::effect_value(const Effect &effect, FunctionId f,
                                           const WriteOptions &o) const {
  const std::string self = name(effect.var);
  const Variable &var = program_.variables[effect.var];
  clang::ASTContext &ctx = *program_.functions[f].context;
  switch (effect.kind) {
  case Effect::Kind::Assign:
    if (var.type == VarType::Datatype) {
      return datatype_size(effect.value, f); // a datatype variable holds its size in bytes
    }
    return write(effect.value, f, o);
  case Effect::Kind::Compound: {
    WriteResult r = write(effect.value, f, o);
    if (!r.ok) {
      return r;
    }
    std::string text = "(" + self + " " +
                       std::string(clang::BinaryOperator::getOpcodeStr(effect.op)) + " " + r.text +
                       ")";
    if (var.type == VarType::Integer && effect.value->getType()->isRealFloatingType()) {
      text = "int(" + text + ")";
    }
    return ok(text);
  }
  case Effect::Kind::Increment:
    return ok("(" + self + " + 1)");
  case Effect::Kind::Decrement:
    return ok("(" + self + " - 1)");
  case Effect::Kind::Builtin:
    if (effect.text.rfind("argv", 0) == 0 && program_.parameter(effect.text) == nullptr) {
      ProgramParameter p;
      p.name = effect.text;
      p.doc = "argv[" + effect.text.substr(4) + "] read as a number by sscanf()";
      program_.add_parameter(std::move(p));
    }
    return ok(effect.text);
  case Effect::Kind::Product: {
    std::string text;
    for (const clang::Expr *factor : effect.factors) {
      WriteResult r = write(factor, f, o);
      if (!r.ok) {
        return r;
      }
      text += r.text + " * ";
    }
    WriteResult size = datatype_size(effect.datatype, f);
    if (!size.ok) {
      return size;
    }
    return ok("(" + text + size.text + ")");
  }
  case Effect::Kind::Quotient:
    return fail("a received count", nullptr);
  case Effect::Kind::Operation:
    return ok(self);
  case Effect::Kind::Element: {
    const Aggregate &agg = program_.aggregates[effect.aggregate];
    const WriteResult index = flat_index(effect.indices, agg.dims, effect.offset, f, o, ctx);
    if (!index.ok) {
      return index;
    }
    std::string value;
    switch (effect.element_kind) {
    case Effect::Kind::Increment:
      value = "(" + self + " + 1)";
      break;
    case Effect::Kind::Decrement:
      value = "(" + self + " - 1)";
      break;
    case Effect::Kind::Compound: {
      const WriteResult r = write(effect.value, f, o);
      if (!r.ok) {
        return r;
      }
      value = "(" + self + " " + std::string(clang::BinaryOperator::getOpcodeStr(effect.op)) + " " +
              r.text + ")";
      break;
    }
    default: {
      const WriteResult r = write(effect.value, f, o);
      if (!r.ok) {
        return r;
      }
      value = r.text;
      break;
    }
    }
    if (var.type == VarType::Integer && effect.value != nullptr &&
        effect.value->getType()->isRealFloatingType()) {
      value = "int(" + value + ")";
    }
    return ok("(" + index.text + " == " + std::to_string(effect.element) + " ? " + value + " : " +
              self + ")");
  }
  case Effect::Kind::Copy:
    return variable(effect.source, nullptr, o);
  case Effect::Kind::Topology:
    return topology(effect.grid, f, o);
  case Effect::Kind::Input: {
    const InputSite &site = program_.inputs[effect.input];
    if (!site.setup || site.parameter.empty()) {
      WriteResult r = fail("'" + var.source_name + "' is read by " + site.what +
                               (site.setup ? std::string()
                                           : " inside a loop (data that changes, not a "
                                             "program input)"),
                           nullptr);
      r.where = effect.location;
      return r;
    }
    if (site.broadcast_value != nullptr) {
      std::map<VarId, std::string> subs =
          o.substitutions != nullptr ? *o.substitutions : std::map<VarId, std::string>{};
      for (const auto &[v, text] : site.broadcast_inputs) {
        subs[v] = text;
      }
      WriteOptions with = o;
      with.substitutions = &subs;
      WriteResult r = write(site.broadcast_value, site.function, with);
      if (r.ok && var.type == VarType::Integer &&
          site.broadcast_value->getType()->isRealFloatingType()) {
        r.text = "int(" + r.text + ")";
      }
      return r;
    }
    if (site.processors_default) {
      // Absent (0, its default): the processors the program finds, the prediction's threads.
      return ok("(" + site.parameter + " > 0 ? " + site.parameter + " : nthreads)");
    }
    return ok(var.type == VarType::Floating ? "float(" + site.parameter + ")" : site.parameter);
  }
  case Effect::Kind::Havoc: {
    WriteResult r = fail("'" + var.source_name + "' is " + effect.text, nullptr);
    r.where = effect.location;
    (void)ctx;
    return r;
  }
  }
  return fail("unknown effect", nullptr);
}

} // namespace parjava::frontend
