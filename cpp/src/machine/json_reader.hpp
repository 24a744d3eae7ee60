// The strict JSON reader of the machine part: every problem becomes an ErrorKind::Machine error
// that starts with the origin (file name) and names the field by its path. Private to the part
// (machine_json.cpp, machine_json_wiring.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "parjava/error.hpp"
#include "parjava/machine/network.hpp"
#include "parjava/machine/units.hpp"
#include "validation.hpp"

namespace parjava::machine::detail {

using json = nlohmann::json;

inline std::string_view type_name(const json &value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
  case json::value_t::number_float:
    return "a number";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "an unsupported value";
  }
}

// Reads one document, turning every problem into an ErrorKind::Machine error that starts with
// the origin and names the field path.
class Reader {
public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void fail(std::string_view field, const std::string &problem) const {
    std::string message(origin_);
    message += ": ";
    if (!field.empty()) {
      message += field;
      message += ": ";
    }
    message += problem;
    throw Error(ErrorKind::Machine, message);
  }

  // Re-throws a validation error of the machine part with the origin in front.
  template <typename Build> auto with_origin(Build build) const {
    try {
      return build();
    } catch (const Error &error) {
      throw Error(ErrorKind::Machine, std::string(origin_) + ": " + error.what());
    }
  }

  const json &object(const json &value, std::string_view field) const {
    if (!value.is_object()) {
      fail(field, "expected an object, got " + std::string(type_name(value)));
    }
    return value;
  }

  // The members of `object` must all be in `allowed`: a misspelt optional field must not pass
  // silently as "absent".
  void only(const json &object, std::string_view field,
            std::initializer_list<std::string_view> allowed) const {
    for (const auto &[key, unused] : object.items()) {
      bool known = false;
      for (std::string_view name : allowed) {
        known = known || key == name;
      }
      if (!known) {
        std::string list;
        for (std::string_view name : allowed) {
          list += list.empty() ? "" : ", ";
          list += name;
        }
        fail(field_path(field, key), "unknown field (expected one of: " + list + ")");
      }
    }
  }

  const json &require(const json &object, std::string_view field, std::string_view key) const {
    const auto found = object.find(std::string(key));
    if (found == object.end()) {
      fail(field_path(field, key), "missing required field");
    }
    return *found;
  }

  std::string string(const json &value, std::string_view field) const {
    if (!value.is_string()) {
      fail(field, "expected a string, got " + std::string(type_name(value)));
    }
    return value.get<std::string>();
  }

  bool boolean(const json &value, std::string_view field) const {
    if (!value.is_boolean()) {
      fail(field, "expected true or false, got " + std::string(type_name(value)));
    }
    return value.get<bool>();
  }

  // A number, or a string with a unit of `dimension`.
  double quantity(const json &value, std::string_view field, Dimension dimension) const {
    if (value.is_number()) {
      return value.get<double>();
    }
    if (value.is_string()) {
      return with_origin(
          [&] { return parse_quantity(value.get<std::string>(), dimension, field); });
    }
    fail(field, "expected a " + std::string(dimension_name(dimension)) +
                    " (a number in SI units or a string such as \"1.5 us\"), got " +
                    std::string(type_name(value)));
  }

  double non_negative(const json &value, std::string_view field, Dimension dimension) const {
    const double number = quantity(value, field, dimension);
    with_origin([&] {
      detail::require_non_negative(number, field);
      return 0;
    });
    return number;
  }

  double plain_number(const json &value, std::string_view field) const {
    if (!value.is_number()) {
      fail(field, "expected a number, got " + std::string(type_name(value)));
    }
    return value.get<double>();
  }

  std::int64_t integer(const json &value, std::string_view field) const {
    if (value.is_number_integer()) {
      return value.get<std::int64_t>();
    }
    if (value.is_number_float()) {
      const double number = value.get<double>();
      if (std::floor(number) == number && std::fabs(number) < 9.0e15) {
        return static_cast<std::int64_t>(number);
      }
      fail(field, "expected a whole number, got " + detail::show_number(number));
    }
    fail(field, "expected a whole number, got " + std::string(type_name(value)));
  }

  int count(const json &value, std::string_view field) const {
    const std::int64_t number = integer(value, field);
    if (number < 0 || number > std::numeric_limits<int>::max()) {
      fail(field, "must be a count >= 0 (got " + std::to_string(number) + ")");
    }
    return static_cast<int>(number);
  }

  // Bytes: a whole number >= 0, a string with a size unit ("4 KiB"), or "unlimited".
  std::uint64_t bytes(const json &value, std::string_view field) const {
    if (value.is_number_unsigned()) {
      return value.get<std::uint64_t>();
    }
    if (value.is_string() && value.get<std::string>() == "unlimited") {
      return unlimited_eager;
    }
    double number = 0.0;
    if (value.is_string()) {
      number = quantity(value, field, Dimension::Size);
    } else {
      number = static_cast<double>(integer(value, field));
    }
    if (number < 0.0) {
      fail(field, "a size must be >= 0 bytes (got " + detail::show_number(number) + ")");
    }
    if (std::floor(number) != number || number >= 1.8e19) {
      fail(field,
           "a size must be a whole number of bytes (got " + detail::show_number(number) + ")");
    }
    return static_cast<std::uint64_t>(number);
  }

  const json &array(const json &value, std::string_view field) const {
    if (!value.is_array()) {
      fail(field, "expected an array, got " + std::string(type_name(value)));
    }
    return value;
  }

private:
  std::string_view origin_;
};

} // namespace parjava::machine::detail
