#include "mpi_calls.hpp"

#include <string>
#include <unordered_map>

namespace parjava::frontend {

namespace {

using K = MpiArg::Kind;

std::vector<MpiFunction> make_table() {
  std::vector<MpiFunction> t;
  auto comm = [](const char *op, std::vector<MpiArg> args) {
    return MpiFunction{"", MpiRole::Communication, op, std::move(args), -1, -1};
  };
  auto add = [&](std::string_view name, MpiFunction f) {
    f.name = name;
    t.push_back(std::move(f));
  };
  // MPI_Send(buf, count, datatype, dest, tag, comm)
  const std::vector<MpiArg> send = {
      {"dest", K::Expr, 3}, {"bytes", K::Bytes, 1, 2}, {"tag", K::Expr, 4}, {"comm", K::Comm, 5}};
  add("MPI_Send", comm("MPI_Send", send));
  add("MPI_Bsend", comm("MPI_Bsend", send));
  add("MPI_Ssend", comm("MPI_Ssend", send));
  add("MPI_Rsend", comm("MPI_Rsend", send));
  // MPI_Isend(buf, count, datatype, dest, tag, comm, &request)
  std::vector<MpiArg> isend = send;
  isend.push_back({"request", K::Request, 6});
  add("MPI_Isend", comm("MPI_Isend", isend));
  add("MPI_Ibsend", comm("MPI_Ibsend", isend));
  add("MPI_Issend", comm("MPI_Issend", isend));
  add("MPI_Irsend", comm("MPI_Irsend", isend));
  // MPI_Recv(buf, count, datatype, source, tag, comm, &status)
  add("MPI_Recv", comm("MPI_Recv", {{"source", K::Expr, 3},
                                    {"tag", K::Expr, 4},
                                    {"bytes", K::Bytes, 1, 2},
                                    {"comm", K::Comm, 5},
                                    {"", K::Status, 6}}));
  // MPI_Irecv(buf, count, datatype, source, tag, comm, &request)
  const std::vector<MpiArg> irecv = {{"source", K::Expr, 3},
                                     {"tag", K::Expr, 4},
                                     {"bytes", K::Bytes, 1, 2},
                                     {"comm", K::Comm, 5},
                                     {"request", K::Request, 6}};
  add("MPI_Irecv", comm("MPI_Irecv", irecv));
  // Persistent requests: the same arguments as the non-blocking call MPI_Start posts.
  auto persistent = [](const char *op, std::vector<MpiArg> args) {
    return MpiFunction{"", MpiRole::PersistentInit, op, std::move(args), -1, -1};
  };
  add("MPI_Send_init", persistent("MPI_Isend", isend));
  add("MPI_Bsend_init", persistent("MPI_Ibsend", isend));
  add("MPI_Ssend_init", persistent("MPI_Issend", isend));
  add("MPI_Rsend_init", persistent("MPI_Irsend", isend));
  add("MPI_Recv_init", persistent("MPI_Irecv", irecv));
  add("MPI_Start", MpiFunction{"", MpiRole::Start, "", {{"request", K::Request, 0}}, -1, -1});
  add("MPI_Startall", MpiFunction{"",
                                  MpiRole::Start,
                                  "",
                                  {{"count", K::Expr, 0}, {"request", K::RequestArray, 1}},
                                  -1,
                                  -1});
  // MPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, &st)
  add("MPI_Sendrecv", comm("MPI_Sendrecv", {{"dest", K::Expr, 3},
                                            {"sendbytes", K::Bytes, 1, 2},
                                            {"sendtag", K::Expr, 4},
                                            {"source", K::Expr, 8},
                                            {"recvtag", K::Expr, 9},
                                            {"recvbytes", K::Bytes, 6, 7},
                                            {"comm", K::Comm, 10},
                                            {"", K::Status, 11}}));
  // MPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, &status)
  add("MPI_Sendrecv_replace", comm("MPI_Sendrecv", {{"dest", K::Expr, 3},
                                                    {"sendbytes", K::Bytes, 1, 2},
                                                    {"sendtag", K::Expr, 4},
                                                    {"source", K::Expr, 5},
                                                    {"recvtag", K::Expr, 6},
                                                    {"recvbytes", K::Bytes, 1, 2},
                                                    {"comm", K::Comm, 7},
                                                    {"", K::Status, 8}}));
  add("MPI_Wait", comm("MPI_Wait", {{"request", K::Request, 0}}));
  add("MPI_Waitall", comm("MPI_Waitall", {{"request", K::RequestArray, 1}}));
  add("MPI_Waitany",
      comm("MPI_Waitany", {{"request", K::RequestArray, 1}, {"status_index", K::Index, 2}}));
  add("MPI_Test", comm("MPI_Test", {{"request", K::Request, 0}, {"flag", K::Flag, 1}}));
  add("MPI_Testall", comm("MPI_Testall", {{"request", K::RequestArray, 1}, {"flag", K::Flag, 2}}));
  // MPI_Probe(source, tag, comm, &status)
  add("MPI_Probe",
      comm(
          "MPI_Probe",
          {{"source", K::Expr, 0}, {"tag", K::Expr, 1}, {"comm", K::Comm, 2}, {"", K::Status, 3}}));
  add("MPI_Iprobe", comm("MPI_Iprobe", {{"source", K::Expr, 0},
                                        {"tag", K::Expr, 1},
                                        {"comm", K::Comm, 2},
                                        {"flag", K::Flag, 3},
                                        {"", K::Status, 4}}));
  add("MPI_Barrier", comm("MPI_Barrier", {{"comm", K::Comm, 0}}));
  // MPI_Bcast(buf, count, type, root, comm)
  add("MPI_Bcast",
      comm("MPI_Bcast", {{"root", K::Expr, 3}, {"bytes", K::Bytes, 1, 2}, {"comm", K::Comm, 4}}));
  // MPI_Reduce(sbuf, rbuf, count, type, op, root, comm)
  add("MPI_Reduce",
      comm("MPI_Reduce", {{"root", K::Expr, 5}, {"bytes", K::Bytes, 2, 3}, {"comm", K::Comm, 6}}));
  // MPI_Allreduce(sbuf, rbuf, count, type, op, comm); Scan and Exscan alike
  const std::vector<MpiArg> allreduce = {{"bytes", K::Bytes, 2, 3}, {"comm", K::Comm, 5}};
  add("MPI_Allreduce", comm("MPI_Allreduce", allreduce));
  add("MPI_Scan", comm("MPI_Scan", allreduce));
  add("MPI_Exscan", comm("MPI_Exscan", allreduce));
  // MPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
  add("MPI_Gather",
      comm("MPI_Gather", {{"root", K::Expr, 6}, {"bytes", K::Bytes, 1, 2}, {"comm", K::Comm, 7}}));
  // MPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm)
  add("MPI_Gatherv",
      comm("MPI_Gatherv",
           {{"root", K::Expr, 7}, {"bytes", K::PeerBytes, 1, 2}, {"comm", K::Comm, 8}}));
  // MPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm): every rank's block is
  // its receive count (the send count is significant at the root only).
  add("MPI_Scatter",
      comm("MPI_Scatter", {{"root", K::Expr, 6}, {"bytes", K::Bytes, 4, 5}, {"comm", K::Comm, 7}}));
  // MPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm)
  add("MPI_Scatterv",
      comm("MPI_Scatterv",
           {{"root", K::Expr, 7}, {"bytes", K::PeerBytes, 5, 6}, {"comm", K::Comm, 8}}));
  // MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm); Alltoall alike
  const std::vector<MpiArg> allgather = {{"bytes", K::Bytes, 1, 2}, {"comm", K::Comm, 6}};
  add("MPI_Allgather", comm("MPI_Allgather", allgather));
  add("MPI_Alltoall", comm("MPI_Alltoall", allgather));
  // MPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)
  add("MPI_Allgatherv",
      comm("MPI_Allgatherv", {{"bytes", K::PeerBytes, 1, 2}, {"comm", K::Comm, 7}}));
  // MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm): the
  // bytes sent to `peer` are scounts[peer], an array the model only knows through profiling.
  add("MPI_Alltoallv", comm("MPI_Alltoallv", {{"bytes", K::Bytes, 1, 3}, {"comm", K::Comm, 8}}));
  // MPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm)
  add("MPI_Reduce_scatter_block",
      comm("MPI_Reduce_scatter", {{"bytes", K::PeerBytes, 2, 3}, {"comm", K::Comm, 5}}));
  // MPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm)
  add("MPI_Reduce_scatter",
      comm("MPI_Reduce_scatter", {{"bytes", K::Bytes, 2, 3}, {"comm", K::Comm, 5}}));
  add("MPI_Comm_split", comm("MPI_Comm_split", {{"comm", K::Comm, 0},
                                                {"color", K::Expr, 1},
                                                {"key", K::Expr, 2},
                                                {"newcomm", K::NewComm, 3}}));
  add("MPI_Comm_dup", comm("MPI_Comm_dup", {{"comm", K::Comm, 0}, {"newcomm", K::NewComm, 1}}));
  // MPI_Cart_create(old, ndims, dims, periods, reorder, &cart): the model's cart communicator
  // holds the old one's processes with the same ranks (Open MPI does not reorder), so it is a
  // duplicate; its grid is kept for Cart_coords / Cart_shift / Cart_rank (effects.cpp).
  add("MPI_Cart_create", comm("MPI_Comm_dup", {{"comm", K::Comm, 0}, {"newcomm", K::NewComm, 5}}));
  // Groups are communicator names in the model: MPI_Comm_group names comm's processes, and
  // MPI_Comm_create makes a communicator of a group's members (MPI 4.0 §7.3.2, §7.4.2).
  add("MPI_Comm_group", comm("comm_assign", {{"comm", K::Comm, 0}, {"newcomm", K::NewComm, 1}}));
  add("MPI_Comm_create",
      comm("MPI_Comm_create",
           {{"comm", K::Comm, 0}, {"group", K::Comm, 1}, {"newcomm", K::NewComm, 2}}));
  add("MPI_Group_incl", MpiFunction{"", MpiRole::Group, "", {}, -1, 3});
  add("MPI_Group_range_incl", MpiFunction{"", MpiRole::Group, "", {}, -1, 3});
  add("MPI_Dims_create", MpiFunction{"", MpiRole::DimsCreate, "", {}, -1, 2});
  add("MPI_Cart_coords", MpiFunction{"", MpiRole::CartCoords, "", {}, 0, 3});
  add("MPI_Cart_shift", MpiFunction{"", MpiRole::CartShift, "", {}, 0, -1});
  add("MPI_Cart_rank", MpiFunction{"", MpiRole::CartRank, "", {}, 0, 2});

  add("MPI_Comm_rank", MpiFunction{"", MpiRole::CommRank, "", {}, 0, 1});
  add("MPI_Comm_size", MpiFunction{"", MpiRole::CommSize, "", {}, 0, 1});
  add("MPI_Init", MpiFunction{"", MpiRole::Init, "", {}, -1, -1});
  add("MPI_Init_thread", MpiFunction{"", MpiRole::Init, "", {}, -1, -1});
  add("MPI_Finalize", MpiFunction{"", MpiRole::Finalize, "", {}, -1, -1});
  add("MPI_Wtime", MpiFunction{"", MpiRole::Wtime, "", {}, -1, -1});
  add("MPI_Wtick", MpiFunction{"", MpiRole::Wtime, "", {}, -1, -1});
  add("MPI_Type_contiguous", MpiFunction{"", MpiRole::TypeContiguous, "", {}, -1, 2});
  add("MPI_Type_vector", MpiFunction{"", MpiRole::TypeVector, "", {}, -1, 4});
  add("MPI_Type_size", MpiFunction{"", MpiRole::TypeSize, "", {}, -1, 1});
  add("MPI_Get_count", MpiFunction{"", MpiRole::GetCount, "", {}, -1, 2});
  for (const char *local :
       {"MPI_Type_commit", "MPI_Type_free", "MPI_Op_create", "MPI_Op_free", "MPI_Comm_free",
        "MPI_Group_free", "MPI_Get_processor_name", "MPI_Initialized", "MPI_Finalized",
        "MPI_Error_string", "MPI_Get_version", "MPI_Abort", "MPI_Query_thread", "MPI_Buffer_attach",
        "MPI_Buffer_detach", "MPI_Request_free"}) {
    add(local, MpiFunction{"", MpiRole::Local, "", {}, -1, -1});
  }
  return t;
}

} // namespace

bool is_mpi_name(std::string_view name) {
  return name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0;
}

const MpiFunction *find_mpi_function(std::string_view name) {
  static const std::vector<MpiFunction> table = make_table();
  if (name.rfind("PMPI_", 0) == 0) {
    name.remove_prefix(1);
  }
  for (const auto &f : table) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

std::optional<std::int64_t> mpi_datatype_size(std::string_view name) {
  static const std::unordered_map<std::string, std::int64_t> sizes = {{"CHAR", 1},
                                                                      {"SIGNED_CHAR", 1},
                                                                      {"UNSIGNED_CHAR", 1},
                                                                      {"BYTE", 1},
                                                                      {"PACKED", 1},
                                                                      {"C_BOOL", 1},
                                                                      {"CXX_BOOL", 1},
                                                                      {"INT8_T", 1},
                                                                      {"UINT8_T", 1},
                                                                      {"SHORT", 2},
                                                                      {"UNSIGNED_SHORT", 2},
                                                                      {"INT16_T", 2},
                                                                      {"UINT16_T", 2},
                                                                      {"INT", 4},
                                                                      {"UNSIGNED", 4},
                                                                      {"INT32_T", 4},
                                                                      {"UINT32_T", 4},
                                                                      {"FLOAT", 4},
                                                                      {"WCHAR", 4},
                                                                      {"LONG", 8},
                                                                      {"UNSIGNED_LONG", 8},
                                                                      {"LONG_LONG", 8},
                                                                      {"LONG_LONG_INT", 8},
                                                                      {"UNSIGNED_LONG_LONG", 8},
                                                                      {"INT64_T", 8},
                                                                      {"UINT64_T", 8},
                                                                      {"DOUBLE", 8},
                                                                      {"AINT", 8},
                                                                      {"OFFSET", 8},
                                                                      {"COUNT", 8},
                                                                      {"LONG_DOUBLE", 16},
                                                                      {"C_FLOAT_COMPLEX", 8},
                                                                      {"C_COMPLEX", 8},
                                                                      {"CXX_FLOAT_COMPLEX", 8},
                                                                      {"C_DOUBLE_COMPLEX", 16},
                                                                      {"CXX_DOUBLE_COMPLEX", 16},
                                                                      {"2INT", 8},
                                                                      {"FLOAT_INT", 8},
                                                                      {"DOUBLE_INT", 12},
                                                                      {"LONG_INT", 12},
                                                                      {"SHORT_INT", 6},
                                                                      {"LONG_DOUBLE_INT", 20},
                                                                      {"2DOUBLE_PRECISION", 16},
                                                                      {"2REAL", 8},
                                                                      {"2INTEGER", 8}};
  std::string key(name);
  if (key.rfind("MPI_", 0) == 0) {
    key = key.substr(4);
  } else if (key.rfind("ompi_mpi_", 0) == 0) {
    key = key.substr(9);
    for (auto &c : key) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  } else {
    return std::nullopt;
  }
  const auto it = sizes.find(key);
  if (it == sizes.end()) {
    return std::nullopt;
  }
  return it->second;
}

} // namespace parjava::frontend
