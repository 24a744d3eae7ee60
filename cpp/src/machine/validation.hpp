// Shared checks for machine fields: every failure names the field by its path
// ("inter_node.latency") so a user can find it in the JSON or the constructor call.
#pragma once

#include <string>
#include <string_view>

namespace parjava::machine::detail {

// "inter_node" + "latency" -> "inter_node.latency"; an empty prefix gives the name alone.
std::string field_path(std::string_view prefix, std::string_view name);

// A number as people read it in messages: up to 6 significant digits.
std::string show_number(double value);

// Throws parjava::Error(ErrorKind::Machine) with "<field>: <problem>".
[[noreturn]] void fail(std::string_view field, const std::string &problem);

// Finite and >= 0.
void require_non_negative(double value, std::string_view field);
// Finite and > 0.
void require_positive(double value, std::string_view field);

} // namespace parjava::machine::detail
