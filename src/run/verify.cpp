#include "src/run/verify.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace kex {

namespace {

constexpr size_t kPage = 4096;

/// [PROT_NONE page][cap bytes, read-write][PROT_NONE page]
struct Guarded {
  uint8_t* base = nullptr;
  size_t cap = 0, total = 0;
  explicit Guarded(size_t bytes) {
    cap = (bytes + kPage - 1) / kPage * kPage;
    total = cap + 2 * kPage;
    void* p = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("verify: mmap failed");
    base = static_cast<uint8_t*>(p) + kPage;
    mprotect(base, cap, PROT_READ | PROT_WRITE);
  }
  ~Guarded() { munmap(base - kPage, total); }
  uint8_t* begin() const { return base; }
  uint8_t* end() const { return base + cap; }
};

uint8_t canary(size_t i) { return static_cast<uint8_t>(i * 131 + 0x5b); }

std::string hex2(unsigned v) {
  char b[8];
  snprintf(b, sizeof b, "0x%02x", v & 0xff);
  return b;
}

}  // namespace

std::vector<uint64_t> verify_sizes(const VerifyTarget& t) {
  std::vector<uint64_t> cand = {0, 1, t.width - 1ull, t.width, t.unroll - 1ull, t.unroll, t.unroll + 1ull,
                                2ull * t.unroll + t.width + 1, 4095, 4096, 4097};
  std::mt19937_64 rng(0x6b6578 ^ t.unroll ^ (uint64_t(t.width) << 20));
  for (int i = 0; i < 8; ++i) cand.push_back(rng() % (t.max_size + 1));
  std::vector<uint64_t> out;
  for (uint64_t s : cand) {
    if (s > t.max_size) continue;
    if (t.size_multiple > 1) s = s / t.size_multiple * t.size_multiple;
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (t.size_multiple > 1) {
    for (uint64_t k : {1ull, 2ull, 3ull})
      if (k * t.size_multiple <= t.max_size && std::find(out.begin(), out.end(), k * t.size_multiple) == out.end())
        out.push_back(k * t.size_multiple);
  }
  return out;
}

std::string verify_in_process(const VerifyTarget& t) {
  const size_t room = t.max_size + 256;
  Guarded src(room), dst(room);
  // Source pattern: random bytes with planted x87/SSE-hostile qwords (SNaN, -SNaN,
  // INT64_MIN, a denormal) so float-path copies that are not bit exact show up.
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= src.cap; i += 8) {
    uint64_t v = rng();
    switch ((i / 8) % 13) {
      case 3: v = 0x7ff0000000000001ull; break;
      case 5: v = 0xfff0000000000001ull; break;
      case 7: v = 0x8000000000000000ull; break;
      case 11: v = 0x0000000000000001ull; break;
    }
    memcpy(src.begin() + i, &v, 8);
  }
  const uint32_t a = std::max<uint32_t>(1, t.alignment);
  const std::pair<uint32_t, uint32_t> offsets[] = {{0, 0}, {1, 3}, {8, 0}, {0, 8}, {63, 1}, {16, 48}, {64, 64}, {7, 7}};
  for (uint64_t n : verify_sizes(t)) {
    for (auto [doff, soff] : offsets) {
      if (doff % a || soff % a) continue;
      for (int place = 0; place < 2; ++place) {
        // place 0: at the low guard (+offset); place 1: the end at the high guard
        // (rounded down to the alignment), so over-runs either way fault.
        uint8_t* d = place == 0 ? dst.begin() + doff : dst.end() - n - doff;
        uint8_t* s = place == 0 ? src.begin() + soff : src.end() - n - soff;
        if (place == 1) {
          d -= reinterpret_cast<uintptr_t>(d) % a;
          s -= reinterpret_cast<uintptr_t>(s) % a;
          if (reinterpret_cast<uintptr_t>(d) % 64 != doff % 64 && a > 1) continue;
        }
        for (size_t i = 0; i < dst.cap; ++i) dst.begin()[i] = canary(i);
        t.fn(d, s, n);
        const size_t lo = static_cast<size_t>(d - dst.begin());
        for (size_t i = 0; i < dst.cap; ++i) {
          uint8_t got = dst.begin()[i];
          bool inside = i >= lo && i < lo + n;
          uint8_t want = !inside ? canary(i) : t.is_copy ? s[i - lo] : t.fill;
          if (got != want) {
            std::string where = inside ? "byte " + std::to_string(i - lo)
                                       : (i < lo ? "byte " + std::to_string(lo - i) + " before dst"
                                                 : "byte " + std::to_string(i - lo - n) + " after dst end");
            return "size " + std::to_string(n) + ", dst+" + std::to_string(doff) + " src+" + std::to_string(soff) +
                   (place ? " (at buffer end)" : "") + ": " + where + " is " + hex2(got) + ", expected " +
                   hex2(want);
          }
        }
      }
    }
  }
  return {};
}

std::vector<std::string> verify_in_child(const std::vector<VerifyTarget>& targets) {
  std::vector<std::string> result(targets.size());
  size_t next = 0;
  while (next < targets.size()) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("verify: pipe failed");
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("verify: fork failed");
    if (pid == 0) {
      close(fds[0]);
      for (size_t i = next; i < targets.size(); ++i) {
        alarm(20);  // a kernel that never returns is killed by SIGALRM
        std::string msg = verify_in_process(targets[i]);
        uint32_t hdr[2] = {static_cast<uint32_t>(i), static_cast<uint32_t>(msg.size())};
        if (write(fds[1], hdr, sizeof hdr) != sizeof hdr) _exit(3);
        if (!msg.empty() && write(fds[1], msg.data(), msg.size()) != ssize_t(msg.size())) _exit(3);
      }
      _exit(0);
    }
    close(fds[1]);
    size_t last_done = next;  // first index not yet reported
    for (;;) {
      uint32_t hdr[2];
      ssize_t r = read(fds[0], hdr, sizeof hdr);
      if (r != sizeof hdr) break;
      std::string msg(hdr[1], '\0');
      size_t got = 0;
      while (got < msg.size()) {
        ssize_t k = read(fds[0], msg.data() + got, msg.size() - got);
        if (k <= 0) break;
        got += static_cast<size_t>(k);
      }
      result[hdr[0]] = msg;
      last_done = hdr[0] + 1;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (last_done >= targets.size()) break;
    std::string why;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) why = "timed out (20 s) while verifying";
    else if (WIFSIGNALED(status)) why = std::string("killed by SIG") + sigabbrev_np(WTERMSIG(status)) + " while verifying";
    else why = "verification child exited with status " + std::to_string(WEXITSTATUS(status));
    result[last_done] = why;
    next = last_done + 1;
  }
  return result;
}

}  // namespace kex
