Code and wrappers are generated: edit the kex command, not this file.
# kernel kex_copy_sse_unroll_64_scratch_4_t_fwd: copy/sse/unroll:64/scratch:4/t/fwd
# kernel kex_rep_movsb: rep_movsb
# dispatch kex_memcpy: 256:copy/sse/unroll:64/scratch:4/t/fwd,rep_movsb
# Each kernel K: K_kernel is its code with kex's ABI (rdi dst, rsi src, rdx n, no return value);
# K_nocheck is a wrapper with the C library's signature that returns dst and calls libc where the
# code does not promise a result (see each kernel's lines). K is K_nocheck when the code needs
# nothing beyond x86-64; else a GNU indirect function whose resolver asks CPUID and XGETBV once,
# when K is bound, and binds K to K_nocheck or to libc (call K_nocheck only where the CPU has what
# the code needs). endbr64 opens each function (a no-op without CET). Code that leaves rax
# alone follows its wrapper, which sets rax = dst and falls into it (the code's ret returns to
# the caller); other code the wrapper calls, keeping dst on the stack.
	.intel_syntax noprefix
	.text

	.globl kex_copy_sse_unroll_64_scratch_4_t_fwd
	.type kex_copy_sse_unroll_64_scratch_4_t_fwd, @function
	.p2align 6
	.skip 57, 0xcc
	.globl kex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck
	.type kex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck, @function
kex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck:
kex_copy_sse_unroll_64_scratch_4_t_fwd:
.Lkex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck:
	endbr64
	mov rax, rdi
	.size kex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck, .-kex_copy_sse_unroll_64_scratch_4_t_fwd_nocheck
	.size kex_copy_sse_unroll_64_scratch_4_t_fwd, .-kex_copy_sse_unroll_64_scratch_4_t_fwd
# kernel copy/sse/unroll:64/scratch:4/t/fwd (generated, copy)
# spec: copy/sse/unroll:64/scratch:4/t/fwd
# CPU features it needs: sse2
# 135 bytes of code, fnv1a f2c1569ed3fab8d0
# handles every n, dst and src
	.intel_syntax noprefix
	.text
	.p2align 6
	.globl kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel
	.type kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel, @function
kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel:
	cmp rdx, 0x40
	{disp32} jb .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_4c
	.byte 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00	# nop word ptr [rax + rax]
.Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_10:
	movdqu xmm0, xmmword ptr [rsi]
	movdqu xmm1, xmmword ptr [rsi + 0x10]
	movdqu xmm2, xmmword ptr [rsi + 0x20]
	movdqu xmm3, xmmword ptr [rsi + 0x30]
	movdqu xmmword ptr [rdi], xmm0
	movdqu xmmword ptr [rdi + 0x10], xmm1
	movdqu xmmword ptr [rdi + 0x20], xmm2
	movdqu xmmword ptr [rdi + 0x30], xmm3
	add rsi, 0x40
	add rdi, 0x40
	sub rdx, 0x40
	cmp rdx, 0x40
	{disp32} jae .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_10
.Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_4c:
	test rdx, 0xf
	{disp32} je .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_69
	dec rdx
	mov r11b, byte ptr [rsi + rdx]
	mov byte ptr [rdi + rdx], r11b
	{disp32} jmp .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_4c
.Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_69:
	cmp rdx, 0x10
	{disp32} jb .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_86
	sub rdx, 0x10
	movdqu xmm0, xmmword ptr [rsi + rdx]
	movdqu xmmword ptr [rdi + rdx], xmm0
	{disp32} jmp .Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_69
.Lkex_copy_sse_unroll_64_scratch_4_t_fwd_kernel_86:
	ret
	.size kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel, .-kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel

# kex_memcpy: memcpy by size, table 256:copy/sse/unroll:64/scratch:4/t/fwd,rep_movsb
# rax = dst, then straight into each row's code (it needs nothing beyond x86-64)
	.globl kex_memcpy
	.type kex_memcpy, @function
	.p2align 6
	.p2align 4
	.globl kex_memcpy_nocheck
	.type kex_memcpy_nocheck, @function
kex_memcpy_nocheck:
kex_memcpy:
.Lkex_memcpy_nocheck:
	endbr64
	mov rax, rdi
	cmp rdx, 256
	jbe kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel
	.size kex_memcpy_nocheck, .-kex_memcpy_nocheck
	.size kex_memcpy, .-kex_memcpy
# kernel rep_movsb (baseline, copy)
# spec: copy/string/unroll:1/t/fwd
# CPU features it needs: none beyond x86-64
# 6 bytes of code, fnv1a 76756df5557bc0df
# handles every n, dst and src
	.intel_syntax noprefix
	.text
	.p2align 6
	.globl kex_rep_movsb_kernel
	.type kex_rep_movsb_kernel, @function
kex_rep_movsb_kernel:
	mov rcx, rdx
	rep movsb byte ptr [rdi], byte ptr [rsi]
	ret
	.size kex_rep_movsb_kernel, .-kex_rep_movsb_kernel
	.globl kex_rep_movsb
	.type kex_rep_movsb, @function
	.p2align 4
	.globl kex_rep_movsb_nocheck
	.type kex_rep_movsb_nocheck, @function
kex_rep_movsb_nocheck:
kex_rep_movsb:
.Lkex_rep_movsb_nocheck:
	endbr64
	mov rax, rdi
	jmp kex_rep_movsb_kernel
	.size kex_rep_movsb_nocheck, .-kex_rep_movsb_nocheck
	.size kex_rep_movsb, .-kex_rep_movsb
	.section .note.GNU-stack,"",@progbits
