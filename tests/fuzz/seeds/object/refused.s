# Relocations the loader refuses: absolute, GOT, undefined, writable data.
	.text
	.globl a
a:
	movabs $g, %rax
	mov thing@GOTPCREL(%rip), %rax
	call elsewhere
	mov counter(%rip), %eax
	ret
	.data
counter:
	.long 1
