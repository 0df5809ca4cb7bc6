# pmc's launch shim for x86-64 Linux: the contract is in ../doc.go.
# Entry: (%rsp) = argc, 8(%rsp) = argv[0] (MODE), 16 = argv[1] (PATH), 24 = argv[2...] the
# workload's argv, then NULL, then envp. Registers kept: %r12 = &argc, %r13 = envp.
	.text
	.globl _start
_start:
	mov	%rsp, %r12
	mov	(%r12), %rcx
	lea	16(%r12,%rcx,8), %r13		# envp = &argv[argc+1]
	sub	$16, %rsp			# scratch: (%rsp) holds a pid, a byte or an errno
	mov	$56, %eax			# clone(CLONE_PARENT|SIGCHLD, 0, 0, 0, 0)
	mov	$0x8011, %edi
	xor	%esi, %esi
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	child
	jns	report				# the parent: send the new pid, then exit 0
	mov	$39, %eax			# no clone: getpid, and be the workload ourselves
	syscall
	mov	%eax, (%rsp)
	call	sendpid
	jmp	child
report:
	mov	%eax, (%rsp)
	call	sendpid
	xor	%edi, %edi
	jmp	exit

sendpid:					# write(5, 8(%rsp), 4): the pid, past the return address
	mov	$1, %eax
	mov	$5, %edi
	lea	8(%rsp), %rsi
	mov	$4, %edx
	syscall
	ret

child:
	mov	$3, %eax			# close(5): pmc reads the pid from the shim alone
	mov	$5, %edi
	syscall
wait:
	xor	%eax, %eax			# read(3, (%rsp), 1): the go byte
	mov	$3, %edi
	mov	%rsp, %rsi
	mov	$1, %edx
	syscall
	cmp	$-4, %rax			# EINTR
	je	wait
	cmp	$1, %rax
	jne	aborted
	mov	$3, %eax			# close(3)
	mov	$3, %edi
	syscall
	mov	$72, %eax			# fcntl(4, F_SETFD, FD_CLOEXEC)
	mov	$4, %edi
	mov	$2, %esi
	mov	$1, %edx
	syscall
	mov	$59, %eax			# execve(PATH, &argv[2], envp)
	mov	16(%r12), %rdi
	lea	24(%r12), %rsi
	mov	%r13, %rdx
	syscall
	mov	%rax, %r14			# -errno
	cmp	$-8, %rax			# ENOEXEC and MODE starts with '/': run PATH with MODE
	jne	failed				# as a shell: argv becomes MODE, PATH, argv[3...]
	mov	8(%r12), %rdi
	cmpb	$'/', (%rdi)
	jne	failed
	mov	16(%r12), %rax
	mov	%rax, 24(%r12)
	mov	%rdi, 16(%r12)
	mov	$59, %eax
	lea	16(%r12), %rsi
	mov	%r13, %rdx
	syscall
	cmp	$-2, %rax			# ENOENT: no shell; report the first error
	je	failed
	mov	%rax, %r14
failed:
	neg	%r14
	mov	%r14d, (%rsp)			# write(4, &errno, 4)
	mov	$1, %eax
	mov	$4, %edi
	mov	%rsp, %rsi
	mov	$4, %edx
	syscall
	mov	$127, %edi			# as a shell: 127 not found, 126 otherwise
	cmp	$2, %r14d			# ENOENT
	je	exit
	cmp	$20, %r14d			# ENOTDIR
	je	exit
	mov	$126, %edi
	jmp	exit
aborted:
	mov	$125, %edi
exit:
	mov	$231, %eax			# exit_group
	syscall
	.section .note.GNU-stack,"",@progbits
