// fork_with_pipe (src/run/piped_fork.hpp): the child writes, the parent reads what it wrote.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "src/run/piped_fork.hpp"

using namespace kex;

TEST_CASE("fork_with_pipe: the child holds the write end, the parent the read end and the child's pid" *
          doctest::test_suite("sandbox")) {
  const PipedFork f = fork_with_pipe("a test child");
  if (f.pid == 0) {
    const char said[] = "from the child";
    _exit(write(f.fd, said, sizeof said - 1) == ssize_t(sizeof said - 1) ? 0 : 1);
  }
  REQUIRE(f.pid > 0);
  std::string got;
  char buf[64];
  for (ssize_t n; (n = read(f.fd, buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
  close(f.fd);
  int status = 0;
  REQUIRE(waitpid(f.pid, &status, 0) == f.pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(got == "from the child");  // the read ends at the child's exit: the parent holds no write end
}
