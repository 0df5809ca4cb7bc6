//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// splitLine splits a /cmds line on white space; single quotes group words ('a b' is one
// word, as pmc compare's commands need) and are removed. There is no other quoting.
func splitLine(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unbalanced single quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// upLoopback brings lo up so that guest commands can talk over 127.0.0.1 (pmc exporter).
func upLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// b64 prints a file in base64 (76-column lines) so that binary files (perf.data) survive the
// serial console; the host decodes the section.
func b64(path string) ([]byte, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return []byte(fmt.Sprintf("b64: %v\n", err)), 1
	}
	s := base64.StdEncoding.EncodeToString(b)
	var out bytes.Buffer
	for len(s) > 76 {
		out.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	out.WriteString(s + "\n")
	return out.Bytes(), 0
}

// inCgroup runs a command that starts inside the cgroup v2 directory dir (clone3 with
// CLONE_INTO_CGROUP: no instant of its life is outside it).
func inCgroup(dir string, env, words []string) ([]byte, int) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return []byte(fmt.Sprintf("incgroup: %s: %v\n", dir, err)), 127
	}
	defer unix.Close(fd)
	return runAttr(env, words, &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd})
}

// spawned are the background commands started by `spawn`, stopped by `stop`.
var spawned []*bgCmd

type bgCmd struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func (b *bgCmd) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.Write(p)
}

// spawn starts a command in the background; `stop` ends it and prints its output.
func spawn(env, words []string) ([]byte, int) {
	b := &bgCmd{done: make(chan error, 1)}
	b.cmd = exec.Command(words[0], words[1:]...)
	b.cmd.Env = env
	b.cmd.Stdout, b.cmd.Stderr = b, b
	if err := b.cmd.Start(); err != nil {
		return []byte(fmt.Sprintf("spawn: %v\n", err)), 127
	}
	go func() { b.done <- b.cmd.Wait() }()
	spawned = append(spawned, b)
	return []byte(fmt.Sprintf("spawned pid %d\n", b.cmd.Process.Pid)), 0
}

// stop sends SIGINT to every spawned command (newest first), waits up to 10 s for each (then
// SIGKILL), and prints their outputs. The status is the first non-zero exit status.
func stop() ([]byte, int) {
	var out bytes.Buffer
	status := 0
	for i := len(spawned) - 1; i >= 0; i-- {
		b := spawned[i]
		b.cmd.Process.Signal(os.Interrupt)
		var err error
		select {
		case err = <-b.done:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
			err = <-b.done
			fmt.Fprintf(&out, "stop: pid %d did not exit within 10s of SIGINT: killed\n", b.cmd.Process.Pid)
		}
		st := exitStatus(err)
		b.mu.Lock()
		fmt.Fprintf(&out, "%s[pid %d exited %d]\n", b.out.String(), b.cmd.Process.Pid, st)
		b.mu.Unlock()
		if status == 0 {
			status = st
		}
	}
	spawned = nil
	return out.Bytes(), status
}

// httpGet fetches http://ADDR/PATH with HTTP/1.0 and prints the body. It retries the
// connection for up to 20 s, so it can wait for a spawned server to listen. The status is 0
// for HTTP 200, 1 otherwise.
func httpGet(addr, path string) ([]byte, int) {
	var conn net.Conn
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; {
		if conn, err = net.DialTimeout("tcp", addr, 2*time.Second); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return []byte(fmt.Sprintf("httpget: %v\n", err)), 1
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, addr)
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		return []byte(fmt.Sprintf("httpget: %v\n", err)), 1
	}
	for { // headers
		h, err := br.ReadString('\n')
		if err != nil {
			return []byte(fmt.Sprintf("httpget: headers: %v\n", err)), 1
		}
		if strings.TrimSpace(h) == "" {
			break
		}
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return append(body, fmt.Sprintf("httpget: %v\n", err)...), 1
	}
	if f := strings.Fields(line); len(f) < 2 || f[1] != "200" {
		return append([]byte(line), body...), 1
	}
	return body, 0
}
