#include "otf2_files.hpp"

#include <filesystem>
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
