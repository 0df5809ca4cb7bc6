package launch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmc-tools/pmc/internal/launch/shim"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Exit statuses of a command that could not be run, as POSIX shells report them, and of a
// shim whose parent went away (or called Kill) before Exec: the workload never ran. The
// shim exits with them itself.
const (
	StatusNotFound      = shim.StatusNotFound
	StatusNotExecutable = shim.StatusNotExecutable
	StatusShimAborted   = shim.StatusAborted
)

// ErrNotFound: no file of that name, neither as a path nor in any $PATH directory.
var ErrNotFound = errors.New("command not found")

// ExecError is a command that could not be run: not found (exit status 127) or found but not
// executable (126). LookPath and Start return it before anything runs; Status.ExecErr holds
// one when the exec in the shim itself failed.
type ExecError struct {
	Name string // as given, e.g. "foo" or "./foo"
	Path string // the file that was tried; "" when nothing was found
	Err  error  // ErrNotFound or a unix.Errno: EACCES, EISDIR, ENOEXEC, ENOENT...
	// Interpreter is the #! line's program when the file exists but that program does not:
	// execve reports ENOENT (exit status 127, as bash 5.2's "required file not found").
	Interpreter string
}

func (e *ExecError) Error() string {
	if e.Interpreter != "" {
		return "cannot execute " + e.Name + ": bad interpreter " + e.Interpreter + ": " + e.Err.Error()
	}
	if e.ExitCode() == StatusNotFound {
		return "command not found: " + e.Name
	}
	return "cannot execute " + e.Name + ": " + e.Err.Error()
}

func (e *ExecError) Unwrap() error { return e.Err }

// ExitCode is the status a shell reports for this error: 127 when the file does not exist,
// 126 otherwise.
func (e *ExecError) ExitCode() int {
	if e.Err == ErrNotFound || e.Err == unix.ENOENT || e.Err == unix.ENOTDIR {
		return StatusNotFound
	}
	return StatusNotExecutable
}

// LookPath resolves name the way a shell does before running it: a name containing a slash
// is used as it is; otherwise the directories of $PATH are searched in order (an empty entry
// means the current directory) and the first executable regular file wins. If only
// non-executable files of that name exist, the error is for the first of them (126).
// The path returned is the one to exec: relative only if name or a $PATH entry was relative.
func LookPath(name string) (string, error) {
	return lookPath(name, "", os.Getenv("PATH"))
}

// lookPath is LookPath with the directory that relative names start from (the workload's
// working directory, "" for ours) and an explicit $PATH value.
func lookPath(name, dir, pathEnv string) (string, error) {
	if name == "" {
		return "", &ExecError{Name: name, Err: ErrNotFound}
	}
	if strings.Contains(name, "/") {
		if err := checkExec(inDir(dir, name)); err != nil {
			return "", &ExecError{Name: name, Path: name, Err: err}
		}
		return name, nil
	}
	var first *ExecError
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if !strings.Contains(p, "/") {
			p = "./" + p // an empty $PATH entry: keep it a path, never a bare name
		}
		err := checkExec(inDir(dir, p))
		if err == nil {
			return p, nil
		}
		if first == nil && err != unix.ENOENT && err != unix.ENOTDIR {
			first = &ExecError{Name: name, Path: p, Err: err}
		}
	}
	if first != nil {
		return "", first
	}
	return "", &ExecError{Name: name, Err: ErrNotFound}
}

func inDir(dir, p string) string {
	if dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// checkExec returns nil if path is an executable regular file, else the errno that execve
// would most likely give: ENOENT, ENOTDIR, EACCES, EISDIR.
func checkExec(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return errno
		}
		return unix.ENOENT
	}
	if st.IsDir() {
		return unix.EISDIR
	}
	if !st.Mode().IsRegular() {
		return unix.EACCES
	}
	if err := executable(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return unix.ENOENT
		}
		return err
	}
	return nil
}

// interpreter is the program of path's #! line, when path exists and starts with one.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var buf [256]byte
	n, _ := f.Read(buf[:])
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	f2 := strings.Fields(rest)
	if len(f2) == 0 {
		return ""
	}
	return f2[0]
}
