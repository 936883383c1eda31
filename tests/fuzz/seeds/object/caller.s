# A call between two functions (R_X86_64_PLT32) and a load from .rodata (R_X86_64_PC32).
	.text
	.globl f
	.type f,@function
f:
	call g
	mov value(%rip), %rax
	ret
	.globl g
g:
	ret
	.section .rodata
value:
	.quad 1
