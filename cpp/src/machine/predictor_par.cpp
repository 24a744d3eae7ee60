#include "parjava/machine/predictor_par.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/machine/units.hpp"

namespace parjava::machine {

namespace {

struct Statement {
  std::string name;  // normalised: lower case, single spaces
  std::string value; // trimmed
  int line = 0;      // where the statement starts
};

std::string normalise_name(std::string_view raw) {
  std::string name;
  bool pending_space = false;
  for (char c : raw) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      pending_space = !name.empty();
      continue;
    }
    if (pending_space) {
      name += ' ';
      pending_space = false;
    }
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::string trim(std::string_view text) {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])) != 0) {
    ++first;
  }
  std::size_t last = text.size();
  while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1])) != 0) {
    --last;
  }
  return std::string(text.substr(first, last - first));
}

[[noreturn]] void fail(std::string_view origin, int line, const std::string &problem) {
  std::string message(origin);
  if (line > 0) {
    message += ":" + std::to_string(line);
  }
  throw Error(ErrorKind::Machine, message + ": " + problem);
}

// Splits the text into `name = value;` statements, dropping `//` comments. A statement may span
// lines; text after the last `;` that is not blank is an unterminated statement.
std::vector<Statement> statements(std::string_view text, std::string_view origin) {
  std::vector<Statement> result;
  std::string pending;
  int pending_line = 0;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') {
        ++i;
      }
      if (i < text.size()) {
        ++line;
        pending += ' ';
      }
      continue;
    }
    if (c == '\n') {
      ++line;
      pending += ' ';
      continue;
    }
    if (c == ';') {
      const std::string body = trim(pending);
      if (!body.empty()) {
        const auto equals = body.find('=');
        if (equals == std::string::npos) {
          fail(origin, pending_line, "expected `name = value;`, got \"" + body + ";\"");
        }
        Statement statement{normalise_name(body.substr(0, equals)),
                            trim(std::string_view(body).substr(equals + 1)), pending_line};
        if (statement.name.empty()) {
          fail(origin, pending_line, "a statement has no name before `=`");
        }
        result.push_back(std::move(statement));
      }
      pending.clear();
      pending_line = 0;
      continue;
    }
    if (pending_line == 0 && std::isspace(static_cast<unsigned char>(c)) == 0) {
      pending_line = line;
    }
    pending += c;
  }
  if (!trim(pending).empty()) {
    fail(origin, pending_line, "statement \"" + trim(pending) + "\" is not ended by `;`");
  }
  return result;
}

double number(const Statement &statement, std::string_view origin) {
  double value = 0.0;
  const char *begin = statement.value.data();
  const char *end = begin + statement.value.size();
  const auto [stop, status] = std::from_chars(begin, end, value);
  if (status != std::errc() || stop != end || !std::isfinite(value)) {
    fail(origin, statement.line,
         "`" + statement.name + "` must be a finite number, got \"" + statement.value + "\"");
  }
  return value;
}

std::vector<int> topology(const Statement &statement, std::string_view origin) {
  std::string body = statement.value;
  if (body.size() < 2 || body.front() != '{' || body.back() != '}') {
    fail(origin, statement.line,
         "`topology` must be a list such as {2, 2}, got \"" + statement.value + "\"");
  }
  std::vector<int> extents;
  std::stringstream items(body.substr(1, body.size() - 2));
  std::string item;
  while (std::getline(items, item, ',')) {
    const std::string text = trim(item);
    int extent = 0;
    const auto [stop, status] = std::from_chars(text.data(), text.data() + text.size(), extent);
    if (status != std::errc() || stop != text.data() + text.size() || extent < 1) {
      fail(origin, statement.line,
           "`topology` extents must be whole numbers >= 1, got \"" + text + "\"");
    }
    extents.push_back(extent);
  }
  if (extents.empty()) {
    fail(origin, statement.line, "`topology` is empty");
  }
  return extents;
}

} // namespace

Machine machine_from_predictor_par(std::string_view text, std::string_view origin) {
  std::map<std::string, Statement> seen;
  for (Statement &statement : statements(text, origin)) {
    static const std::vector<std::string> known{"type", "start time", "send byte time", "power",
                                                "topology"};
    if (std::find(known.begin(), known.end(), statement.name) == known.end()) {
      fail(origin, statement.line,
           "unknown parameter `" + statement.name +
               "` (Predictor.par knows: type, start time, send byte time, power, topology)");
    }
    if (const auto previous = seen.find(statement.name); previous != seen.end()) {
      fail(origin, statement.line,
           "`" + statement.name + "` is given twice (first on line " +
               std::to_string(previous->second.line) + ")");
    }
    const std::string name = statement.name;
    seen.emplace(name, std::move(statement));
  }
  const auto require = [&](const std::string &name) -> const Statement & {
    const auto found = seen.find(name);
    if (found == seen.end()) {
      fail(origin, 0, "missing required parameter `" + name + "`");
    }
    return found->second;
  };

  const Statement &start = require("start time");
  const Statement &per_byte = require("send byte time");
  const double start_us = number(start, origin);
  const double per_byte_us = number(per_byte, origin);
  if (start_us < 0.0) {
    fail(origin, start.line, "`start time` must be >= 0 microseconds");
  }
  if (!(per_byte_us > 0.0) || !std::isfinite(1.0 / (per_byte_us * 1e-6))) {
    fail(origin, per_byte.line, "`send byte time` must be > 0 microseconds (and above 1e-302)");
  }
  const Statement &power_statement = require("power");
  const double power = number(power_statement, origin);
  if (!(power > 0.0)) {
    fail(origin, power_statement.line, "`power` must be > 0");
  }

  std::string type = "network";
  if (const auto found = seen.find("type"); found != seen.end()) {
    type = normalise_name(found->second.value);
    if (type != "network" && type != "transputer") {
      fail(origin, found->second.line,
           "`type` must be network or transputer, got \"" + found->second.value + "\"");
    }
  }
  NodeLayout layout;
  std::string topology_text = "none (one processor)";
  if (const auto found = seen.find("topology"); found != seen.end()) {
    const std::vector<int> extents = topology(found->second, origin);
    long long processors = 1;
    topology_text.clear();
    for (int extent : extents) {
      processors *= extent;
      topology_text += (topology_text.empty() ? "" : " x ") + std::to_string(extent);
      if (processors > std::numeric_limits<int>::max()) {
        fail(origin, found->second.line, "`topology` has too many processors");
      }
    }
    layout.nodes = static_cast<int>(processors);
  }

  // seed 002 §1.3.2 and §8 formula 1: T(n) = start_time + n * send_byte_time, in microseconds.
  HockneyParameters hockney;
  hockney.latency = start_us * 1e-6;
  hockney.bandwidth = 1.0 / (per_byte_us * 1e-6);
  hockney.eager_limit = unlimited_eager;
  const Network network = Network::hockney(hockney, "network");
  Machine machine(std::string(origin), layout, network,
                  layout.nodes > 1 ? std::optional<Network>(network) : std::nullopt, ThreadCosts{},
                  power);
  machine.set_description(
      "DVM Predictor.par: type " + type + ", topology " + topology_text + ", start time " +
      format_time(hockney.latency) + ", send byte time " + format_time(per_byte_us * 1e-6) +
      "/B. DVM gives no eager limit (every size eager here) and no thread costs (0 here).");
  machine.set_sources({"DVM Predictor.par (seed 002 §1.3.2): " + std::string(origin)});
  return machine;
}

Machine read_predictor_par(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorKind::Machine,
                path + ": cannot open the Predictor.par file (" + std::strerror(errno) + ")");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return machine_from_predictor_par(text.str(), path);
}

} // namespace parjava::machine
