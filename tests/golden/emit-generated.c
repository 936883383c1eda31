Code and wrappers are generated: edit the kex command, not this file.
 * kernel kex_copy_sse_unroll_64_scratch_4_t_fwd: copy/sse/unroll:64/scratch:4/t/fwd
 * kernel kex_rep_movsb: rep_movsb
 * dispatch kex_memcpy: 256:copy/sse/unroll:64/scratch:4/t/fwd,rep_movsb
 * Each kernel K: K_code is its machine code with kex's ABI (rdi dst, rsi src, rdx n, no return
 * value); K is a wrapper with the C library's signature that returns dst and calls libc where the
 * code does not promise a result (see each kernel's lines), or on its first call finds that
 * the CPU lacks a feature the code needs (__builtin_cpu_supports).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * kernel copy/sse/unroll:64/scratch:4/t/fwd (generated, copy)
 * spec: copy/sse/unroll:64/scratch:4/t/fwd
 * CPU features it needs: sse2
 * 135 bytes of code, fnv1a f2c1569ed3fab8d0
 * handles every n, dst and src
 */
__attribute__((section(".text.kex"), aligned(64), used))
static const unsigned char kex_copy_sse_unroll_64_scratch_4_t_fwd_code[135] = {
	0x48, 0x83, 0xfa, 0x40, /* 0000: cmp rdx, 0x40 */
	0x0f, 0x82, 0x42, 0x00, 0x00, 0x00, /* 0004: jb 0x4c */
	0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, /* 000a: nop word ptr [rax + rax] */
	0xf3, 0x0f, 0x6f, 0x06, /* 0010: movdqu xmm0, xmmword ptr [rsi] */
	0xf3, 0x0f, 0x6f, 0x4e, 0x10, /* 0014: movdqu xmm1, xmmword ptr [rsi + 0x10] */
	0xf3, 0x0f, 0x6f, 0x56, 0x20, /* 0019: movdqu xmm2, xmmword ptr [rsi + 0x20] */
	0xf3, 0x0f, 0x6f, 0x5e, 0x30, /* 001e: movdqu xmm3, xmmword ptr [rsi + 0x30] */
	0xf3, 0x0f, 0x7f, 0x07, /* 0023: movdqu xmmword ptr [rdi], xmm0 */
	0xf3, 0x0f, 0x7f, 0x4f, 0x10, /* 0027: movdqu xmmword ptr [rdi + 0x10], xmm1 */
	0xf3, 0x0f, 0x7f, 0x57, 0x20, /* 002c: movdqu xmmword ptr [rdi + 0x20], xmm2 */
	0xf3, 0x0f, 0x7f, 0x5f, 0x30, /* 0031: movdqu xmmword ptr [rdi + 0x30], xmm3 */
	0x48, 0x83, 0xc6, 0x40, /* 0036: add rsi, 0x40 */
	0x48, 0x83, 0xc7, 0x40, /* 003a: add rdi, 0x40 */
	0x48, 0x83, 0xea, 0x40, /* 003e: sub rdx, 0x40 */
	0x48, 0x83, 0xfa, 0x40, /* 0042: cmp rdx, 0x40 */
	0x0f, 0x83, 0xc4, 0xff, 0xff, 0xff, /* 0046: jae 0x10 */
	0x48, 0xf7, 0xc2, 0x0f, 0x00, 0x00, 0x00, /* 004c: test rdx, 0xf */
	0x0f, 0x84, 0x10, 0x00, 0x00, 0x00, /* 0053: je 0x69 */
	0x48, 0xff, 0xca, /* 0059: dec rdx */
	0x44, 0x8a, 0x1c, 0x16, /* 005c: mov r11b, byte ptr [rsi + rdx] */
	0x44, 0x88, 0x1c, 0x17, /* 0060: mov byte ptr [rdi + rdx], r11b */
	0xe9, 0xe3, 0xff, 0xff, 0xff, /* 0064: jmp 0x4c */
	0x48, 0x83, 0xfa, 0x10, /* 0069: cmp rdx, 0x10 */
	0x0f, 0x82, 0x13, 0x00, 0x00, 0x00, /* 006d: jb 0x86 */
	0x48, 0x83, 0xea, 0x10, /* 0073: sub rdx, 0x10 */
	0xf3, 0x0f, 0x6f, 0x04, 0x16, /* 0077: movdqu xmm0, xmmword ptr [rsi + rdx] */
	0xf3, 0x0f, 0x7f, 0x04, 0x17, /* 007c: movdqu xmmword ptr [rdi + rdx], xmm0 */
	0xe9, 0xe3, 0xff, 0xff, 0xff, /* 0081: jmp 0x69 */
	0xc3, /* 0086: ret */
};
static int kex_copy_sse_unroll_64_scratch_4_t_fwd_usable = -1;
void *kex_copy_sse_unroll_64_scratch_4_t_fwd(void *dst, const void *src, size_t n);
void *kex_copy_sse_unroll_64_scratch_4_t_fwd(void *dst, const void *src, size_t n) {
	int usable = __atomic_load_n(&kex_copy_sse_unroll_64_scratch_4_t_fwd_usable, __ATOMIC_RELAXED);
	if (usable < 0) {  /* the first call: does this CPU have what the code needs? */
		__builtin_cpu_init();
		usable = (__builtin_cpu_supports("sse2")) ? 1 : 0;
		__atomic_store_n(&kex_copy_sse_unroll_64_scratch_4_t_fwd_usable, usable, __ATOMIC_RELAXED);
	}
	if (!usable) return memcpy(dst, src, n);
	((void (*)(void *, const void *, size_t))(uintptr_t)kex_copy_sse_unroll_64_scratch_4_t_fwd_code)(dst, src, n);
	return dst;
}

/*
 * kernel rep_movsb (baseline, copy)
 * spec: copy/string/unroll:1/t/fwd
 * CPU features it needs: none beyond x86-64
 * 6 bytes of code, fnv1a 76756df5557bc0df
 * handles every n, dst and src
 */
__attribute__((section(".text.kex"), aligned(64), used))
static const unsigned char kex_rep_movsb_code[6] = {
	0x48, 0x89, 0xd1, /* 0000: mov rcx, rdx */
	0xf3, 0xa4, /* 0003: rep movsb byte ptr [rdi], byte ptr [rsi] */
	0xc3, /* 0005: ret */
};
void *kex_rep_movsb(void *dst, const void *src, size_t n);
void *kex_rep_movsb(void *dst, const void *src, size_t n) {
	((void (*)(void *, const void *, size_t))(uintptr_t)kex_rep_movsb_code)(dst, src, n);
	return dst;
}

/*
 * kex_memcpy: memcpy by size, table 256:copy/sse/unroll:64/scratch:4/t/fwd,rep_movsb
 * each row's wrapper calls libc for what its kernel does not handle
 */
void *kex_memcpy(void *dst, const void *src, size_t n);
void *kex_memcpy(void *dst, const void *src, size_t n) {
	if (n <= 256ull) return kex_copy_sse_unroll_64_scratch_4_t_fwd(dst, src, n);
	return kex_rep_movsb(dst, src, n);
}
