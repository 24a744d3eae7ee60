// Numbers as the estimation writes them into the model and its diagnostics: a model literal
// that always reads back as a float ("3.0", not "3"), and a short duration ("1.2e-05 s").
#pragma once

#include <cstdio>
#include <string>

namespace parjava::frontend {

inline std::string model_number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", value);
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  }
  return s;
}

inline std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g s", s);
  return buf;
}

} // namespace parjava::frontend
