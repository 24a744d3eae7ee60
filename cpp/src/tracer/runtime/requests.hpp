// Non-blocking requests the process has posted, by MPI_Request handle, so Wait*/Test* can
// write the completion events (MpiIsendComplete, MpiIrecv with the actual source) with the
// request id of the post. Persistent requests stay known until MPI_Request_free.
#pragma once

#include <cstdint>
#include <mpi.h>

namespace parjava::tracer::runtime {

enum class RequestKind : std::uint8_t { Send, Recv };

struct RequestInfo {
  std::uint64_t id = 0; // request id of the current post (fresh for every MPI_Start)
  std::uint64_t bytes = 0;
  std::uint32_t comm = 0;
  std::int32_t peer = -1; // rank in comm as posted (MPI_ANY_SOURCE stays -1 for receives)
  std::int32_t tag = 0;
  RequestKind kind = RequestKind::Send;
  bool persistent = false;
  bool active = false; // persistent: started and not yet completed
  bool cancel_requested = false;
};

std::uint64_t next_request_id();

void request_posted(MPI_Request handle, const RequestInfo &info);
// Copy of the request's info; false if the handle is unknown (e.g. a non-blocking collective).
bool request_find(MPI_Request handle, RequestInfo &out);
// Update a persistent request after MPI_Start (new id, active).
void request_started(MPI_Request handle, std::uint64_t id);
// The request completed: a non-persistent one is forgotten, a persistent one becomes inactive.
void request_completed(MPI_Request handle);
void request_cancel(MPI_Request handle);
void request_forget(MPI_Request handle);

} // namespace parjava::tracer::runtime
