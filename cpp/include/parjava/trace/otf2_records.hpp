// Every OTF2 3.0 event record, in the order of the OTF2 format's record identifiers
// (OTF2_EVENT_BUFFER_FLUSH = 10 ... OTF2_EVENT_COMM_DESTROY = 88): X(Name, UPPER_NAME, id),
// UPPER_NAME as otf2-print prints it.
// Used to register a callback for each record (the reader keeps unknown ones as
// EventKind::Generic with aux = id) and to name records (otf2_record_name).
#pragma once

#define PARJAVA_OTF2_EVENT_RECORDS(X)                                                              \
  X(BufferFlush, BUFFER_FLUSH, 10)                                                                 \
  X(MeasurementOnOff, MEASUREMENT_ON_OFF, 11)                                                      \
  X(Enter, ENTER, 12)                                                                              \
  X(Leave, LEAVE, 13)                                                                              \
  X(MpiSend, MPI_SEND, 14)                                                                         \
  X(MpiIsend, MPI_ISEND, 15)                                                                       \
  X(MpiIsendComplete, MPI_ISEND_COMPLETE, 16)                                                      \
  X(MpiIrecvRequest, MPI_IRECV_REQUEST, 17)                                                        \
  X(MpiRecv, MPI_RECV, 18)                                                                         \
  X(MpiIrecv, MPI_IRECV, 19)                                                                       \
  X(MpiRequestTest, MPI_REQUEST_TEST, 20)                                                          \
  X(MpiRequestCancelled, MPI_REQUEST_CANCELLED, 21)                                                \
  X(MpiCollectiveBegin, MPI_COLLECTIVE_BEGIN, 22)                                                  \
  X(MpiCollectiveEnd, MPI_COLLECTIVE_END, 23)                                                      \
  X(OmpFork, OMP_FORK, 24)                                                                         \
  X(OmpJoin, OMP_JOIN, 25)                                                                         \
  X(OmpAcquireLock, OMP_ACQUIRE_LOCK, 26)                                                          \
  X(OmpReleaseLock, OMP_RELEASE_LOCK, 27)                                                          \
  X(OmpTaskCreate, OMP_TASK_CREATE, 28)                                                            \
  X(OmpTaskSwitch, OMP_TASK_SWITCH, 29)                                                            \
  X(OmpTaskComplete, OMP_TASK_COMPLETE, 30)                                                        \
  X(Metric, METRIC, 31)                                                                            \
  X(ParameterString, PARAMETER_STRING, 32)                                                         \
  X(ParameterInt, PARAMETER_INT64, 33)                                                             \
  X(ParameterUnsignedInt, PARAMETER_UINT64, 34)                                                    \
  X(RmaWinCreate, RMA_WIN_CREATE, 35)                                                              \
  X(RmaWinDestroy, RMA_WIN_DESTROY, 36)                                                            \
  X(RmaCollectiveBegin, RMA_COLLECTIVE_BEGIN, 37)                                                  \
  X(RmaCollectiveEnd, RMA_COLLECTIVE_END, 38)                                                      \
  X(RmaGroupSync, RMA_GROUP_SYNC, 39)                                                              \
  X(RmaRequestLock, RMA_REQUEST_LOCK, 40)                                                          \
  X(RmaAcquireLock, RMA_ACQUIRE_LOCK, 41)                                                          \
  X(RmaTryLock, RMA_TRY_LOCK, 42)                                                                  \
  X(RmaReleaseLock, RMA_RELEASE_LOCK, 43)                                                          \
  X(RmaSync, RMA_SYNC, 44)                                                                         \
  X(RmaWaitChange, RMA_WAIT_CHANGE, 45)                                                            \
  X(RmaPut, RMA_PUT, 46)                                                                           \
  X(RmaGet, RMA_GET, 47)                                                                           \
  X(RmaAtomic, RMA_ATOMIC, 48)                                                                     \
  X(RmaOpCompleteBlocking, RMA_OP_COMPLETE_BLOCKING, 49)                                           \
  X(RmaOpCompleteNonBlocking, RMA_OP_COMPLETE_NON_BLOCKING, 50)                                    \
  X(RmaOpTest, RMA_OP_TEST, 51)                                                                    \
  X(RmaOpCompleteRemote, RMA_OP_COMPLETE_REMOTE, 52)                                               \
  X(ThreadFork, THREAD_FORK, 53)                                                                   \
  X(ThreadJoin, THREAD_JOIN, 54)                                                                   \
  X(ThreadTeamBegin, THREAD_TEAM_BEGIN, 55)                                                        \
  X(ThreadTeamEnd, THREAD_TEAM_END, 56)                                                            \
  X(ThreadAcquireLock, THREAD_ACQUIRE_LOCK, 57)                                                    \
  X(ThreadReleaseLock, THREAD_RELEASE_LOCK, 58)                                                    \
  X(ThreadTaskCreate, THREAD_TASK_CREATE, 59)                                                      \
  X(ThreadTaskSwitch, THREAD_TASK_SWITCH, 60)                                                      \
  X(ThreadTaskComplete, THREAD_TASK_COMPLETE, 61)                                                  \
  X(ThreadCreate, THREAD_CREATE, 62)                                                               \
  X(ThreadBegin, THREAD_BEGIN, 63)                                                                 \
  X(ThreadWait, THREAD_WAIT, 64)                                                                   \
  X(ThreadEnd, THREAD_END, 65)                                                                     \
  X(CallingContextEnter, CALLING_CONTEXT_ENTER, 66)                                                \
  X(CallingContextLeave, CALLING_CONTEXT_LEAVE, 67)                                                \
  X(CallingContextSample, CALLING_CONTEXT_SAMPLE, 68)                                              \
  X(IoCreateHandle, IO_CREATE_HANDLE, 69)                                                          \
  X(IoDestroyHandle, IO_DESTROY_HANDLE, 70)                                                        \
  X(IoDuplicateHandle, IO_DUPLICATE_HANDLE, 71)                                                    \
  X(IoSeek, IO_SEEK, 72)                                                                           \
  X(IoChangeStatusFlags, IO_CHANGE_FLAGS, 73)                                                      \
  X(IoDeleteFile, IO_DELETE_FILE, 74)                                                              \
  X(IoOperationBegin, IO_OPERATION_BEGIN, 75)                                                      \
  X(IoOperationTest, IO_OPERATION_TEST, 76)                                                        \
  X(IoOperationIssued, IO_OPERATION_ISSUED, 77)                                                    \
  X(IoOperationComplete, IO_OPERATION_COMPLETE, 78)                                                \
  X(IoOperationCancelled, IO_OPERATION_CANCELLED, 79)                                              \
  X(IoAcquireLock, IO_ACQUIRE_LOCK, 80)                                                            \
  X(IoReleaseLock, IO_RELEASE_LOCK, 81)                                                            \
  X(IoTryLock, IO_TRY_LOCK, 82)                                                                    \
  X(ProgramBegin, PROGRAM_BEGIN, 83)                                                               \
  X(ProgramEnd, PROGRAM_END, 84)                                                                   \
  X(NonBlockingCollectiveRequest, NON_BLOCKING_COLLECTIVE_REQUEST, 85)                             \
  X(NonBlockingCollectiveComplete, NON_BLOCKING_COLLECTIVE_COMPLETE, 86)                           \
  X(CommCreate, COMM_CREATE, 87)                                                                   \
  X(CommDestroy, COMM_DESTROY, 88)
