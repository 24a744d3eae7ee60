// EventBuffer: records pushed beyond capacity reach the file in order, the signal-path flush
// writes what is pending exactly once, and the reader streams it back.
#include <gtest/gtest.h>

#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/tracer/event_buffer.hpp"
#include "parjava/tracer/fragment_reader.hpp"

namespace parjava::tracer {
namespace {

class EventBufferTest : public ::testing::Test {
protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("parjava_buffer_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".evt");
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
    ASSERT_TRUE(write_fragment_header(fd_, 3));
  }
  void TearDown() override {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    std::filesystem::remove(path_);
  }
  std::vector<Record> read_back() {
    EventFileReader reader(path_);
    EXPECT_EQ(reader.thread(), 3U);
    std::vector<Record> all;
    std::vector<Record> chunk;
    while (reader.next(chunk, 7)) {
      all.insert(all.end(), chunk.begin(), chunk.end());
    }
    EXPECT_EQ(reader.trailing_bytes(), 0U);
    return all;
  }
  static Record numbered(std::uint64_t i) {
    Record r;
    r.kind = RecordKind::Send;
    r.time = 1000 + i;
    r.a = i;
    return r;
  }

  std::filesystem::path path_;
  int fd_ = -1;
};

TEST_F(EventBufferTest, RecordsBeyondCapacityAreFlushedInOrder) {
  std::vector<Record> storage(8);
  EventBuffer buffer;
  buffer.attach(storage.data(), storage.size(), fd_);
  for (std::uint64_t i = 0; i < 50; ++i) {
    buffer.push(numbered(i));
  }
  EXPECT_EQ(buffer.records_flushed(), 48U); // six full buffers
  EXPECT_EQ(buffer.pending(), 2U);
  buffer.flush();
  const auto records = read_back();
  ASSERT_EQ(records.size(), 50U);
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(records[i].a, i);
    EXPECT_EQ(records[i].time, 1000 + i);
  }
}

TEST_F(EventBufferTest, SignalFlushWritesPendingRecordsOnce) {
  std::vector<Record> storage(16);
  EventBuffer buffer;
  buffer.attach(storage.data(), storage.size(), fd_);
  for (std::uint64_t i = 0; i < 5; ++i) {
    buffer.push(numbered(i));
  }
  ASSERT_NE(buffer.last(), nullptr);
  EXPECT_EQ(buffer.last()->a, 4U);
  buffer.flush_from_signal();
  buffer.flush_from_signal(); // nothing pending any more
  buffer.flush();
  EXPECT_EQ(buffer.last(), nullptr);
  buffer.push(numbered(5));
  buffer.flush();
  const auto records = read_back();
  ASSERT_EQ(records.size(), 6U);
  EXPECT_EQ(records.back().a, 5U);
}

TEST_F(EventBufferTest, DiscardingBufferNeverWrites) {
  std::vector<Record> storage(4);
  EventBuffer buffer;
  buffer.attach(storage.data(), storage.size(), -1);
  for (std::uint64_t i = 0; i < 20; ++i) {
    buffer.push(numbered(i));
  }
  EXPECT_FALSE(buffer.write_failed());
  EXPECT_TRUE(read_back().empty());
}

TEST_F(EventBufferTest, ReaderReportsARecordCutShort) {
  const Record r = numbered(1);
  ASSERT_TRUE(write_all(fd_, &r, sizeof r));
  ASSERT_TRUE(write_all(fd_, &r, sizeof r / 2)); // the process died mid-write
  EventFileReader reader(path_);
  std::vector<Record> chunk;
  ASSERT_TRUE(reader.next(chunk));
  EXPECT_EQ(chunk.size(), 1U);
  EXPECT_FALSE(reader.next(chunk));
  EXPECT_EQ(reader.trailing_bytes(), sizeof r / 2);
}

TEST(EventFileReader, RejectsFilesThatAreNotOurs) {
  const auto path = std::filesystem::temp_directory_path() / "parjava_not_events.evt";
  {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    std::fputs("definitely not an event file header", f);
    std::fclose(f);
  }
  EXPECT_THROW(EventFileReader{path}, Error);
  std::filesystem::remove(path);
  EXPECT_THROW(EventFileReader{path}, Error);
}

} // namespace
} // namespace parjava::tracer
