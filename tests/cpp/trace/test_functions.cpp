#include <gtest/gtest.h>

#include "parjava/trace/functions.hpp"

using namespace parjava::trace;

TEST(Functions, Seed004CategoriesOfTheFortySixFunctions) {
  // notes 004 §5: 14 collective, 4 + 4 sends, 8 blocking receive/wait, 6 non-blocking, 10 other.
  EXPECT_EQ(function_info(function_by_name("MPI_Reduce_scatter")).category, Category::Collective);
  EXPECT_EQ(function_info(function_by_name("MPI_Rsend")).category, Category::BlockingSend);
  EXPECT_EQ(function_info(function_by_name("MPI_Irsend")).category, Category::NonblockingSend);
  EXPECT_EQ(function_info(function_by_name("MPI_Sendrecv_replace")).category,
            Category::BlockingReceiveWait);
  EXPECT_EQ(function_info(function_by_name("MPI_Iprobe")).category,
            Category::NonblockingReceiveTest);
  EXPECT_EQ(function_info(function_by_name("MPI_Startall")).category, Category::Other);
  EXPECT_EQ(function_info(Function::None).category, Category::UserCode);
}

TEST(Functions, NamesRoundTripAndPmpiPrefixIsAccepted) {
  for (auto i = 1; i < static_cast<int>(Function::Count_); ++i) {
    const auto f = static_cast<Function>(i);
    if (function_info(f).paradigm == Paradigm::Mpi) {
      EXPECT_EQ(function_by_name(function_info(f).name), f) << function_info(f).name;
    }
  }
  EXPECT_EQ(function_by_name("PMPI_Allreduce"), Function::MPI_Allreduce);
  EXPECT_EQ(function_by_name("MPI_Nonexistent"), Function::None);
  EXPECT_EQ(function_by_name("main"), Function::None);
}

TEST(Functions, ShmemTypedVariantsShareOneIdentity) {
  EXPECT_EQ(function_by_name("shmem_int_sum_to_all"), Function::ShmemReduce);
  EXPECT_EQ(function_by_name("shmem_double_put"), Function::ShmemPut);
  EXPECT_EQ(function_by_name("shmem_putmem"), Function::ShmemPut);
  EXPECT_EQ(function_by_name("shmem_int_p"), Function::ShmemPut);
  EXPECT_EQ(function_by_name("shmem_getmem"), Function::ShmemGet);
  EXPECT_EQ(function_by_name("shmem_broadcast64"), Function::ShmemBroadcast);
  EXPECT_EQ(function_by_name("shmem_fcollect32"), Function::ShmemFcollect);
  EXPECT_EQ(function_by_name("shmalloc"), Function::ShmemMalloc);
  EXPECT_EQ(function_by_name("pshmem_barrier_all"), Function::ShmemBarrierAll);
  EXPECT_EQ(function_by_name("shmem_set_lock"), Function::ShmemSetLock);
  EXPECT_EQ(function_info(Function::ShmemMalloc).shape, CollectiveShape::Allocation);
}

TEST(Functions, SendModesAndGroups) {
  EXPECT_EQ(function_info(Function::MPI_Issend).send_mode, SendMode::Synchronous);
  EXPECT_FALSE(function_info(Function::MPI_Issend).blocking);
  EXPECT_EQ(function_info(Function::MPI_Bsend).send_mode, SendMode::Buffered);
  EXPECT_EQ(group_by_name("wait-test"), Group::WaitTest);
  EXPECT_EQ(group_name(Group::P2PNonblocking), "p2p-nonblocking");
  EXPECT_FALSE(group_by_name("bogus").has_value());
}
