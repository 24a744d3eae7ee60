#include "pragma_macros.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <llvm/Support/MemoryBuffer.h>

namespace parjava::frontend {

namespace {

bool space(char c) { return c == ' ' || c == '\t'; }
bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `#define NAME # pragma rest` on one physical line (no continuation): the pieces, or nothing.
std::optional<PragmaMacro> pragma_definition(std::string_view line, std::size_t &rest_begin) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < line.size() && space(line[i])) {
      ++i;
    }
  };
  auto word = [&] {
    const std::size_t b = i;
    while (i < line.size() && word_char(line[i])) {
      ++i;
    }
    return line.substr(b, i - b);
  };
  skip();
  if (i >= line.size() || line[i] != '#') {
    return std::nullopt;
  }
  ++i;
  skip();
  if (word() != "define") {
    return std::nullopt;
  }
  if (i >= line.size() || !space(line[i])) {
    return std::nullopt;
  }
  skip();
  const std::string_view name = word();
  // An object-like macro: a function-like one's '#' is the stringizing operator.
  if (name.empty() || i >= line.size() || !space(line[i])) {
    return std::nullopt;
  }
  skip();
  if (i >= line.size() || line[i] != '#') {
    return std::nullopt;
  }
  rest_begin = i;
  ++i;
  skip();
  if (word() != "pragma" || (i < line.size() && !space(line[i]))) {
    return std::nullopt;
  }
  skip();
  std::string_view rest = line.substr(i);
  while (!rest.empty() && (space(rest.back()) || rest.back() == '\r')) {
    rest.remove_suffix(1);
  }
  // A continued line, or a comment after the pragma, is left alone (rare, and ambiguous).
  if (rest.empty() || rest.back() == '\\' || rest.find("/*") != std::string_view::npos ||
      rest.find("//") != std::string_view::npos) {
    return std::nullopt;
  }
  PragmaMacro m;
  m.name = std::string(name);
  m.pragma = std::string(rest);
  return m;
}

std::string string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

// A file read rewritten: its status carries the new size (Clang checks the buffer against it).
class RewrittenFile : public llvm::vfs::File {
public:
  RewrittenFile(llvm::vfs::Status status, std::shared_ptr<const std::string> text)
      : status_(std::move(status)), text_(std::move(text)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine &name,
                                                               int64_t /*size*/,
                                                               bool /*null_terminate*/,
                                                               bool /*volatile*/) override {
    return llvm::MemoryBuffer::getMemBufferCopy(*text_, name);
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status status_;
  std::shared_ptr<const std::string> text_;
};

class PragmaMacroFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  PragmaMacroFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> real,
                        std::vector<PragmaMacro> &found)
      : ProxyFileSystem(std::move(real)), found_(found) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &path) override {
    auto st = ProxyFileSystem::status(path);
    if (!st || !st->isRegularFile()) {
      return st;
    }
    if (auto text = rewritten(path.str())) {
      return llvm::vfs::Status::copyWithNewSize(*st, text->size());
    }
    return st;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &path) override {
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) {
      return file;
    }
    auto text = rewritten(path.str());
    if (!text) {
      return file;
    }
    auto st = (*file)->status();
    if (!st) {
      return st.getError();
    }
    return std::unique_ptr<llvm::vfs::File>(std::make_unique<RewrittenFile>(
        llvm::vfs::Status::copyWithNewSize(*st, text->size()), text));
  }

private:
  std::shared_ptr<const std::string> rewritten(const std::string &path) {
    // System and installed headers are never the program's (and are many).
    if (path.rfind("/usr/", 0) == 0 || path.rfind("/opt/", 0) == 0) {
      return nullptr;
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    auto it = cache_.find(path);
    if (it != cache_.end()) {
      return it->second;
    }
    std::shared_ptr<const std::string> out;
    auto buffer = getUnderlyingFS().getBufferForFile(path);
    if (buffer) {
      std::vector<PragmaMacro> macros;
      if (auto text = rewrite_pragma_macros((*buffer)->getBuffer(), &macros)) {
        out = std::make_shared<const std::string>(std::move(*text));
        for (PragmaMacro &m : macros) {
          m.file = path;
          found_.push_back(std::move(m));
        }
      }
    }
    cache_.emplace(path, out);
    return out;
  }

  std::vector<PragmaMacro> &found_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const std::string>> cache_;
};

} // namespace

std::optional<std::string> rewrite_pragma_macros(std::string_view text,
                                                 std::vector<PragmaMacro> *found) {
  // Cheap refusal first: almost no file has both words on one line.
  if (text.find("pragma") == std::string_view::npos ||
      text.find("define") == std::string_view::npos) {
    return std::nullopt;
  }
  std::string out;
  bool changed = false;
  std::uint32_t line_no = 1;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    const bool last = end == std::string_view::npos;
    if (last) {
      end = text.size();
    }
    const std::string_view line = text.substr(begin, end - begin);
    std::size_t rest_begin = 0;
    if (auto m = pragma_definition(line, rest_begin)) {
      out.append(line.substr(0, rest_begin));
      out += "_Pragma(" + string_literal(m->pragma) + ")";
      m->line = line_no;
      if (found != nullptr) {
        found->push_back(std::move(*m));
      }
      changed = true;
    } else {
      out.append(line);
    }
    if (last) {
      break;
    }
    out += '\n';
    begin = end + 1;
    ++line_no;
  }
  if (!changed) {
    return std::nullopt;
  }
  return out;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
pragma_macro_file_system(std::vector<PragmaMacro> &found) {
  return llvm::makeIntrusiveRefCnt<PragmaMacroFileSystem>(llvm::vfs::getRealFileSystem(), found);
}

} // namespace parjava::frontend
