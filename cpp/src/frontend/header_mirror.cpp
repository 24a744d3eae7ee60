#include "header_mirror.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "parjava/error.hpp"
#include "pragma_macros.hpp"

namespace parjava::frontend {

namespace fs = std::filesystem;

fs::path HeaderMirror::copy(const std::string &original) const {
  return root_ / fs::path(original).relative_path();
}

fs::path HeaderMirror::directory_of(const fs::path &dir) const {
  return root_ / dir.relative_path();
}

void HeaderMirror::edit(const std::string &header, std::vector<SourceEdits::Piece> pieces) {
  headers_.insert(header);
  auto &all = edits_[header];
  for (SourceEdits::Piece &p : pieces) {
    // Two units place nothing at one place (a function's probes come from the unit owning it);
    // the same piece twice would be the same text, kept once.
    const bool seen = std::any_of(all.begin(), all.end(), [&](const SourceEdits::Piece &q) {
      return q.begin == p.begin && q.end == p.end && q.text == p.text;
    });
    if (!seen) {
      all.push_back(std::move(p));
    }
  }
  std::stable_sort(
      all.begin(), all.end(),
      [](const SourceEdits::Piece &a, const SourceEdits::Piece &b) { return a.begin < b.begin; });
}

void HeaderMirror::add_headers_of(const clang::SourceManager &sm) {
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
    const clang::FileID file = sm.translateFile(it->first);
    if (file.isInvalid() || file == sm.getMainFileID() || !SourceEdits::editable_header(sm, file)) {
      continue;
    }
    headers_.insert(it->first->tryGetRealPathName().str());
  }
}

void HeaderMirror::redirect(std::vector<std::string> &command, const std::string &cwd) const {
  std::vector<std::string> out;
  out.reserve(command.size() + 8);
  auto mirrored = [&](const std::string &dir) {
    return directory_of(fs::weakly_canonical(fs::path(cwd) / dir)).string();
  };
  for (std::size_t i = 0; i < command.size(); ++i) {
    const std::string &arg = command[i];
    if ((arg == "-I" || arg == "-iquote") && i + 1 < command.size()) {
      out.insert(out.end(), {arg, mirrored(command[i + 1]), arg, command[i + 1]});
      ++i;
      continue;
    }
    if (arg.size() > 2 && arg.rfind("-I", 0) == 0) {
      out.push_back("-I" + mirrored(arg.substr(2)));
    }
    out.push_back(arg);
  }
  command = std::move(out);
}

std::vector<HeaderCopy> HeaderMirror::write() const {
  std::vector<HeaderCopy> out;
  for (const std::string &header : headers_) {
    std::ifstream in(header, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      throw Error(ErrorKind::Run, "cannot read the header " + header + " to copy it");
    }
    // The offsets of the edits are in the text Clang parsed, with directives in macros
    // rewritten (pragma_macros.hpp); so is the copy.
    std::string original = text.str();
    if (auto rewritten = rewrite_pragma_macros(original)) {
      original = std::move(*rewritten);
    }
    const auto e = edits_.find(header);
    const bool probed = e != edits_.end() && !e->second.empty();
    HeaderCopy h;
    h.original = header;
    h.instrumented = copy(header).string();
    h.probed = probed;
    std::error_code ec;
    fs::create_directories(fs::path(h.instrumented).parent_path(), ec);
    std::ofstream o(h.instrumented, std::ios::binary);
    // The compiler's messages and __FILE__ name the original.
    o << "#line 1 \"" << header << "\"\n"
      << (probed ? SourceEdits::apply(original, e->second) : original);
    if (!o) {
      throw Error(ErrorKind::Run, "cannot write " + h.instrumented);
    }
    out.push_back(std::move(h));
  }
  return out;
}

} // namespace parjava::frontend
