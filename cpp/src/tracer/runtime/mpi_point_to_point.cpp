// PMPI wrappers of point-to-point communication: blocking sends in the four modes, receives,
// Sendrecv(_replace), probes, non-blocking posts, persistent requests and their start, buffer
// attach/detach, cancel and request free. Message events follow docs/otf2-conventions.md:
// MpiSend/MpiIsend/MpiIrecvRequest at the call's enter time, MpiRecv at its leave time, peers
// as ranks in the communicator.
#include <mpi.h>

#include "call.hpp"
#include "communicators.hpp"
#include "messages.hpp"
#include "requests.hpp"

namespace parjava::tracer::runtime {
namespace {

using SendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
using IsendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

int blocking_send(Routine routine, const void *site, SendFn pmpi, const void *buf, int count,
                  MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  Call call(routine, site);
  const int rc = pmpi(buf, count, type, dest, tag, comm);
  if (call && dest != MPI_PROC_NULL) {
    call.returned();
    call.at_enter(message(RecordKind::Send, dest, tag, comm_id(comm), bytes_of(count, type)));
  }
  return rc;
}

void post_null(MPI_Request *request) {
  RequestInfo info;
  info.kind = RequestKind::Null;
  request_posted(*request, request, info);
}

int nonblocking_send(Routine routine, const void *site, IsendFn pmpi, const void *buf, int count,
                     MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  Call call(routine, site);
  const int rc = pmpi(buf, count, type, dest, tag, comm, request);
  if (call && rc == MPI_SUCCESS && dest == MPI_PROC_NULL) {
    post_null(request);
  } else if (call && rc == MPI_SUCCESS) {
    call.returned();
    RequestInfo info;
    info.id = next_request_id();
    info.kind = RequestKind::Send;
    info.comm = comm_id(comm);
    info.peer = dest;
    info.tag = tag;
    info.bytes = bytes_of(count, type);
    request_posted(*request, request, info);
    call.at_enter(message(RecordKind::IsendPost, dest, tag, info.comm, info.bytes, info.id));
  }
  return rc;
}

// Persistent requests are known from their creation, whether or not the call is recorded;
// MPI_Start writes the posts.
int persistent_init(Call &call, RequestKind kind, int rc_of_call, int count, MPI_Datatype type,
                    int peer, int tag, MPI_Comm comm, MPI_Request *request) {
  call.returned();
  if (rc_of_call == MPI_SUCCESS && peer != MPI_PROC_NULL) {
    RequestInfo info;
    info.kind = kind;
    info.persistent = true;
    info.comm = comm_id(comm);
    info.peer = peer;
    info.tag = tag;
    info.bytes = bytes_of(count, type);
    info.active = false;
    request_posted(*request, request, info);
  }
  return rc_of_call;
}

void start_one(Call &call, MPI_Request request, const MPI_Request *where) {
  RequestInfo info;
  if (!request_start(request, where, info)) {
    return;
  }
  const auto kind = info.kind == RequestKind::Send ? RecordKind::IsendPost : RecordKind::IrecvPost;
  call.at_enter(message(kind, info.peer, info.tag, info.comm, info.bytes, info.id));
}

} // namespace
} // namespace parjava::tracer::runtime

using namespace parjava::tracer::runtime; // NOLINT(google-build-using-namespace)
using parjava::tracer::RecordKind;
using parjava::tracer::Routine;

extern "C" {

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(Routine::MPI_Send, PARJAVA_CALL_SITE(), PMPI_Send, buf, count, type, dest,
                       tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(Routine::MPI_Bsend, PARJAVA_CALL_SITE(), PMPI_Bsend, buf, count, type, dest,
                       tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(Routine::MPI_Ssend, PARJAVA_CALL_SITE(), PMPI_Ssend, buf, count, type, dest,
                       tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(Routine::MPI_Rsend, PARJAVA_CALL_SITE(), PMPI_Rsend, buf, count, type, dest,
                       tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  Call call(Routine::MPI_Recv, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
  }
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  call.returned();
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
    call.at_leave(
        message(RecordKind::Recv, st->MPI_SOURCE, st->MPI_TAG, comm_id(comm), received_bytes(*st)));
  }
  return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status) {
  Call call(Routine::MPI_Sendrecv, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, st);
  call.returned();
  const auto id = comm_id(comm);
  if (dest != MPI_PROC_NULL) {
    call.at_enter(message(RecordKind::Send, dest, sendtag, id, bytes_of(sendcount, sendtype)));
  }
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
    call.at_leave(message(RecordKind::Recv, st->MPI_SOURCE, st->MPI_TAG, id, received_bytes(*st)));
  }
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status) {
  Call call(Routine::MPI_Sendrecv_replace, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  }
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
  call.returned();
  const auto id = comm_id(comm);
  if (dest != MPI_PROC_NULL) {
    call.at_enter(message(RecordKind::Send, dest, sendtag, id, bytes_of(count, type)));
  }
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
    call.at_leave(message(RecordKind::Recv, st->MPI_SOURCE, st->MPI_TAG, id, received_bytes(*st)));
  }
  return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  Call call(Routine::MPI_Probe, PARJAVA_CALL_SITE());
  return PMPI_Probe(source, tag, comm, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  Call call(Routine::MPI_Iprobe, PARJAVA_CALL_SITE());
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  return nonblocking_send(Routine::MPI_Isend, PARJAVA_CALL_SITE(), PMPI_Isend, buf, count, type,
                          dest, tag, comm, request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return nonblocking_send(Routine::MPI_Ibsend, PARJAVA_CALL_SITE(), PMPI_Ibsend, buf, count, type,
                          dest, tag, comm, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return nonblocking_send(Routine::MPI_Issend, PARJAVA_CALL_SITE(), PMPI_Issend, buf, count, type,
                          dest, tag, comm, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return nonblocking_send(Routine::MPI_Irsend, PARJAVA_CALL_SITE(), PMPI_Irsend, buf, count, type,
                          dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
  Call call(Routine::MPI_Irecv, PARJAVA_CALL_SITE());
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (call && rc == MPI_SUCCESS && source == MPI_PROC_NULL) {
    post_null(request);
  } else if (call && rc == MPI_SUCCESS) {
    call.returned();
    RequestInfo info;
    info.id = next_request_id();
    info.kind = RequestKind::Recv;
    info.comm = comm_id(comm);
    info.peer = source == MPI_ANY_SOURCE ? -1 : source;
    info.tag = tag;
    info.bytes = bytes_of(count, type);
    request_posted(*request, request, info);
    call.at_enter(message(RecordKind::IrecvPost, info.peer, tag, info.comm, info.bytes, info.id));
  }
  return rc;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  Call call(Routine::MPI_Send_init, PARJAVA_CALL_SITE());
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  return persistent_init(call, RequestKind::Send, rc, count, type, dest, tag, comm, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  Call call(Routine::MPI_Bsend_init, PARJAVA_CALL_SITE());
  const int rc = PMPI_Bsend_init(buf, count, type, dest, tag, comm, request);
  return persistent_init(call, RequestKind::Send, rc, count, type, dest, tag, comm, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  Call call(Routine::MPI_Ssend_init, PARJAVA_CALL_SITE());
  const int rc = PMPI_Ssend_init(buf, count, type, dest, tag, comm, request);
  return persistent_init(call, RequestKind::Send, rc, count, type, dest, tag, comm, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  Call call(Routine::MPI_Rsend_init, PARJAVA_CALL_SITE());
  const int rc = PMPI_Rsend_init(buf, count, type, dest, tag, comm, request);
  return persistent_init(call, RequestKind::Send, rc, count, type, dest, tag, comm, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  Call call(Routine::MPI_Recv_init, PARJAVA_CALL_SITE());
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  return persistent_init(call, RequestKind::Recv, rc, count, type,
                         source == MPI_ANY_SOURCE ? -1 : source, tag, comm, request);
}

int MPI_Start(MPI_Request *request) {
  Call call(Routine::MPI_Start, PARJAVA_CALL_SITE());
  const MPI_Request original = *request;
  const int rc = PMPI_Start(request);
  if (call && rc == MPI_SUCCESS) {
    call.returned();
    start_one(call, original, request);
  }
  return rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  Call call(Routine::MPI_Startall, PARJAVA_CALL_SITE());
  const int rc = PMPI_Startall(count, requests);
  if (call && rc == MPI_SUCCESS) {
    call.returned();
    for (int i = 0; i < count; ++i) {
      start_one(call, requests[i], &requests[i]);
    }
  }
  return rc;
}

int MPI_Request_free(MPI_Request *request) {
  Call call(Routine::MPI_Request_free, PARJAVA_CALL_SITE());
  if (request != nullptr) {
    request_forget(*request, request);
  }
  return PMPI_Request_free(request);
}

int MPI_Cancel(MPI_Request *request) {
  Call call(Routine::MPI_Cancel, PARJAVA_CALL_SITE());
  if (request != nullptr) {
    request_cancel(*request, request);
  }
  return PMPI_Cancel(request);
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag) {
  Call call(Routine::MPI_Test_cancelled, PARJAVA_CALL_SITE());
  return PMPI_Test_cancelled(status, flag);
}

int MPI_Buffer_attach(void *buffer, int size) {
  Call call(Routine::MPI_Buffer_attach, PARJAVA_CALL_SITE());
  return PMPI_Buffer_attach(buffer, size);
}

int MPI_Buffer_detach(void *buffer_addr, int *size) {
  Call call(Routine::MPI_Buffer_detach, PARJAVA_CALL_SITE());
  return PMPI_Buffer_detach(buffer_addr, size);
}

} // extern "C"
