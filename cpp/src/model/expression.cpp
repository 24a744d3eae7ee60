// Parser of the expression language: a precedence-climbing parser over C's operator table.
#include "parjava/model/expression.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parjava/error.hpp"

namespace parjava::model {

namespace {

constexpr std::array<std::string_view, 10> kBuiltins = {
    "rank", "size",   "thread",     "nthreads", "peer",
    "task", "ntasks", "ANY_SOURCE", "ANY_TAG",  "PROC_NULL"};
constexpr std::array<std::string_view, 15> kFunctions = {
    "min", "max", "abs",  "floor", "ceil", "round", "trunc",      "log2",
    "log", "exp", "sqrt", "pow",   "int",  "float", "dims_create"};
constexpr std::array<std::string_view, 2> kKeywords = {"true", "false"};

bool contains(auto const &list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

struct BinaryOperator {
  std::string_view token;
  ExprOp op;
  int precedence; // higher binds tighter
};

// C precedence, loosest first; `?:` is handled separately below `||`.
constexpr std::array<BinaryOperator, 19> kBinary = {{
    {"||", ExprOp::Or, 1},        {"&&", ExprOp::And, 2},        {"|", ExprOp::BitOr, 3},
    {"^", ExprOp::BitXor, 4},     {"&", ExprOp::BitAnd, 5},      {"==", ExprOp::Equal, 6},
    {"!=", ExprOp::NotEqual, 6},  {"<=", ExprOp::LessEqual, 7},  {">=", ExprOp::GreaterEqual, 7},
    {"<<", ExprOp::ShiftLeft, 8}, {">>", ExprOp::ShiftRight, 8}, {"<", ExprOp::Less, 7},
    {">", ExprOp::Greater, 7},    {"+", ExprOp::Add, 9},         {"-", ExprOp::Subtract, 9},
    {"*", ExprOp::Multiply, 10},  {"/", ExprOp::Divide, 10},     {"%", ExprOp::Remainder, 10},
    {"**", ExprOp::None, 0}, // never matched: listed so "**" is rejected with a clear message
}};

class Parser {
public:
  Parser(std::string_view text, std::string_view where) : text_(text), where_(where) {}

  ExprNode parse_all() {
    skip_space();
    if (pos_ >= text_.size()) {
      fail("empty expression");
    }
    ExprNode node = parse_ternary();
    skip_space();
    if (pos_ < text_.size()) {
      fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    }
    return node;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw Error(ErrorKind::Model, std::string(where_) + ": " + what + " at column " +
                                      std::to_string(pos_ + 1) + " of \"" + std::string(text_) +
                                      "\"");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) {
      ++pos_;
    }
  }

  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  ExprNode parse_ternary() {
    ExprNode cond = parse_binary(1);
    if (!accept("?")) {
      return cond;
    }
    ExprNode yes = parse_ternary();
    if (!accept(":")) {
      fail("expected ':' of the conditional operator");
    }
    ExprNode no = parse_ternary();
    ExprNode node;
    node.kind = ExprKind::Ternary;
    node.args.push_back(std::move(cond));
    node.args.push_back(std::move(yes));
    node.args.push_back(std::move(no));
    return node;
  }

  // Finds the binary operator at the cursor with precedence >= min, longest token first.
  const BinaryOperator *peek_binary(int min_precedence) {
    skip_space();
    const BinaryOperator *best = nullptr;
    for (const auto &candidate : kBinary) {
      if (text_.substr(pos_, candidate.token.size()) == candidate.token &&
          (best == nullptr || candidate.token.size() > best->token.size())) {
        best = &candidate;
      }
    }
    if (best != nullptr && best->op == ExprOp::None) {
      fail("'**' is not an operator: use pow(a, b)");
    }
    // "&" and "|" must not steal the first character of "&&" / "||" (handled by longest match),
    // and "=" alone is an assignment, which expressions do not have.
    if (best == nullptr && text_.substr(pos_, 1) == "=") {
      fail("'=' is not a comparison: use '=='");
    }
    if (best == nullptr || best->precedence < min_precedence) {
      return nullptr;
    }
    return best;
  }

  ExprNode parse_binary(int min_precedence) {
    ExprNode left = parse_unary();
    while (const BinaryOperator *op = peek_binary(min_precedence)) {
      pos_ += op->token.size();
      ExprNode right = parse_binary(op->precedence + 1);
      ExprNode node;
      node.kind = ExprKind::Binary;
      node.op = op->op;
      node.args.push_back(std::move(left));
      node.args.push_back(std::move(right));
      left = std::move(node);
    }
    return left;
  }

  ExprNode parse_unary() {
    skip_space();
    ExprOp op = ExprOp::None;
    if (accept("-")) {
      op = ExprOp::Negate;
    } else if (accept("!")) {
      op = ExprOp::Not;
    } else if (accept("~")) {
      op = ExprOp::BitNot;
    } else if (accept("+")) {
      return parse_unary();
    }
    if (op == ExprOp::None) {
      return parse_primary();
    }
    ExprNode operand = parse_unary();
    // Fold negative literals so "-1" stays a literal (ANY_SOURCE-style constants, JSON output).
    if (op == ExprOp::Negate && operand.kind == ExprKind::IntLiteral) {
      operand.int_value = -operand.int_value;
      return operand;
    }
    if (op == ExprOp::Negate && operand.kind == ExprKind::FloatLiteral) {
      operand.float_value = -operand.float_value;
      return operand;
    }
    ExprNode node;
    node.kind = ExprKind::Unary;
    node.op = op;
    node.args.push_back(std::move(operand));
    return node;
  }

  ExprNode parse_number() {
    const char *begin = text_.data() + pos_;
    std::size_t end = pos_;
    bool is_float = false;
    while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end])) != 0) {
      ++end;
    }
    if (end < text_.size() && text_[end] == '.') {
      is_float = true;
      ++end;
      while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end])) != 0) {
        ++end;
      }
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      std::size_t exp = end + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) {
        ++exp;
      }
      if (exp < text_.size() && std::isdigit(static_cast<unsigned char>(text_[exp])) != 0) {
        is_float = true;
        end = exp;
        while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end])) != 0) {
          ++end;
        }
      }
    }
    std::string literal(begin, end - pos_);
    ExprNode node;
    errno = 0;
    if (is_float) {
      node.kind = ExprKind::FloatLiteral;
      node.float_value = std::strtod(literal.c_str(), nullptr);
    } else {
      node.kind = ExprKind::IntLiteral;
      node.int_value = std::strtoll(literal.c_str(), nullptr, 10);
    }
    if (errno == ERANGE) {
      fail("number " + literal + " is out of range");
    }
    pos_ = end;
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      fail("unexpected letter after the number " + literal);
    }
    return node;
  }

  ExprNode parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) {
      fail("expression ends too early");
    }
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      ExprNode inner = parse_ternary();
      if (!accept(")")) {
        fail("expected ')'");
      }
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
      return parse_number();
    }
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      const std::size_t begin = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name(text_.substr(begin, pos_ - begin));
      if (name == "true" || name == "false") {
        ExprNode node;
        node.kind = ExprKind::IntLiteral;
        node.int_value = name == "true" ? 1 : 0;
        return node;
      }
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '(') {
        if (!contains(kFunctions, name)) {
          pos_ = begin;
          fail("unknown function '" + name +
               "' (known: min max abs floor ceil round trunc log2 log exp sqrt pow int float)");
        }
        ++pos_;
        ExprNode node;
        node.kind = ExprKind::Call;
        node.name = std::move(name);
        if (!accept(")")) {
          do {
            node.args.push_back(parse_ternary());
          } while (accept(","));
          if (!accept(")")) {
            fail("expected ')' or ',' in the arguments of " + node.name);
          }
        }
        check_arity(node, begin);
        return node;
      }
      ExprNode node;
      node.kind = ExprKind::Name;
      node.name = std::move(name);
      return node;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  void check_arity(const ExprNode &call, std::size_t at) {
    const std::size_t n = call.args.size();
    bool ok = true;
    if (call.name == "min" || call.name == "max") {
      ok = n >= 2;
    } else if (call.name == "pow") {
      ok = n == 2;
    } else if (call.name == "dims_create") {
      ok = n == 3;
    } else {
      ok = n == 1;
    }
    if (!ok) {
      pos_ = at;
      fail("wrong number of arguments (" + std::to_string(n) + ") to " + call.name);
    }
  }

  std::string_view text_;
  std::string_view where_;
  std::size_t pos_ = 0;
};

void collect_names(const ExprNode &node, std::vector<std::string> &out) {
  if (node.kind == ExprKind::Name && std::find(out.begin(), out.end(), node.name) == out.end()) {
    out.push_back(node.name);
  }
  for (const auto &arg : node.args) {
    collect_names(arg, out);
  }
}

} // namespace

Expression Expression::parse(std::string_view text, std::string_view where) {
  Expression e;
  e.root_ = Parser(text, where).parse_all();
  e.text_ = std::string(text);
  return e;
}

Expression Expression::of_tree(ExprNode root, std::string text) {
  Expression e;
  e.root_ = std::move(root);
  e.text_ = std::move(text);
  return e;
}

Expression Expression::constant(std::int64_t value) {
  Expression e;
  e.root_.kind = ExprKind::IntLiteral;
  e.root_.int_value = value;
  e.text_ = std::to_string(value);
  return e;
}

Expression Expression::constant(double value) {
  Expression e;
  e.root_.kind = ExprKind::FloatLiteral;
  e.root_.float_value = value;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  std::string text(buffer);
  if (text.find_first_of(".eEn") == std::string::npos) {
    text += ".0"; // keep it a float when parsed back
  }
  e.text_ = text;
  return e;
}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> out;
  if (!text_.empty()) {
    collect_names(root_, out);
  }
  return out;
}

bool is_builtin_name(std::string_view name) { return contains(kBuiltins, name); }

bool is_valid_variable_name(std::string_view name) {
  if (name.empty() || (std::isalpha(static_cast<unsigned char>(name[0])) == 0 && name[0] != '_')) {
    return false;
  }
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') {
      return false;
    }
  }
  return !is_builtin_name(name) && !contains(kFunctions, name) && !contains(kKeywords, name);
}

} // namespace parjava::model
