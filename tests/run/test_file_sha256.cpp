// SHA-256 of loaded code's files: the FIPS 180-2 test vectors and a file read in pieces.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "src/core/error.hpp"
#include "src/run/file_sha256.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("sha256_hex gives the published digests of the empty string and \"abc\"") {
  CHECK(sha256_hex(nullptr, 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const uint8_t abc[] = {'a', 'b', 'c'};
  CHECK(sha256_hex(abc, 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("file_sha256 reads a file larger than its buffer, and a missing file is a one-line error") {
  TmpDir dir;
  const std::string path = dir / "a-million-a.bin";
  // One million 'a's: the third FIPS 180-2 vector, read in several 64 KiB pieces.
  std::vector<uint8_t> data(1000000, 'a');
  FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(data.data(), 1, data.size(), f) == data.size());
  std::fclose(f);
  CHECK(file_sha256(path, kMaxLoadedFile, "shared object") ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  CHECK_THROWS_WITH_AS(file_sha256(path, 999999, "shared object"),
                       (path + ": longer than 0 MiB: a shared object is at most that").c_str(), InputError);
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(file_sha256(path, kMaxLoadedFile, "shared object"),
                       (path + ": cannot read shared object (No such file or directory)").c_str(), InputError);
}

TEST_CASE("file_sha256 refuses /dev/zero behind a link and a FIFO at once, before reading a byte") {
  TmpDir dir;
  const std::string zero = dir / "zero.so", fifo = dir / "fifo.so";
  REQUIRE(symlink("/dev/zero", zero.c_str()) == 0);
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(file_sha256(zero, kMaxLoadedFile, "shared object"),
                       (zero + ": not a regular file (a shared object is needed)").c_str(), InputError);
  CHECK_THROWS_WITH_AS(file_sha256(fifo, kMaxAssemblySource, ".s or .S source"),
                       (fifo + ": not a regular file (a .s or .S source is needed)").c_str(), InputError);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
}
