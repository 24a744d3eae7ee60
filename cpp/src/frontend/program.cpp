#include "program.hpp"

namespace parjava::frontend {

bool is_loop(StructKind kind) {
  return kind == StructKind::For || kind == StructKind::While || kind == StructKind::DoWhile;
}

FunctionId Program::function_of(const clang::FunctionDecl *decl) const {
  if (decl == nullptr) {
    return kNoFunction;
  }
  const auto it = function_index_.find(decl->getCanonicalDecl());
  return it == function_index_.end() ? kNoFunction : it->second;
}

void Program::map_function(const clang::FunctionDecl *decl, FunctionId id) {
  function_index_[decl->getCanonicalDecl()] = id;
}

VarId Program::variable_of(const clang::ValueDecl *decl) const {
  if (decl == nullptr) {
    return kNoVar;
  }
  const auto it = variable_index_.find(llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl()));
  return it == variable_index_.end() ? kNoVar : it->second;
}

void Program::map_variable(const clang::ValueDecl *decl, VarId id) {
  variable_index_[llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl())] = id;
}

VarId Program::synthetic(const std::string &key, VarType type, VarScope scope,
                         FunctionId function) {
  const auto it = synthetic_index_.find(key);
  if (it != synthetic_index_.end()) {
    return it->second;
  }
  Variable v;
  v.source_name = key;
  v.scope = scope;
  v.type = type;
  v.function = function;
  const VarId id = add(std::move(v));
  synthetic_index_[key] = id;
  return id;
}

const ProgramParameter *Program::parameter(const std::string &name) const {
  for (const auto &p : parameters) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

void Program::add_parameter(ProgramParameter p) {
  if (parameter(p.name) == nullptr) {
    parameters.push_back(std::move(p));
  }
}

} // namespace parjava::frontend
