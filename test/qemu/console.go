package qemu

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Section is one command's result as printed by guestinit.
type Section struct {
	N      int    // command number in the batch
	Output string // combined stdout+stderr, "\r\n" turned into "\n"
	Status int    // exit status (128+signal, 124 timeout, 127 not started)
	Ended  bool   // the END marker was seen
}

// Console is a parsed guest console log.
type Console struct {
	Init     string          // text of the INIT marker: kernel release and GOARCH
	Done     bool            // guestinit reached the end of its command list
	Sections map[int]Section // by command number
}

// ParseConsole splits a guest console log into per-command sections. Lines outside markers
// (kernel messages, QEMU) are ignored; a section whose END marker is missing (the VM died or
// was killed) is returned with Ended false and whatever output arrived.
func ParseConsole(log []byte) (Console, error) {
	c := Console{Sections: map[int]Section{}}
	text := strings.ReplaceAll(string(log), "\r\n", "\n")
	var cur *Section
	var out strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimRight(line, "\n")
		// Kernel messages may precede a marker on the same line; markers always end a line.
		i := strings.LastIndex(bare, "=====")
		j := strings.LastIndex(bare[:max(i, 0)], "=====")
		if i < 0 || j < 0 || i != len(bare)-5 {
			if cur != nil {
				out.WriteString(line)
			}
			continue
		}
		if cur != nil && j > 0 {
			out.WriteString(bare[:j]) // output without a final newline before the marker
		}
		f := strings.Fields(bare[j+5 : i])
		if len(f) == 0 {
			if cur != nil {
				out.WriteString(line)
			}
			continue
		}
		switch f[0] {
		case "INIT":
			c.Init = strings.Join(f[1:], " ")
		case "DONE":
			c.Done = true
		case "BEGIN":
			n, err := marker(f, 2)
			if err != nil {
				return c, err
			}
			if cur != nil {
				cur.Output = out.String()
				c.Sections[cur.N] = *cur
			}
			cur = &Section{N: n[0], Status: -1}
			out.Reset()
		case "EXIT":
			n, err := marker(f, 3)
			if err != nil {
				return c, err
			}
			if cur == nil || n[0] != cur.N {
				return c, fmt.Errorf("console: EXIT %d outside its section", n[0])
			}
			cur.Status = n[1]
		case "END":
			n, err := marker(f, 2)
			if err != nil {
				return c, err
			}
			if cur == nil || n[0] != cur.N {
				return c, fmt.Errorf("console: END %d outside its section", n[0])
			}
			cur.Output, cur.Ended = out.String(), true
			c.Sections[cur.N] = *cur
			cur = nil
			out.Reset()
		default:
			if cur != nil {
				out.WriteString(line)
			}
		}
	}
	if cur != nil {
		cur.Output = out.String()
		c.Sections[cur.N] = *cur
	}
	return c, nil
}

// marker parses the numbers of a marker line: fields f = [KIND n...], want fields in total.
func marker(f []string, want int) ([]int, error) {
	if len(f) != want {
		return nil, fmt.Errorf("console: malformed marker %q", strings.Join(f, " "))
	}
	var n []int
	for _, s := range f[1:] {
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("console: malformed marker %q: %w", strings.Join(f, " "), err)
		}
		n = append(n, v)
	}
	return n, nil
}

// Tail returns the last n lines of a console log, for failure messages.
func Tail(log []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(log, "\r\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
