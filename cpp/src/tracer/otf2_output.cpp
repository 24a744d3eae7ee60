// Writing an OTF2 archive with the OTF2 library (otf2_output.hpp).
#include "otf2_output.hpp"

#include "parjava/error.hpp"

namespace parjava::tracer {
namespace {

OTF2_FlushType pre_flush(void * /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*location*/,
                         void * /*caller*/, bool /*final*/) {
  return OTF2_FLUSH;
}

constexpr std::uint64_t kEventChunkBytes = std::uint64_t{1} << 20;
constexpr std::uint64_t kDefinitionChunkBytes = std::uint64_t{4} << 20;

// No post-flush callback: OTF2 then writes no BufferFlush records into the events.
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, nullptr};

} // namespace

Otf2Output::Otf2Output(const std::filesystem::path &directory, const std::string &name)
    : path_(directory / (name + ".otf2")) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  // OTF2 refuses to overwrite an archive: remove exactly the files of a previous one.
  std::filesystem::remove(directory / (name + ".otf2"), ec);
  std::filesystem::remove(directory / (name + ".def"), ec);
  std::filesystem::remove_all(directory / name, ec);
  archive_ =
      OTF2_Archive_Open(directory.c_str(), name.c_str(), OTF2_FILEMODE_WRITE, kEventChunkBytes,
                        kDefinitionChunkBytes, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive_ == nullptr) {
    throw Error(ErrorKind::Trace, path_.string() + ": the OTF2 library cannot create the archive "
                                                   "(is the directory writable?)");
  }
  check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr),
        "OTF2_Archive_SetFlushCallbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_),
        "OTF2_Archive_SetSerialCollectiveCallbacks");
  check(OTF2_Archive_OpenEvtFiles(archive_), "OTF2_Archive_OpenEvtFiles");
}

Otf2Output::~Otf2Output() {
  if (archive_ != nullptr) {
    OTF2_Archive_Close(archive_);
  }
}

void Otf2Output::check(OTF2_ErrorCode code, const char *what) const {
  if (code != OTF2_SUCCESS) {
    throw Error(ErrorKind::Trace, path_.string() + ": " + what +
                                      " failed: " + OTF2_Error_GetName(code) + " (" +
                                      OTF2_Error_GetDescription(code) + ")");
  }
}

OTF2_EvtWriter *Otf2Output::event_writer(OTF2_LocationRef location) {
  OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive_, location);
  if (w == nullptr) {
    throw Error(ErrorKind::Trace, path_.string() + ": OTF2 cannot open events of location " +
                                      std::to_string(location));
  }
  return w;
}

void Otf2Output::close_event_writer(OTF2_EvtWriter *writer) {
  check(OTF2_Archive_CloseEvtWriter(archive_, writer), "OTF2_Archive_CloseEvtWriter");
}

void Otf2Output::finish_events(const std::vector<OTF2_LocationRef> &locations) {
  check(OTF2_Archive_CloseEvtFiles(archive_), "OTF2_Archive_CloseEvtFiles");
  check(OTF2_Archive_OpenDefFiles(archive_), "OTF2_Archive_OpenDefFiles");
  for (const auto location : locations) {
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(archive_, location);
    if (w == nullptr) {
      throw Error(ErrorKind::Trace, path_.string() + ": OTF2 cannot open definitions of location " +
                                        std::to_string(location));
    }
    check(OTF2_Archive_CloseDefWriter(archive_, w), "OTF2_Archive_CloseDefWriter");
  }
  check(OTF2_Archive_CloseDefFiles(archive_), "OTF2_Archive_CloseDefFiles");
}

OTF2_GlobalDefWriter *Otf2Output::global_definitions() {
  if (global_ == nullptr) {
    global_ = OTF2_Archive_GetGlobalDefWriter(archive_);
    if (global_ == nullptr) {
      throw Error(ErrorKind::Trace, path_.string() + ": OTF2 cannot open the global definitions");
    }
    for (const std::string *text : pending_strings_) {
      check(OTF2_GlobalDefWriter_WriteString(global_, strings_.at(*text), text->c_str()),
            "OTF2_GlobalDefWriter_WriteString");
    }
    pending_strings_.clear();
  }
  return global_;
}

OTF2_StringRef Otf2Output::string(const std::string &text) {
  if (const auto it = strings_.find(text); it != strings_.end()) {
    return it->second;
  }
  const auto id = static_cast<OTF2_StringRef>(strings_.size());
  const auto it = strings_.emplace(text, id).first;
  if (global_ != nullptr) {
    check(OTF2_GlobalDefWriter_WriteString(global_, id, text.c_str()),
          "OTF2_GlobalDefWriter_WriteString");
  } else {
    pending_strings_.push_back(&it->first);
  }
  return id;
}

void Otf2Output::set_property(const std::string &name, const std::string &value) {
  check(OTF2_Archive_SetProperty(archive_, name.c_str(), value.c_str(), true),
        "OTF2_Archive_SetProperty");
}

void Otf2Output::close() {
  if (global_ != nullptr) {
    check(OTF2_Archive_CloseGlobalDefWriter(archive_, global_),
          "OTF2_Archive_CloseGlobalDefWriter");
    global_ = nullptr;
  }
  const auto code = OTF2_Archive_Close(archive_);
  archive_ = nullptr;
  check(code, "OTF2_Archive_Close");
}

} // namespace parjava::tracer
