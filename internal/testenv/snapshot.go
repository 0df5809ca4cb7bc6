package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// Snapshot builds a machine snapshot from a case file: a header of "key: value" lines (a
// "base: NAME" starts from internal/host/testdata/hosts/NAME and NAME-sys), then sections
// "-- root/PATH --" or "-- sys/PATH --" holding a file's content (\0 stands for a NUL byte,
// as device-tree strings lists need) and "-- delete root/PATH --" removing a file or a
// directory of the base. It returns the root and sysfs file systems and the header.
func Snapshot(t testing.TB, caseFile string) (root, sys fs.FS, header map[string]string) {
	t.Helper()
	data, err := os.ReadFile(caseFile)
	if err != nil {
		t.Fatal(err)
	}
	header = map[string]string{}
	r, s := fstest.MapFS{}, fstest.MapFS{}
	text := string(data)
	head, body, _ := strings.Cut(text, "\n-- ")
	for _, line := range strings.Split(head, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			header[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if base := header["base"]; base != "" {
		top, err := Root()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(top, "internal/host/testdata/hosts", base)
		copyDir(t, r, dir)
		copyDir(t, s, dir+"-sys")
	}
	if body == "" {
		return r, s, header
	}
	for _, sec := range strings.Split("\n-- "+body, "\n-- ")[1:] {
		name, content, _ := strings.Cut(sec, " --\n")
		name = strings.TrimSuffix(name, " --")
		del := strings.HasPrefix(name, "delete ")
		name = strings.TrimPrefix(name, "delete ")
		which, p, ok := strings.Cut(name, "/")
		m := map[string]fstest.MapFS{"root": r, "sys": s}[which]
		if !ok || m == nil {
			t.Fatalf("%s: section %q: name root/PATH or sys/PATH", caseFile, name)
		}
		if del {
			for k := range m {
				if k == p || strings.HasPrefix(k, p+"/") {
					delete(m, k)
				}
			}
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(content, `\0`, "\x00"))}
	}
	return r, s, header
}

func copyDir(t testing.TB, m fstest.MapFS, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
