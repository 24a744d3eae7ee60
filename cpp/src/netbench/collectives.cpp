#include "collectives.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace parjava::netbench {

std::string collective_name(Collective collective) {
  switch (collective) {
  case Collective::Barrier:
    return "barrier";
  case Collective::Bcast:
    return "bcast";
  case Collective::Allreduce:
    return "allreduce";
  case Collective::Alltoall:
    return "alltoall";
  }
  return "unknown";
}

namespace {

class Runner {
public:
  Runner(MPI_Comm comm, Collective collective, std::uint64_t bytes)
      : comm_(comm), collective_(collective) {
    MPI_Comm_size(comm_, &ranks_);
    const std::size_t n = std::max<std::uint64_t>(bytes, 1);
    switch (collective_) {
    case Collective::Barrier:
      break;
    case Collective::Bcast:
      count_ = static_cast<int>(bytes);
      buffer_.assign(n, 1);
      break;
    case Collective::Allreduce:
      count_ = static_cast<int>(bytes / sizeof(double));
      values_.assign(std::max(count_, 1), 1.0);
      results_.assign(std::max(count_, 1), 0.0);
      break;
    case Collective::Alltoall:
      count_ = static_cast<int>(bytes);
      buffer_.assign(n * static_cast<std::size_t>(ranks_), 1);
      received_.assign(n * static_cast<std::size_t>(ranks_), 0);
      break;
    }
  }

  // Mean seconds per operation over `repetitions`, on this rank.
  double run(int repetitions) {
    MPI_Barrier(comm_);
    const double start = MPI_Wtime();
    for (int i = 0; i < repetitions; ++i) {
      once();
    }
    return (MPI_Wtime() - start) / repetitions;
  }

private:
  void once() {
    switch (collective_) {
    case Collective::Barrier:
      MPI_Barrier(comm_);
      return;
    case Collective::Bcast:
      MPI_Bcast(buffer_.data(), count_, MPI_BYTE, 0, comm_);
      return;
    case Collective::Allreduce:
      MPI_Allreduce(values_.data(), results_.data(), count_, MPI_DOUBLE, MPI_SUM, comm_);
      return;
    case Collective::Alltoall:
      MPI_Alltoall(buffer_.data(), count_, MPI_BYTE, received_.data(), count_, MPI_BYTE, comm_);
      return;
    }
  }

  MPI_Comm comm_;
  Collective collective_;
  int ranks_ = 0;
  int count_ = 0;
  std::vector<unsigned char> buffer_;
  std::vector<unsigned char> received_;
  std::vector<double> values_;
  std::vector<double> results_;
};

// The slowest rank's value, on rank 0.
double slowest(MPI_Comm comm, double seconds) {
  double result = 0.0;
  MPI_Reduce(&seconds, &result, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  return result;
}

} // namespace

machine::CollectiveTiming time_collective(MPI_Comm comm, Collective collective, std::uint64_t bytes,
                                          const SamplerOptions &options,
                                          double target_sample_seconds) {
  int rank = 0;
  int ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  Runner runner(comm, collective, bytes);
  (void)runner.run(1); // warm-up
  // Rank 0 chooses the batch size from the fastest of three timed operations (one that lost
  // the core would make the batches too short) and tells the others.
  double single = slowest(comm, runner.run(1));
  single = std::min(single, slowest(comm, runner.run(1)));
  single = std::min(single, slowest(comm, runner.run(1)));
  int repetitions = 1;
  if (rank == 0) {
    repetitions = static_cast<int>(
        std::clamp(std::ceil(target_sample_seconds / std::max(single, 1e-9)), 1.0, 1000.0));
  }
  MPI_Bcast(&repetitions, 1, MPI_INT, 0, comm);

  Sampler sampler(options);
  const double start = MPI_Wtime();
  int more = 1;
  while (more != 0) {
    const double sample = slowest(comm, runner.run(repetitions));
    if (rank == 0) {
      sampler.add(sample);
      more = sampler.done(MPI_Wtime() - start) ? 0 : 1;
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
  }
  machine::CollectiveTiming timing;
  timing.operation = collective_name(collective);
  timing.ranks = ranks;
  timing.timing = sampler.result(
      collective == Collective::Allreduce ? bytes / sizeof(double) * sizeof(double) : bytes,
      repetitions);
  return timing;
}

} // namespace parjava::netbench
