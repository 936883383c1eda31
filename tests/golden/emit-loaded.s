# kernel asm/k (implementation, copy)
# loaded by kex from k.s, symbol f (memcpy's signature), 1 piece
# sha256 of k.s: 243b6e14993c2f74a6623ae8c974dee3089244d589f42d27650f32f3a73a38f1
# the bytes as kex placed them: a jump to the symbol, int3 up to 64 bytes, then the pieces as laid out
# 76 bytes of code, fnv1a 282602661ec57501
# handles every n, dst and src
	.p2align 6
	.globl kex_asm_k_kernel
	.type kex_asm_k_kernel, @function
kex_asm_k_kernel:
	.byte 0xe9, 0x3b, 0x00, 0x00, 0x00	# 0000: jmp 0x40
	.fill 59, 1, 0xcc	# 0005: int3 x59: padding
	.byte 0x48, 0x89, 0xd1	# 0040: mov rcx, rdx
	.byte 0xe8, 0x01, 0x00, 0x00, 0x00	# 0043: call 0x49
	.byte 0xc3	# 0048: ret
	.byte 0xf3, 0xa4	# 0049: rep movsb byte ptr [rdi], byte ptr [rsi]
	.byte 0xc3	# 004b: ret
	.size kex_asm_k_kernel, .-kex_asm_k_kernel
	.globl kex_asm_k
	.type kex_asm_k, @function
	.p2align 4
	.globl kex_asm_k_nocheck
	.type kex_asm_k_nocheck, @function
kex_asm_k_nocheck:
kex_asm_k:
.Lkex_asm_k_nocheck:
	endbr64
	push rdi
	call kex_asm_k_kernel
	pop rax
	ret
	.size kex_asm_k_nocheck, .-kex_asm_k_nocheck
	.size kex_asm_k, .-kex_asm_k
	.section .note.GNU-stack,"",@progbits
