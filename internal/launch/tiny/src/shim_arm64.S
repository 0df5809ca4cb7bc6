// pmc's launch shim for arm64 Linux: the contract is in ../doc.go.
// Entry: [sp] = argc, [sp+8] = argv[0] (MODE), [sp+16] = argv[1] (PATH), [sp+24...] the
// workload's argv, then NULL, then envp. Kept: x19 = &argc, x20 = envp, x21 = -errno.
	.text
	.globl _start
_start:
	mov	x19, sp
	ldr	x1, [x19]
	add	x20, x19, x1, lsl #3
	add	x20, x20, #16			// envp = &argv[argc+1]
	sub	sp, sp, #16			// scratch: [sp] holds a pid, a byte or an errno
	mov	x0, #0x8011			// clone(CLONE_PARENT|SIGCHLD, 0, 0, 0, 0)
	mov	x1, #0
	mov	x2, #0
	mov	x3, #0
	mov	x4, #0
	mov	x8, #220
	svc	#0
	cbz	x0, child
	tbz	x0, #63, report			// the parent: send the new pid, then exit 0
	mov	x8, #172			// no clone: getpid, and be the workload ourselves
	svc	#0
	str	w0, [sp]
	bl	sendpid
	b	child
report:
	str	w0, [sp]
	bl	sendpid
	mov	x0, #0
	b	exit

sendpid:					// write(5, sp, 4)
	mov	x0, #5
	mov	x1, sp
	mov	x2, #4
	mov	x8, #64
	svc	#0
	ret

child:
	mov	x0, #5				// close(5): pmc reads the pid from the shim alone
	mov	x8, #57
	svc	#0
wait:
	mov	x0, #3				// read(3, sp, 1): the go byte
	mov	x1, sp
	mov	x2, #1
	mov	x8, #63
	svc	#0
	cmn	x0, #4				// EINTR
	b.eq	wait
	cmp	x0, #1
	b.ne	aborted
	mov	x0, #3				// close(3)
	mov	x8, #57
	svc	#0
	mov	x0, #4				// fcntl(4, F_SETFD, FD_CLOEXEC)
	mov	x1, #2
	mov	x2, #1
	mov	x8, #25
	svc	#0
	ldr	x0, [x19, #16]			// execve(PATH, &argv[2], envp)
	add	x1, x19, #24
	mov	x2, x20
	mov	x8, #221
	svc	#0
	mov	x21, x0				// -errno
	cmn	x0, #8				// ENOEXEC and MODE starts with '/': run PATH with MODE
	b.ne	failed				// as a shell: argv becomes MODE, PATH, argv[3...]
	ldr	x0, [x19, #8]
	ldrb	w3, [x0]
	cmp	w3, #'/'
	b.ne	failed
	ldr	x3, [x19, #16]
	str	x3, [x19, #24]
	str	x0, [x19, #16]
	add	x1, x19, #16
	mov	x2, x20
	mov	x8, #221
	svc	#0
	cmn	x0, #2				// ENOENT: no shell; report the first error
	b.eq	failed
	mov	x21, x0
failed:
	neg	x21, x21
	str	w21, [sp]			// write(4, &errno, 4)
	mov	x0, #4
	mov	x1, sp
	mov	x2, #4
	mov	x8, #64
	svc	#0
	mov	x0, #127			// as a shell: 127 not found, 126 otherwise
	cmp	x21, #2				// ENOENT
	b.eq	exit
	cmp	x21, #20			// ENOTDIR
	b.eq	exit
	mov	x0, #126
	b	exit
aborted:
	mov	x0, #125
exit:
	mov	x8, #94				// exit_group
	svc	#0
	.section .note.GNU-stack,"",@progbits
