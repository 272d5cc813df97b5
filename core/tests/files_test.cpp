#include "core/files.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <stdexcept>

namespace mcpping {
namespace {

namespace fs = std::filesystem;

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("core-files-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(Files, WrittenBytesReadBackWhole) {
  const std::string bytes("a\0b\nc", 5);
  write_file(dir_ / "f", bytes);
  EXPECT_EQ(try_read_file(dir_ / "f"), bytes);
  EXPECT_EQ(read_file_or_empty(dir_ / "f"), bytes);
}

TEST_F(Files, AMissingFileIsNulloptOrEmpty) {
  EXPECT_EQ(try_read_file(dir_ / "missing"), std::nullopt);
  EXPECT_EQ(try_read_file_head(dir_ / "missing", 10), std::nullopt);
  EXPECT_EQ(read_file_or_empty(dir_ / "missing"), "");
}

TEST_F(Files, WriteFileNamesTheFileItCannotWrite) {
  try {
    write_file(dir_ / "no-such-folder" / "f", "x");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-folder"), std::string::npos) << e.what();
  }
}

TEST_F(Files, HeadStopsAtItsCapAcrossReadChunks) {
  std::string bytes;
  for (int i = 0; bytes.size() < 300 * 1024; ++i) bytes += std::to_string(i) + ",";
  write_file(dir_ / "f", bytes);
  EXPECT_EQ(try_read_file_head(dir_ / "f", 200 * 1024 + 7), bytes.substr(0, 200 * 1024 + 7));
  EXPECT_EQ(try_read_file_head(dir_ / "f", bytes.size() + 1), bytes);
  EXPECT_EQ(try_read_file_head(dir_ / "f", 0), "");
}

// The HTML report reads each case's transcript with a 2 MiB cap. The defect: the head was a
// string of the cap's size, zero-filled, for every case: 12 % of a one-case run's CPU.
TEST_F(Files, RegressionAShortFileUnderAHugeCapDoesNotAllocateTheCap) {
  write_file(dir_ / "f", "short");
  const auto head = try_read_file_head(dir_ / "f", std::size_t{1} << 30);
  ASSERT_EQ(head, "short");
  EXPECT_LT(head->capacity(), std::size_t{1} << 20);
}

}  // namespace
}  // namespace mcpping
