// Non-blocking requests the process has posted, so Wait*/Test* can write the completion events
// (MpiIsendComplete, MpiIrecv with the actual source) with the request id of the post.
// Persistent requests stay known until MPI_Request_free.
//
// A request is identified by its handle *and* the address of the program's MPI_Request
// variable it was returned in: MPI implementations hand out one shared handle for requests that
// completed at once (Open MPI returns &ompi_request_empty for eagerly sent MPI_Isend and for
// MPI_PROC_NULL), so the handle alone is ambiguous, while programs wait on the variable they
// posted into. When the addresses differ (the program copied the handle), the oldest request
// with that handle is taken.
#pragma once

#include <cstdint>
#include <mpi.h>

namespace parjava::tracer::runtime {

// Null: a post to or from MPI_PROC_NULL. It is recorded (without events) so that the
// completion of its request, which may share its handle with real ones, consumes it.
enum class RequestKind : std::uint8_t { Send, Recv, Null };

struct RequestInfo {
  std::uint64_t id = 0; // request id of the current post (fresh for every MPI_Start)
  std::uint64_t bytes = 0;
  std::uint32_t comm = 0;
  std::int32_t peer = -1; // rank in comm as posted (MPI_ANY_SOURCE stays -1 for receives)
  std::int32_t tag = 0;
  RequestKind kind = RequestKind::Send;
  bool persistent = false;
  bool active = true; // persistent: started and not yet completed
  bool cancel_requested = false;
};

std::uint64_t next_request_id();

// `where` is the program's MPI_Request variable the handle was returned in (or is now in).
void request_posted(MPI_Request handle, const MPI_Request *where, const RequestInfo &info);
// The request's info without changing it; false if unknown (e.g. a non-blocking collective).
bool request_find(MPI_Request handle, const MPI_Request *where, RequestInfo &out);
// The request completed: its info as posted (false if unknown or an inactive persistent
// request). A non-persistent request is forgotten, a persistent one becomes inactive.
bool request_complete(MPI_Request handle, const MPI_Request *where, RequestInfo &out);
// A persistent request was started: new id, active. False if unknown.
bool request_start(MPI_Request handle, const MPI_Request *where, RequestInfo &out);
void request_cancel(MPI_Request handle, const MPI_Request *where);
void request_forget(MPI_Request handle, const MPI_Request *where);

} // namespace parjava::tracer::runtime
