// PMPI wrappers of request completion (Wait*, Test*): the completion events of the requests
// they complete (MpiIsendComplete, MpiIrecv with the actual source, tag and size,
// MpiRequestCancelled) at the call's leave time, and MpiRequestTest for requests a Test* found
// still pending. Handles are copied before the call because MPI resets completed ones.
#include <algorithm>
#include <mpi.h>
#include <vector>

#include "call.hpp"
#include "messages.hpp"
#include "requests.hpp"

namespace parjava::tracer::runtime {
namespace {

struct Scratch {
  std::vector<MPI_Request> originals;
  std::vector<MPI_Status> statuses;
};

Scratch &scratch(int count) {
  thread_local Scratch s;
  const auto n = static_cast<std::size_t>(count > 0 ? count : 0);
  if (s.originals.size() < n) {
    s.originals.resize(n);
    s.statuses.resize(n);
  }
  return s;
}

void completed(Call &call, MPI_Request original, const MPI_Request *where,
               const MPI_Status &status) {
  RequestInfo info;
  if (!request_complete(original, where, info) || info.kind == RequestKind::Null) {
    return;
  }
  if (info.cancel_requested) {
    int cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (cancelled != 0) {
      call.at_leave(request_event(RecordKind::RequestCancelled, info.id));
      return;
    }
  }
  if (info.kind == RequestKind::Send) {
    call.at_leave(request_event(RecordKind::IsendComplete, info.id));
  } else {
    call.at_leave(message(RecordKind::IrecvComplete, status.MPI_SOURCE, status.MPI_TAG, info.comm,
                          received_bytes(status), info.id));
  }
}

void tested(Call &call, MPI_Request original, const MPI_Request *where) {
  RequestInfo info;
  if (request_find(original, where, info) && info.kind != RequestKind::Null && info.active) {
    call.at_leave(request_event(RecordKind::RequestTest, info.id));
  }
}

// With MPI_ERR_IN_STATUS only the statuses whose MPI_ERROR is MPI_SUCCESS completed well;
// otherwise MPI_ERROR is not set and every listed request completed.
bool succeeded(int rc, const MPI_Status &status) {
  return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && status.MPI_ERROR == MPI_SUCCESS);
}

} // namespace
} // namespace parjava::tracer::runtime

using namespace parjava::tracer::runtime; // NOLINT(google-build-using-namespace)
using parjava::tracer::Routine;

extern "C" {

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  Call call(Routine::MPI_Wait, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Wait(request, status);
  }
  const MPI_Request original = *request;
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Wait(request, st);
  call.returned();
  if (rc == MPI_SUCCESS && original != MPI_REQUEST_NULL) {
    completed(call, original, request, *st);
  }
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  Call call(Routine::MPI_Waitany, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Waitany(count, requests, index, status);
  }
  auto &s = scratch(count);
  std::copy(requests, requests + count, s.originals.begin());
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Waitany(count, requests, index, st);
  call.returned();
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
    completed(call, s.originals[static_cast<std::size_t>(*index)], &requests[*index], *st);
  }
  return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Call call(Routine::MPI_Waitall, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Waitall(count, requests, statuses);
  }
  auto &s = scratch(count);
  std::copy(requests, requests + count, s.originals.begin());
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses.data() : statuses;
  const int rc = PMPI_Waitall(count, requests, st);
  call.returned();
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (s.originals[k] != MPI_REQUEST_NULL && succeeded(rc, st[k])) {
      completed(call, s.originals[k], &requests[i], st[k]);
    }
  }
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  Call call(Routine::MPI_Waitsome, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  }
  auto &s = scratch(incount);
  std::copy(requests, requests + incount, s.originals.begin());
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses.data() : statuses;
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, st);
  call.returned();
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
    for (int k = 0; k < *outcount; ++k) {
      const auto i = static_cast<std::size_t>(indices[k]);
      if (succeeded(rc, st[k])) {
        completed(call, s.originals[i], &requests[indices[k]], st[k]);
      }
    }
  }
  return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  Call call(Routine::MPI_Test, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Test(request, flag, status);
  }
  const MPI_Request original = *request;
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Test(request, flag, st);
  call.returned();
  if (rc == MPI_SUCCESS && original != MPI_REQUEST_NULL) {
    if (*flag != 0) {
      completed(call, original, request, *st);
    } else {
      tested(call, original, request);
    }
  }
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  Call call(Routine::MPI_Testany, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Testany(count, requests, index, flag, status);
  }
  auto &s = scratch(count);
  std::copy(requests, requests + count, s.originals.begin());
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Testany(count, requests, index, flag, st);
  call.returned();
  if (rc != MPI_SUCCESS) {
    return rc;
  }
  if (*flag != 0 && *index != MPI_UNDEFINED) {
    completed(call, s.originals[static_cast<std::size_t>(*index)], &requests[*index], *st);
  } else if (*flag == 0) {
    for (int i = 0; i < count; ++i) {
      tested(call, s.originals[static_cast<std::size_t>(i)], &requests[i]);
    }
  }
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  Call call(Routine::MPI_Testall, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Testall(count, requests, flag, statuses);
  }
  auto &s = scratch(count);
  std::copy(requests, requests + count, s.originals.begin());
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses.data() : statuses;
  const int rc = PMPI_Testall(count, requests, flag, st);
  call.returned();
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    return rc;
  }
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (s.originals[k] == MPI_REQUEST_NULL) {
      continue;
    }
    if (*flag != 0) {
      if (succeeded(rc, st[k])) {
        completed(call, s.originals[k], &requests[i], st[k]);
      }
    } else {
      tested(call, s.originals[k], &requests[i]);
    }
  }
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  Call call(Routine::MPI_Testsome, PARJAVA_CALL_SITE());
  if (!call) {
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  }
  auto &s = scratch(incount);
  std::copy(requests, requests + incount, s.originals.begin());
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses.data() : statuses;
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, st);
  call.returned();
  if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount == MPI_UNDEFINED) {
    return rc;
  }
  std::vector<bool> &done = [&]() -> std::vector<bool> & {
    thread_local std::vector<bool> flags;
    flags.assign(static_cast<std::size_t>(incount), false);
    return flags;
  }();
  for (int k = 0; k < *outcount; ++k) {
    const auto i = static_cast<std::size_t>(indices[k]);
    done[i] = true;
    if (succeeded(rc, st[k])) {
      completed(call, s.originals[i], &requests[indices[k]], st[k]);
    }
  }
  for (int i = 0; i < incount; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!done[k] && s.originals[k] != MPI_REQUEST_NULL) {
      tested(call, s.originals[k], &requests[i]);
    }
  }
  return rc;
}

} // extern "C"
