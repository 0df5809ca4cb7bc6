@ pmc's launch shim for 32-bit Arm Linux (EABI), ARMv6 instructions only (it runs on the
@ ARM1176 of the first Raspberry Pi): the contract is in ../doc.go.
@ Entry: [sp] = argc, [sp+4] = argv[0] (MODE), [sp+8] = argv[1] (PATH), [sp+12...] the
@ workload's argv, then NULL, then envp. Kept: r4 = &argc, r5 = envp, r6 = -errno.
	.arch	armv6
	.arm
	.text
	.globl _start
_start:
	mov	r4, sp
	ldr	r1, [r4]
	add	r5, r4, r1, lsl #2
	add	r5, r5, #8			@ envp = &argv[argc+1]
	sub	sp, sp, #16			@ scratch: [sp] holds a pid, a byte or an errno
	ldr	r0, =0x8011			@ clone(CLONE_PARENT|SIGCHLD, 0, 0, 0, 0)
	mov	r1, #0
	mov	r2, #0
	mov	r3, #0
	mov	r7, #120
	svc	#0
	cmp	r0, #0
	beq	child
	bgt	report				@ the parent: send the new pid, then exit 0
	mov	r7, #20				@ no clone: getpid, and be the workload ourselves
	svc	#0
	str	r0, [sp]
	bl	sendpid
	b	child
report:
	str	r0, [sp]
	bl	sendpid
	mov	r0, #0
	b	exit

sendpid:					@ write(5, sp, 4)
	mov	r0, #5
	mov	r1, sp
	mov	r2, #4
	mov	r7, #4
	svc	#0
	bx	lr

child:
	mov	r0, #5				@ close(5): pmc reads the pid from the shim alone
	mov	r7, #6
	svc	#0
wait:
	mov	r0, #3				@ read(3, sp, 1): the go byte
	mov	r1, sp
	mov	r2, #1
	mov	r7, #3
	svc	#0
	cmn	r0, #4				@ EINTR
	beq	wait
	cmp	r0, #1
	bne	aborted
	mov	r0, #3				@ close(3)
	mov	r7, #6
	svc	#0
	mov	r0, #4				@ fcntl(4, F_SETFD, FD_CLOEXEC)
	mov	r1, #2
	mov	r2, #1
	mov	r7, #55
	svc	#0
	ldr	r0, [r4, #8]			@ execve(PATH, &argv[2], envp)
	add	r1, r4, #12
	mov	r2, r5
	mov	r7, #11
	svc	#0
	mov	r6, r0				@ -errno
	cmn	r0, #8				@ ENOEXEC and MODE starts with '/': run PATH with MODE
	bne	failed				@ as a shell: argv becomes MODE, PATH, argv[3...]
	ldr	r0, [r4, #4]
	ldrb	r3, [r0]
	cmp	r3, #'/'
	bne	failed
	ldr	r3, [r4, #8]
	str	r3, [r4, #12]
	str	r0, [r4, #8]
	add	r1, r4, #8
	mov	r2, r5
	mov	r7, #11
	svc	#0
	cmn	r0, #2				@ ENOENT: no shell; report the first error
	beq	failed
	mov	r6, r0
failed:
	rsb	r6, r6, #0
	str	r6, [sp]			@ write(4, &errno, 4)
	mov	r0, #4
	mov	r1, sp
	mov	r2, #4
	mov	r7, #4
	svc	#0
	mov	r0, #127			@ as a shell: 127 not found, 126 otherwise
	cmp	r6, #2				@ ENOENT
	beq	exit
	cmp	r6, #20				@ ENOTDIR
	beq	exit
	mov	r0, #126
	b	exit
aborted:
	mov	r0, #125
exit:
	mov	r7, #248			@ exit_group
	svc	#0
	.ltorg
	.section .note.GNU-stack,"",%progbits
