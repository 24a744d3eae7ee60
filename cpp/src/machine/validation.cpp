#include "validation.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "parjava/error.hpp"

namespace parjava::machine::detail {

std::string field_path(std::string_view prefix, std::string_view name) {
  if (prefix.empty()) {
    return std::string(name);
  }
  std::string path(prefix);
  path += '.';
  path += name;
  return path;
}

std::string show_number(double value) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
  return buffer.data();
}

void fail(std::string_view field, const std::string &problem) {
  throw Error(ErrorKind::Machine, std::string(field) + ": " + problem);
}

void require_non_negative(double value, std::string_view field) {
  if (!std::isfinite(value)) {
    fail(field, "must be a finite number (got " + show_number(value) + ")");
  }
  if (value < 0.0) {
    fail(field, "must be >= 0 (got " + show_number(value) + ")");
  }
}

void require_positive(double value, std::string_view field) {
  if (!std::isfinite(value)) {
    fail(field, "must be a finite number (got " + show_number(value) + ")");
  }
  if (value <= 0.0) {
    fail(field, "must be > 0 (got " + show_number(value) + ")");
  }
}

} // namespace parjava::machine::detail
