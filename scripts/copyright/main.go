// Command copyright writes the Debian copyright file (machine-readable format 1.0) of a pmc
// release: packaging/copyright (pmc's own files) followed by one paragraph for each Go module
// linked into the given binaries and one for the Go standard library, each with the copyright
// lines and the license its module ships (full text, or a pointer to Debian's copy of
// Apache-2.0) and its NOTICE file, which Apache-2.0 section 4(d) asks to pass on. A static
// binary carries all of that code, so its package must carry all of those notices.
//
//	go run ./scripts/copyright packaging/copyright BINARY... > copyright
package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: copyright HEAD-FILE BINARY...")
		os.Exit(2)
	}
	out, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "copyright: %v\n", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

// module is one piece of code linked into the binaries.
type module struct {
	path, version, dir string
}

func run(head string, binaries []string) ([]byte, error) {
	var b bytes.Buffer
	h, err := os.ReadFile(head)
	if err != nil {
		return nil, err
	}
	b.Write(bytes.TrimRight(h, "\n"))
	b.WriteString("\n")

	mods, goVersion, err := linked(binaries)
	if err != nil {
		return nil, err
	}
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return nil, err
	}
	if v, _ := os.ReadFile(filepath.Join(goroot, "VERSION")); !bytes.HasPrefix(v, []byte(goVersion+"\n")) {
		return nil, fmt.Errorf("the binaries were built with %s, but go env GOROOT (%s) is another Go", goVersion, goroot)
	}
	all := append([]module{{path: "Go standard library and runtime", version: goVersion, dir: goroot}}, mods...)
	for _, m := range all {
		p, err := paragraph(m)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n")
		b.WriteString(p)
	}
	return b.Bytes(), nil
}

// linked returns the modules recorded in the binaries' build information (their union) and
// the Go version they were built with.
func linked(binaries []string) ([]module, string, error) {
	seen := map[string]module{}
	goVersion := ""
	for _, bin := range binaries {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			return nil, "", err
		}
		if goVersion != "" && info.GoVersion != goVersion {
			return nil, "", fmt.Errorf("%s was built with %s, not %s", bin, info.GoVersion, goVersion)
		}
		goVersion = info.GoVersion
		for _, d := range info.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			seen[d.Path+"@"+d.Version] = module{path: d.Path, version: d.Version}
		}
	}
	var mods []module
	for _, m := range seen {
		dir, err := download(m.path, m.version)
		if err != nil {
			return nil, "", err
		}
		m.dir = dir
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].path < mods[j].path })
	return mods, goVersion, nil
}

// download returns the module's directory in the module cache (fetched if missing).
func download(path, version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", path+"@"+version).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", path, version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory (%s)", path, version, m.Error)
	}
	return m.Dir, nil
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}

var (
	licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying)([.-].*)?$`)
	noticeFile  = regexp.MustCompile(`(?i)^notice([.-].*)?$`)
	// A copyright line names a year or a holder; the Apache text's own mentions of
	// "copyright notice" and its appendix's template are not ones.
	copyrightLine   = regexp.MustCompile(`(?i)^\s*copyright\s+(\(c\)\s*|©\s*)?[0-9]{4}`)
	copyrightPrefix = regexp.MustCompile(`(?i)^copyright\s+(\(c\)\s*|©\s*)?`)
)

// paragraph is the Files paragraph of one module.
func paragraph(m module) (string, error) {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return "", err
	}
	var names, texts, notices, holders []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(m.dir, e.Name()))
		if err != nil {
			return "", err
		}
		text := strings.TrimSpace(strings.ReplaceAll(string(data), "\r\n", "\n"))
		switch {
		case licenseFile.MatchString(e.Name()):
			name := classify(text)
			names = append(names, name)
			if name == "Apache-2.0" {
				texts = append(texts, "On Debian systems the full text of the Apache License, Version 2.0 is in /usr/share/common-licenses/Apache-2.0.")
			} else {
				texts = append(texts, text)
			}
		case noticeFile.MatchString(e.Name()):
			notices = append(notices, text)
		default:
			continue
		}
		for _, l := range strings.Split(text, "\n") {
			if copyrightLine.MatchString(l) {
				holders = appendNew(holders, copyrightPrefix.ReplaceAllString(strings.TrimSpace(l), ""))
			}
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%s@%s ships no license file in %s", m.path, m.version, m.dir)
	}
	if len(holders) == 0 {
		holders = []string{"The authors of " + m.path + " (its license file names no holder)"}
	}
	files := m.path + "@" + m.version + "/*"
	comment := "Go module " + m.path + " " + m.version + ", linked into /usr/bin/pmc."
	if m.path == "Go standard library and runtime" {
		files = m.version + "/src/*"
		comment = "The Go standard library and runtime (" + m.version + "), linked into /usr/bin/pmc."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Files: %s\n", files)
	field(&b, "Copyright", strings.Join(holders, "\n"))
	field(&b, "License", strings.Join(appendUnique(names), " and ")+"\n"+strings.Join(texts, "\n\n"))
	for _, n := range notices {
		comment += "\n\nIts NOTICE file:\n\n" + n
	}
	field(&b, "Comment", comment)
	return b.String(), nil
}

// classify names a license text by Debian's short names.
func classify(text string) string {
	switch {
	case strings.Contains(text, "Apache License") && strings.Contains(text, "Version 2.0"):
		return "Apache-2.0"
	case strings.Contains(text, "Redistribution and use in source and binary forms"):
		if strings.Contains(text, "Neither the name") || strings.Contains(text, "names of its contributors") {
			return "BSD-3-clause"
		}
		return "BSD-2-clause"
	case strings.Contains(text, "Permission is hereby granted, free of charge"):
		if !strings.Contains(text, "subject to the following conditions") {
			return "MIT-0" // MIT without the notice condition
		}
		return "Expat"
	}
	return "other"
}

// field writes a field whose value may have several lines: continuation lines start with a
// space, and an empty line is written " ." as the format asks.
func field(b *strings.Builder, name, value string) {
	lines := strings.Split(value, "\n")
	fmt.Fprintf(b, "%s: %s\n", name, strings.TrimSpace(lines[0]))
	for _, l := range lines[1:] {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			l = "."
		}
		b.WriteString(" " + l + "\n")
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func appendUnique(list []string) []string {
	var out []string
	for _, s := range list {
		out = appendNew(out, s)
	}
	return out
}
