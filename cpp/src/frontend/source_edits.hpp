// Text inserted between the tokens of one source file, for the estimation code (seed 000 notes
// §3.7.1: the user's program with probe statements, compiled by the user's compiler). A place is
// named by a token of the expanded program (what Clang's AST locations point at), so a probe can
// belong inside a macro use: `startTimer(t)` expanding to `do { ... } while (0)` needs its trip
// counter inside the braces, which exist only in the expansion. Such a use is written out
// expanded (its tokens as the compiler sees them, on the use's line), and only that use; every
// other byte of the file stays the user's. Text is never written into a macro definition or
// argument, where it would be copied to every use or stringified. Places in the project's own
// headers are edited too (header-only C++ such as miniFE's templates holds all of its work
// there); the instrumenter writes those headers to a mirror the estimation code includes.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Tooling/Syntax/Tokens.h>

namespace parjava::frontend {

class SourceEdits {
public:
  // `tokens` (may be null) is the unit's expanded token stream; without it a place inside a
  // macro use cannot be written.
  SourceEdits(const clang::SourceManager &sm, const clang::LangOptions &lo,
              const clang::syntax::TokenBuffer *tokens);

  // Just before `token`, or just after it.
  struct Point {
    clang::SourceLocation token;
    bool after = false;
  };

  // Why text cannot be written at `p` ("" when it can).
  [[nodiscard]] std::string check(Point p) const;

  // The place after the statement ending with the token at `last`: after the `;` that follows
  // it when there is one.
  [[nodiscard]] Point after_statement(clang::SourceLocation last) const;

  // The tokens from `first` to `last` as the compiler sees them (macros expanded, no comments),
  // separated by spaces: for expressions a probe repeats.
  [[nodiscard]] std::string text(clang::SourceLocation first, clang::SourceLocation last) const;

  // Text opening a region at p (later openings at one place follow earlier ones) or closing one
  // (later closings precede earlier ones): regions added outer first nest. Call check() first.
  void open(Point p, std::string text);
  void close(Point p, std::string text);

  // A macro use written out expanded, for the diagnostics.
  struct ExpandedUse {
    std::string file;
    unsigned line = 0;
    std::string spelling; // the use as written, shortened
  };

  // Bytes [begin, end) of a file replaced by `text` (begin == end: an insertion).
  struct Piece {
    unsigned begin = 0;
    unsigned end = 0;
    std::string text;
  };

  // Every edit, as pieces of the file it is in, by the file's real path (the main file
  // included). Inserted text never holds a newline and an expanded use keeps the newlines of the
  // use, so line k of an edited file is line k of the original.
  [[nodiscard]] std::map<std::string, std::vector<Piece>>
  pieces(std::vector<ExpandedUse> *expanded = nullptr) const;

  // `buffer` with `pieces` (sorted by begin, as pieces() gives them) applied.
  [[nodiscard]] static std::string apply(llvm::StringRef buffer, const std::vector<Piece> &pieces);

  // The real path of the main file.
  [[nodiscard]] std::string main_path() const;

  // Whether a header may be edited: one of the program's own, not a system or installed one.
  [[nodiscard]] static bool editable_header(const clang::SourceManager &sm, clang::FileID file);

private:
  struct Use {
    clang::FileID file;
    unsigned begin = 0; // file offsets of the use as written
    unsigned end = 0;
    llvm::ArrayRef<clang::syntax::Token> tokens; // its expansion
  };
  struct Target {
    clang::FileID file;
    bool in_use = false;
    unsigned offset = 0; // file offset, or the use's begin
    std::size_t gap = 0; // in a use: before its token `gap`
    bool boundary = true;
  };
  struct Edit {
    Point point;
    std::string text;
    bool opening = true;
  };

  // Where `p` is, or "" with the reason in `why`.
  bool locate(Point p, Target &target, std::string &why) const;
  const clang::syntax::Token *expanded_at(clang::SourceLocation loc) const;

  const clang::SourceManager &sm_;
  const clang::LangOptions &lo_;
  const clang::syntax::TokenBuffer *tokens_;
  clang::FileID main_;
  std::vector<Edit> edits_;
  bool editable(clang::FileID file) const;
  using UseKey = std::pair<unsigned, unsigned>; // the file's hash value, the use's begin
  static UseKey key(clang::FileID file, unsigned offset) { return {file.getHashValue(), offset}; }

  mutable std::map<UseKey, Use> uses_;
};

} // namespace parjava::frontend
