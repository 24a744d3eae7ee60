// Helpers for the frontend tests: build a model from an example or from inline source text, and
// find its nodes by kind, operation or label.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "parjava/frontend/model_builder.hpp"
#include "parjava/model/model.hpp"
#include "parjava/model/operation.hpp"

namespace parjava::frontend::testing {

inline std::string example(const std::string &name) {
  return std::string(PARJAVA_SOURCE_DIR) + "/examples/model/" + name;
}

// Write `text` to a fresh file `name` in a per-test directory and return its path.
inline std::string write_source(const std::string &name, const std::string &text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("parjava-frontend-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

inline BuildResult build(const std::string &path, std::vector<std::string> args = {}) {
  BuildOptions options;
  options.sources = {path};
  options.args = std::move(args);
  return build_model(options);
}

inline std::vector<const model::Node *> nodes_of(const model::Model &m, model::NodeKind kind) {
  std::vector<const model::Node *> out;
  for (const auto &n : m.nodes) {
    if (n.kind == kind) {
      out.push_back(&n);
    }
  }
  return out;
}

inline std::vector<const model::Node *> operations(const model::Model &m, model::Operation op) {
  std::vector<const model::Node *> out;
  for (const auto &n : m.nodes) {
    if (n.kind == model::NodeKind::Communication && n.op == op) {
      out.push_back(&n);
    }
  }
  return out;
}

inline std::string arg(const model::Node &n, const std::string &name) {
  const model::OperationArg *a = n.arg(name);
  if (a == nullptr) {
    return "<absent>";
  }
  return a->kind == model::ArgKind::Expr ? a->expr.text() : a->text;
}

// The model parameter named `name`, nullptr when there is none.
inline const model::Parameter *parameter(const model::Model &m, const std::string &name) {
  for (const auto &p : m.parameters) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

inline const model::Node *labelled(const model::Model &m, const std::string &prefix) {
  for (const auto &n : m.nodes) {
    if (n.label.rfind(prefix, 0) == 0) {
      return &n;
    }
  }
  return nullptr;
}

// The kinds of a node's children, e.g. "cb cfc for".
inline std::string child_kinds(const model::Model &m, const model::Node &n) {
  std::string out;
  for (model::NodeIndex c : n.children) {
    out += (out.empty() ? "" : " ") + std::string(model::node_kind_name(m.nodes[c].kind));
  }
  return out;
}

inline bool has_assignment(const model::Node &n, const std::string &var) {
  for (const auto *list : {&n.assign, &n.init, &n.update}) {
    for (const auto &a : *list) {
      if (a.variable == var) {
        return true;
      }
    }
  }
  return false;
}

} // namespace parjava::frontend::testing
