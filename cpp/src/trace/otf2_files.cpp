#include "otf2_files.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "otf2_status.hpp"

namespace parjava::trace::detail {

namespace fs = std::filesystem;

std::int64_t file_size(const std::string &path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? -1 : static_cast<std::int64_t>(size);
}

LocalDefinitions local_definitions(const std::string &path) {
  // OTF2's buffer format (OTF2_Buffer.c): an 18-byte chunk header (record type
  // OTF2_BUFFER_CHUNK_HEADER = 3, endianness, first and last event numbers), then the records,
  // then OTF2_BUFFER_END_OF_FILE (2) and OTF2_BUFFER_END_OF_BUFFER (1).
  constexpr std::size_t kEmptySize = 20;
  constexpr unsigned char kChunkHeader = 3;
  constexpr unsigned char kEndOfFile = 2;
  constexpr unsigned char kEndOfBuffer = 1;
  const auto size = file_size(path);
  if (size < 0) {
    return LocalDefinitions::Missing;
  }
  if (size != static_cast<std::int64_t>(kEmptySize)) {
    return LocalDefinitions::Present;
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(path.c_str(), "rb"),
                                                              &std::fclose);
  std::array<unsigned char, kEmptySize> bytes{};
  if (!file || std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) {
    return LocalDefinitions::Present; // let the library read it and report what is wrong
  }
  const bool empty = bytes[0] == kChunkHeader && bytes[kEmptySize - 2] == kEndOfFile &&
                     bytes[kEmptySize - 1] == kEndOfBuffer;
  return empty ? LocalDefinitions::Empty : LocalDefinitions::Present;
}

ArchiveFiles find_archive(const std::string &path) {
  std::error_code ec;
  fs::path anchor(path);
  if (!fs::exists(anchor, ec)) {
    throw_trace_error(path + ": no such file or directory (expected an OTF2 anchor file such as "
                             "traces.otf2, or the archive directory)");
  }
  if (fs::is_directory(anchor, ec)) {
    std::vector<fs::path> anchors;
    for (const auto &entry : fs::directory_iterator(anchor, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".otf2") {
        anchors.push_back(entry.path());
      }
    }
    if (anchors.empty()) {
      throw_trace_error(path + ": not an OTF2 archive: the directory holds no anchor file "
                               "(*.otf2)");
    }
    if (anchors.size() > 1) {
      std::string names;
      for (const auto &a : anchors) {
        names += (names.empty() ? "" : ", ") + a.filename().string();
      }
      throw_trace_error(path + ": the directory holds several OTF2 anchor files (" + names +
                        "): name the one to read");
    }
    anchor = anchors.front();
  }
  ArchiveFiles files;
  files.anchor = anchor.string();
  files.directory = anchor.has_parent_path() ? anchor.parent_path().string() : ".";
  files.name = anchor.stem().string();
  if (anchor.extension() != ".otf2") {
    throw_trace_error(files.anchor + ": not an OTF2 archive: an anchor file ends in .otf2");
  }
  if (file_size(files.anchor) == 0) {
    throw_trace_error(files.anchor + ": the anchor file is empty (the trace was not written "
                                     "completely)");
  }
  const auto definitions = files.global_definitions();
  const auto size = file_size(definitions);
  if (size < 0) {
    throw_trace_error(definitions + ": the global definition file is missing, so " + files.anchor +
                      " cannot be read (copy the whole archive directory)");
  }
  if (size == 0) {
    throw_trace_error(definitions + ": the global definition file is empty (the trace was not "
                                    "written completely)");
  }
  return files;
}

} // namespace parjava::trace::detail
