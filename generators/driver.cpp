#include "generators/driver.hpp"

#include <xbyak/xbyak.h>

namespace kex {

namespace {

using namespace Xbyak::util;

/// The call of the record at `at`, then read_back of its destination (consume), the value
/// added to [rsp]. Clobbers what the callee may.
void emit_call(Xbyak::CodeGenerator& g, const Xbyak::Reg64& at, const Xbyak::Reg64& fn, ReadBackFn read_back) {
  g.mov(rdi, g.qword[at]);
  g.mov(rsi, g.qword[at + 8]);
  g.mov(rdx, g.qword[at + 16]);
  g.call(fn);
  if (!read_back) return;
  g.mov(rdi, g.qword[at]);
  g.mov(rsi, g.qword[at + 16]);
  g.mov(rax, reinterpret_cast<uint64_t>(read_back));
  g.call(rax);
  g.add(g.qword[rsp], rax);
}

}  // namespace

void emit_driver(Xbyak::CodeGenerator& g, ReadBackFn read_back) {
  const Xbyak::Reg64& calls = r12;  // the first call's record
  const Xbyak::Reg64& left = r14;   // calls left
  const Xbyak::Reg64& fn = r15;     // the competitor
  const Xbyak::Reg64& at = rbx;     // the current record (several calls a pass)
  const Xbyak::Reg64& end = rbp;    // one past the last record
  for (const Xbyak::Reg64* r : {&rbx, &rbp, &r12, &r13, &r14, &r15}) g.push(*r);
  g.sub(rsp, 8);  // 6 pushes and the return address: 8 more make rsp 16-aligned at each call
  g.mov(g.qword[rsp], 0);
  Xbyak::Label one, many, next, done;
  g.test(rsi, rsi);
  g.jz(done, Xbyak::CodeGenerator::T_NEAR);
  g.test(rdx, rdx);
  g.jz(done, Xbyak::CodeGenerator::T_NEAR);
  g.mov(calls, rdi);
  g.mov(left, rdx);
  g.mov(fn, rcx);
  g.cmp(rsi, 1);
  g.jne(many, Xbyak::CodeGenerator::T_NEAR);
  g.align(16);
  g.L(one);
  emit_call(g, calls, fn, read_back);
  g.dec(left);
  g.jnz(one, Xbyak::CodeGenerator::T_NEAR);
  g.jmp(done, Xbyak::CodeGenerator::T_NEAR);
  g.L(many);
  g.imul(left, rsi);  // calls in all: count * passes
  g.lea(rax, g.ptr[rsi + rsi * 2]);
  g.lea(end, g.ptr[calls + rax * 8]);
  g.mov(at, calls);
  g.align(16);
  g.L(next);
  emit_call(g, at, fn, read_back);
  g.add(at, sizeof(CallArgs));
  g.cmp(at, end);
  g.cmovae(at, calls);  // past the last call: back to the first, without a branch
  g.dec(left);
  g.jnz(next, Xbyak::CodeGenerator::T_NEAR);
  g.L(done);
  g.mov(rax, g.qword[rsp]);
  g.add(rsp, 8);
  for (const Xbyak::Reg64* r : {&r15, &r14, &r13, &r12, &rbp, &rbx}) g.pop(*r);
  g.ret();
}

void emit_empty(Xbyak::CodeGenerator& g) { g.ret(); }

}  // namespace kex
