#include "source_edits.hpp"

#include <algorithm>
#include <set>

#include <clang/Basic/TokenKinds.h>
#include <clang/Lex/Lexer.h>

namespace parjava::frontend {

SourceEdits::SourceEdits(const clang::SourceManager &sm, const clang::LangOptions &lo,
                         const clang::syntax::TokenBuffer *tokens)
    : sm_(sm), lo_(lo), tokens_(tokens), main_(sm.getMainFileID()) {}

const clang::syntax::Token *SourceEdits::expanded_at(clang::SourceLocation loc) const {
  if (tokens_ == nullptr || loc.isInvalid()) {
    return nullptr;
  }
  const auto found = tokens_->expandedTokens(clang::SourceRange(loc, loc));
  if (found.empty() || found.front().location() != loc) {
    return nullptr;
  }
  return &found.front();
}

bool SourceEdits::locate(Point p, Target &target, std::string &why) const {
  const clang::SourceLocation loc = p.token;
  if (loc.isInvalid()) {
    why = "no source location";
    return false;
  }
  if (loc.isFileID()) {
    target.file = sm_.getFileID(loc);
    if (!editable(target.file)) {
      why = "the code is in a system or installed header";
      return false;
    }
    target.offset = sm_.getFileOffset(loc);
    if (p.after) {
      target.offset += clang::Lexer::MeasureTokenLength(loc, sm_, lo_);
    }
    return true;
  }
  const clang::SourceLocation use_begin = sm_.getExpansionRange(loc).getBegin();
  if (!use_begin.isFileID() || !editable(sm_.getFileID(use_begin))) {
    why = "the code is in a macro used in a system or installed header";
    return false;
  }
  target.file = sm_.getFileID(use_begin);
  if (tokens_ == nullptr) {
    // Without the expanded tokens, only the edges of a macro use can be written.
    clang::SourceLocation cur = loc;
    while (cur.isMacroID()) {
      clang::SourceLocation edge;
      const bool ok = p.after ? clang::Lexer::isAtEndOfMacroExpansion(cur, sm_, lo_, &edge)
                              : clang::Lexer::isAtStartOfMacroExpansion(cur, sm_, lo_, &edge);
      if (!ok) {
        why = "the place is inside a macro expansion";
        return false;
      }
      cur = edge;
    }
    target.offset = sm_.getFileOffset(cur);
    if (p.after) {
      target.offset += clang::Lexer::MeasureTokenLength(cur, sm_, lo_);
    }
    return true;
  }
  const unsigned begin = sm_.getFileOffset(use_begin);
  auto it = uses_.find(key(target.file, begin));
  if (it == uses_.end()) {
    const clang::syntax::Token *name = tokens_->spelledTokenAt(use_begin);
    const auto expansion = name != nullptr ? tokens_->expansionStartingAt(name) : std::nullopt;
    if (!expansion || expansion->Spelled.empty()) {
      why = "the macro use at this place has no recorded expansion";
      return false;
    }
    Use use;
    use.file = target.file;
    use.begin = begin;
    const clang::syntax::Token &last = expansion->Spelled.back();
    use.end = sm_.getFileOffset(last.location()) + last.length();
    use.tokens = expansion->Expanded;
    it = uses_.emplace(key(target.file, begin), use).first;
  }
  const Use &use = it->second;
  const auto pos = std::find_if(use.tokens.begin(), use.tokens.end(),
                                [&](const clang::syntax::Token &t) { return t.location() == loc; });
  if (pos == use.tokens.end()) {
    why = "the place is not a token of the macro's expansion";
    return false;
  }
  const auto index = static_cast<std::size_t>(pos - use.tokens.begin());
  target.in_use = true;
  target.offset = begin;
  target.gap = p.after ? index + 1 : index;
  target.boundary = p.after ? index + 1 == use.tokens.size() : index == 0;
  if (!target.boundary) {
    for (const auto &t : use.tokens) {
      if (clang::tok::isAnnotation(t.kind())) {
        why = "the macro expands to a pragma, which cannot be written out";
        return false;
      }
    }
  }
  return true;
}

std::string SourceEdits::check(Point p) const {
  Target t;
  std::string why;
  return locate(p, t, why) ? std::string() : why;
}

SourceEdits::Point SourceEdits::after_statement(clang::SourceLocation last) const {
  if (const clang::syntax::Token *t = expanded_at(last)) {
    if (t->kind() == clang::tok::semi) {
      return {last, true};
    }
    const auto all = tokens_->expandedTokens();
    if (t + 1 < all.end() && (t + 1)->kind() == clang::tok::semi) {
      return {(t + 1)->location(), true};
    }
    return {last, true};
  }
  // Without tokens: the raw token after the statement's last one, in the file.
  clang::SourceLocation file_last = last;
  if (file_last.isMacroID()) {
    file_last = sm_.getExpansionRange(file_last).getEnd();
  }
  clang::Token tok;
  if (!clang::Lexer::getRawToken(file_last, tok, sm_, lo_) && tok.is(clang::tok::semi)) {
    return {last, true};
  }
  const std::optional<clang::Token> next = clang::Lexer::findNextToken(file_last, sm_, lo_);
  if (next && next->is(clang::tok::semi) && last.isFileID()) {
    return {next->getLocation(), true};
  }
  return {last, true};
}

std::string SourceEdits::text(clang::SourceLocation first, clang::SourceLocation last) const {
  const clang::syntax::Token *a = expanded_at(first);
  const clang::syntax::Token *b = expanded_at(last);
  if (a != nullptr && b != nullptr && a <= b) {
    std::string out;
    for (const clang::syntax::Token *t = a; t <= b; ++t) {
      if (!out.empty()) {
        out += ' ';
      }
      out += t->text(sm_).str();
    }
    return out;
  }
  const clang::CharSourceRange range = clang::CharSourceRange::getTokenRange(
      sm_.getExpansionRange(clang::SourceRange(first, last)).getAsRange());
  std::string out;
  for (char c : clang::Lexer::getSourceText(range, sm_, lo_)) {
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

void SourceEdits::open(Point p, std::string text) { edits_.push_back({p, std::move(text), true}); }

void SourceEdits::close(Point p, std::string text) {
  edits_.push_back({p, std::move(text), false});
}

bool SourceEdits::editable_header(const clang::SourceManager &sm, clang::FileID file) {
  const clang::SourceLocation start = sm.getLocForStartOfFile(file);
  if (start.isInvalid() || sm.isInSystemHeader(start)) {
    return false;
  }
  const clang::FileEntry *entry = sm.getFileEntryForID(file);
  if (entry == nullptr) {
    return false;
  }
  // mpicc passes Open MPI's include directory with -I, not -isystem: an installed header is one
  // under /usr or /opt, which no program keeps its own code in.
  const llvm::StringRef path = entry->tryGetRealPathName();
  return !path.empty() && !path.starts_with("/usr/") && !path.starts_with("/opt/");
}

bool SourceEdits::editable(clang::FileID file) const {
  return file == main_ || editable_header(sm_, file);
}

std::string SourceEdits::main_path() const {
  return sm_.getFileEntryForID(main_)->tryGetRealPathName().str();
}

std::map<std::string, std::vector<SourceEdits::Piece>>
SourceEdits::pieces(std::vector<ExpandedUse> *expanded) const {
  // Pass 1: the uses that must be written out (a place strictly inside them).
  std::vector<Target> targets(edits_.size());
  std::vector<bool> valid(edits_.size(), false);
  std::set<UseKey> written_out;
  for (std::size_t i = 0; i < edits_.size(); ++i) {
    std::string why;
    valid[i] = locate(edits_[i].point, targets[i], why);
    if (valid[i] && targets[i].in_use && !targets[i].boundary) {
      written_out.insert(key(targets[i].file, targets[i].offset));
    }
  }
  // Pass 2: every edit to its gap, in the order they were made.
  std::map<UseKey, std::deque<std::string>> file_gaps;
  std::map<UseKey, std::vector<std::deque<std::string>>> use_gaps;
  std::map<unsigned, clang::FileID> files;
  for (std::size_t i = 0; i < edits_.size(); ++i) {
    if (!valid[i]) {
      continue;
    }
    const Target &t = targets[i];
    files[t.file.getHashValue()] = t.file;
    const UseKey k = key(t.file, t.offset);
    std::deque<std::string> *gap = nullptr;
    if (t.in_use && written_out.contains(k)) {
      auto &gaps = use_gaps[k];
      gaps.resize(uses_.at(k).tokens.size() + 1);
      gap = &gaps[t.gap];
    } else if (t.in_use) {
      const Use &use = uses_.at(k);
      gap = &file_gaps[key(t.file, t.gap == 0 ? use.begin : use.end)];
    } else {
      gap = &file_gaps[k];
    }
    if (edits_[i].opening) {
      gap->push_back(edits_[i].text);
    } else {
      gap->push_front(edits_[i].text);
    }
  }
  std::map<std::string, std::vector<Piece>> out;
  for (const auto &[hash, file] : files) {
    std::set<unsigned> stops;
    for (auto g = file_gaps.lower_bound({hash, 0}); g != file_gaps.end() && g->first.first == hash;
         ++g) {
      stops.insert(g->first.second);
    }
    for (auto w = written_out.lower_bound({hash, 0}); w != written_out.end() && w->first == hash;
         ++w) {
      stops.insert(w->second);
    }
    const llvm::StringRef buffer = sm_.getBufferData(file);
    const std::string path = sm_.getFileEntryForID(file)->tryGetRealPathName().str();
    std::vector<Piece> &list = out[path];
    for (unsigned stop : stops) {
      if (stop > buffer.size()) {
        continue;
      }
      Piece piece;
      piece.begin = stop;
      piece.end = stop;
      if (const auto g = file_gaps.find({hash, stop}); g != file_gaps.end()) {
        for (const auto &text : g->second) {
          piece.text += text;
        }
      }
      if (written_out.contains({hash, stop})) {
        const Use &use = uses_.at({hash, stop});
        auto &gaps = use_gaps[{hash, stop}];
        gaps.resize(use.tokens.size() + 1);
        for (std::size_t k = 0; k <= use.tokens.size(); ++k) {
          for (const auto &text : gaps[k]) {
            piece.text += text;
          }
          if (k < use.tokens.size()) {
            if (!piece.text.empty() && piece.text.back() != ' ') {
              piece.text += ' ';
            }
            piece.text += use.tokens[k].text(sm_).str();
            piece.text += ' ';
          }
        }
        const llvm::StringRef spelled = buffer.substr(use.begin, use.end - use.begin);
        piece.text.append(
            static_cast<std::size_t>(std::count(spelled.begin(), spelled.end(), '\n')), '\n');
        piece.end = use.end;
        if (expanded != nullptr) {
          ExpandedUse e;
          e.file = path;
          e.line = sm_.getLineNumber(file, use.begin);
          for (char c : spelled) {
            if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
              if (!e.spelling.empty() && e.spelling.back() != ' ') {
                e.spelling += ' ';
              }
            } else {
              e.spelling += c;
            }
          }
          if (e.spelling.size() > 60) {
            e.spelling.resize(57);
            e.spelling.append("...");
          }
          expanded->push_back(std::move(e));
        }
      }
      list.push_back(std::move(piece));
    }
  }
  return out;
}

std::string SourceEdits::apply(llvm::StringRef buffer, const std::vector<Piece> &pieces) {
  std::string out;
  out.reserve(buffer.size() + buffer.size() / 4);
  unsigned pos = 0;
  for (const Piece &p : pieces) {
    if (p.begin < pos || p.begin > buffer.size()) {
      continue; // inside a use written out (cannot happen: its places map into it)
    }
    out.append(buffer.substr(pos, p.begin - pos).str());
    out += p.text;
    pos = std::max(p.begin, std::min<unsigned>(p.end, static_cast<unsigned>(buffer.size())));
  }
  out.append(buffer.substr(pos).str());
  return out;
}

} // namespace parjava::frontend
