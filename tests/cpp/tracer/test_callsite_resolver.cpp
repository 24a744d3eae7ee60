// Call-site resolution end to end inside this test process: a return address, undone from ASLR
// through our own /proc/self/maps, resolves to the source line of the call.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "parjava/tracer/callsite_resolver.hpp"
#include "parjava/tracer/memory_map.hpp"

namespace parjava::tracer {
namespace {

__attribute__((noinline)) std::uintptr_t return_address() {
  // The caller's return address, as the tracer's wrappers record it.
  return reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
}

std::string own_memory_map() {
  std::ifstream in("/proc/self/maps");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MemoryMap, ParsesMapsLinesAndLocatesAddresses) {
  const auto map =
      MemoryMap::parse("7f0000001000-7f0000002000 r-xp 00003000 08:01 17 /usr/lib/libfoo.so\n"
                       "7f0000002000-7f0000004000 rw-p 00000000 00:00 0 \n"
                       "7f0000004000-7f0000005000 rw-p 00000000 00:00 0 [heap]\n"
                       "garbage line\n");
  ASSERT_EQ(map.mappings().size(), 3U);
  const auto in_file = map.locate(0x7f0000001010);
  ASSERT_TRUE(in_file);
  EXPECT_TRUE(in_file->file_backed());
  EXPECT_EQ(in_file->path, "/usr/lib/libfoo.so");
  EXPECT_EQ(in_file->file_offset, 0x3010U);
  const auto anonymous = map.locate(0x7f0000002040);
  ASSERT_TRUE(anonymous);
  EXPECT_FALSE(anonymous->file_backed());
  EXPECT_EQ(anonymous->mapping_size, 0x2000U);
  EXPECT_EQ(anonymous->offset_in_mapping, 0x40U);
  EXPECT_FALSE(map.locate(0x1000));
  EXPECT_FALSE(map.locate(0x7f0000005000));
}

TEST(CallSiteResolver, ResolvesAReturnAddressToItsSourceLine) {
  const int call_line = __LINE__ + 1;
  const std::uintptr_t ra = return_address();
  const auto map = MemoryMap::parse(own_memory_map());
  const auto where = map.locate(ra);
  ASSERT_TRUE(where);
  ASSERT_TRUE(where->file_backed());
  CallSiteResolver resolver;
  const auto line = resolver.resolve_return_address(where->path, where->file_offset);
  ASSERT_TRUE(line) << "no line information for " << where->path;
  EXPECT_EQ(line->line, static_cast<std::uint32_t>(call_line));
  EXPECT_NE(line->file.find("test_callsite_resolver.cpp"), std::string::npos) << line->file;
  EXPECT_NE(line->function.find("ResolvesAReturnAddressToItsSourceLine"), std::string::npos)
      << line->function;
  // Cached: the same answer again.
  EXPECT_EQ(resolver.resolve_return_address(where->path, where->file_offset)->line, line->line);
  EXPECT_TRUE(resolver.failures().empty());
}

TEST(CallSiteResolver, ReportsBinariesItCannotRead) {
  CallSiteResolver resolver;
  EXPECT_FALSE(resolver.resolve_return_address("/no/such/binary", 0x1234));
  EXPECT_FALSE(resolver.resolve_return_address("/no/such/binary", 0));
  const auto failures = resolver.failures();
  ASSERT_EQ(failures.size(), 1U);
  EXPECT_EQ(failures.begin()->first, "/no/such/binary");
}

} // namespace
} // namespace parjava::tracer
