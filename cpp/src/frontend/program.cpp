#include "program.hpp"

#include <filesystem>

#include <clang/Index/USRGeneration.h>
#include <llvm/ADT/SmallString.h>

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

FunctionId Program::callee_of(const clang::FunctionDecl *callee) const {
  if (callee == nullptr) {
    return kNoFunction;
  }
  FunctionId id = function_of(callee);
  if (id == kNoFunction && callee->getDefinition() != nullptr) {
    id = function_of(callee->getDefinition());
  }
  if (id == kNoFunction) {
    llvm::SmallString<128> usr;
    if (!clang::index::generateUSRForDecl(callee, usr)) {
      const auto it = function_usr.find(std::string(usr.str()));
      if (it != function_usr.end()) {
        id = it->second;
      }
    }
  }
  return id;
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

std::string Program::source_file(const clang::ASTContext &unit, std::string_view name) const {
  namespace fs = std::filesystem;
  fs::path path(name);
  if (path.is_relative()) {
    const auto it = unit_directory.find(&unit);
    std::error_code ec;
    const fs::path base = it != unit_directory.end() && !it->second.empty() ? fs::path(it->second)
                                                                            : fs::current_path(ec);
    path = base / path;
  }
  return path.lexically_normal().string();
}

VarId Program::variable_of_usr(const std::string &usr) const {
  const auto it = usr_index_.find(usr);
  return it == usr_index_.end() ? kNoVar : it->second;
}

AggregateId Program::aggregate_of(const clang::ValueDecl *decl) const {
  if (decl == nullptr) {
    return kNoAggregate;
  }
  const auto it = aggregate_index_.find(llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl()));
  return it == aggregate_index_.end() ? kNoAggregate : it->second;
}

void Program::map_aggregate(const clang::ValueDecl *decl, AggregateId id) {
  aggregate_index_[llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl())] = id;
}

AggregateId Program::aggregate_of_usr(const std::string &usr) const {
  const auto it = aggregate_usr_.find(usr);
  return it == aggregate_usr_.end() ? kNoAggregate : it->second;
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
