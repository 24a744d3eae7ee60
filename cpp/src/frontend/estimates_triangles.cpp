#include "estimates_triangles.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "parjava/model/expression.hpp"
#include "text_format.hpp"

namespace parjava::frontend {

namespace {

using model::ExprKind;
using model::ExprNode;
using model::ExprOp;

// Values of the names an expression reads: the counter's, and for every other name a large
// value of its own, so that clamps such as max(0, n - i - 1) sit where the loop runs.
using Values = std::map<std::string, double>;

std::optional<double> evaluate(const ExprNode &e, const Values &values) {
  const auto arg = [&](std::size_t k) {
    return k < e.args.size() ? evaluate(e.args[k], values) : std::nullopt;
  };
  switch (e.kind) {
  case ExprKind::IntLiteral:
    return static_cast<double>(e.int_value);
  case ExprKind::FloatLiteral:
    return e.float_value;
  case ExprKind::Name: {
    const auto it = values.find(e.name);
    return it == values.end() ? std::nullopt : std::optional<double>(it->second);
  }
  case ExprKind::Unary: {
    const auto a = arg(0);
    if (!a || e.op != ExprOp::Negate) {
      return std::nullopt;
    }
    return -*a;
  }
  case ExprKind::Binary: {
    const auto a = arg(0);
    const auto b = arg(1);
    if (!a || !b) {
      return std::nullopt;
    }
    switch (e.op) {
    case ExprOp::Add:
      return *a + *b;
    case ExprOp::Subtract:
      return *a - *b;
    case ExprOp::Multiply:
      return *a * *b;
    case ExprOp::Divide:
      return *b == 0.0 ? std::nullopt : std::optional<double>(*a / *b);
    default:
      return std::nullopt; // comparisons, bit operations: not an affine count
    }
  }
  case ExprKind::Ternary:
    return std::nullopt;
  case ExprKind::Call: {
    if ((e.name == "max" || e.name == "min") && e.args.size() == 2) {
      const auto a = arg(0);
      const auto b = arg(1);
      if (!a || !b) {
        return std::nullopt;
      }
      return e.name == "max" ? std::max(*a, *b) : std::min(*a, *b);
    }
    if ((e.name == "int" || e.name == "float" || e.name == "abs") && e.args.size() == 1) {
      const auto a = arg(0);
      if (!a) {
        return std::nullopt;
      }
      return e.name == "abs" ? std::fabs(*a) : *a;
    }
    return std::nullopt;
  }
  }
  return std::nullopt;
}

// `text` with every occurrence of the identifier `name` replaced by `by`.
std::string substitute(const std::string &text, const std::string &name, const std::string &by) {
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
  };
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, name.size(), name) == 0 && (i == 0 || !word(text[i - 1])) &&
        (i + name.size() == text.size() || !word(text[i + name.size()]))) {
      out += "(" + by + ")";
      i += name.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

} // namespace

std::string mean_over_enclosing(const std::string &trips,
                                const std::vector<EnclosingCounter> &outer,
                                const SlotMeasurement &inner) {
  model::Expression expr;
  try {
    expr = model::Expression::parse(trips, "trip count");
  } catch (const std::exception &) {
    return {};
  }
  const std::vector<std::string> names = expr.names();
  const EnclosingCounter *counter = nullptr;
  for (const EnclosingCounter &o : outer) {
    for (const std::string &n : names) {
      if (n == o.variable) {
        if (counter != nullptr && counter != &o) {
          return {}; // two counters: not a triangle
        }
        counter = &o;
      }
    }
  }
  if (counter == nullptr || counter->variable.empty() || counter->trips.empty() ||
      counter->measured_trips <= 1.0 || inner.count == 0) {
    return {};
  }
  Values values;
  double big = 1073741824.0; // 2^30, then apart by a prime per name
  for (const std::string &n : names) {
    if (n != counter->variable) {
      values[n] = big;
      big += 7919.0;
    }
  }
  // The counter's first value and step, with the same values for the other names.
  std::optional<double> first;
  std::optional<double> step;
  try {
    first = evaluate(model::Expression::parse(counter->init, "init").root(), values);
    Values at = values;
    at[counter->variable] = 0.0;
    const model::Expression update = model::Expression::parse(counter->update, "update");
    const auto u0 = evaluate(update.root(), at);
    at[counter->variable] = 1.0;
    const auto u1 = evaluate(update.root(), at);
    if (u0 && u1 && *u1 - *u0 == 1.0) {
      step = *u0; // i = i + c
    }
  } catch (const std::exception &) {
    return {};
  }
  if (!first || !step || *step == 0.0) {
    return {};
  }
  // Affine in the counter where the loop runs: the same slope between every pair of points.
  const auto at = [&](double k) {
    Values v = values;
    v[counter->variable] = *first + k * *step;
    return evaluate(expr.root(), v);
  };
  const auto f0 = at(0.0);
  const auto f1 = at(1.0);
  const auto f2 = at(2.0);
  const auto f1000 = at(1000.0);
  if (!f0 || !f1 || !f2 || !f1000) {
    return {};
  }
  const double slope = *f1 - *f0; // per iteration of the outer loop
  const double tolerance = 1e-9 * std::max(1.0, std::fabs(*f0));
  if (slope == 0.0 || std::fabs((*f2 - *f1) - slope) > tolerance ||
      std::fabs((*f1000 - *f0) - 1000.0 * slope) > 1000.0 * tolerance) {
    return {};
  }
  // What the run measured must be such a sweep: its variance over the inner loop's executions
  // that of an affine count over T uniformly spaced counters (a clamp that cut the sweep, or
  // a counter that jumped, shows as another variance).
  const double n = static_cast<double>(inner.count);
  const double mean = static_cast<double>(inner.sum) / n;
  const double variance = inner.sumsq / n - mean * mean;
  const double t = counter->measured_trips;
  const double expected = slope * slope * (t * t - 1.0) / 12.0;
  if (!(variance > 0.0) || std::fabs(variance / expected - 1.0) > 0.25) {
    return {};
  }
  const std::string middle = "(" + counter->init + ") + (" + model_number(*step) + ") * ((" +
                             counter->trips + ") - 1) / 2.0";
  return substitute(trips, counter->variable, middle);
}

} // namespace parjava::frontend
