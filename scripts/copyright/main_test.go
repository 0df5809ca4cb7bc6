package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	goroot, err := goEnv("GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	header, err := os.ReadFile("../../include/pmc.h")
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		filepath.Join(goroot, "LICENSE"): "BSD-3-clause",
		"../../LICENSE":                  "Apache-2.0",
	} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := classify(string(text)); got != want {
			t.Errorf("%s: %s, want %s", file, got, want)
		}
	}
	if got := classify(string(header)); got != "MIT-0" {
		t.Errorf("include/pmc.h: %s, want MIT-0", got)
	}
	expat := "Copyright (c) 2016 Someone\n\nPermission is hereby granted, free of charge, to any person obtaining a copy ... subject to the following conditions:\n\nThe above copyright notice ..."
	if got := classify(expat); got != "Expat" {
		t.Errorf("MIT with its notice condition: %s, want Expat", got)
	}
}

func TestParagraph(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"LICENSE": "Copyright (c) 2016 Someone\n\nPermission is hereby granted, free of charge, to any person,\n" +
			"subject to the following conditions:\n\nThe above copyright notice shall be included.\n",
		"NOTICE":  "Some project\nCopyright 2012-2015 The Some Authors\n",
		"PATENTS": "not a license\n",
		"main.go": "package x // Copyright 2020 nobody relevant\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := paragraph(module{path: "example.com/some", version: "v1.2.3", dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := `Files: example.com/some@v1.2.3/*
Copyright: 2016 Someone
 2012-2015 The Some Authors
License: Expat
 Copyright (c) 2016 Someone
 .
 Permission is hereby granted, free of charge, to any person,
 subject to the following conditions:
 .
 The above copyright notice shall be included.
Comment: Go module example.com/some v1.2.3, linked into /usr/bin/pmc.
 .
 Its NOTICE file:
 .
 Some project
 Copyright 2012-2015 The Some Authors
`
	if got != want {
		t.Errorf("paragraph:\n%s\nwant:\n%s", got, want)
	}
	if err := os.Remove(filepath.Join(dir, "LICENSE")); err != nil {
		t.Fatal(err)
	}
	if _, err := paragraph(module{path: "example.com/some", version: "v1.2.3", dir: dir}); err == nil || !strings.Contains(err.Error(), "no license file") {
		t.Errorf("a module without a license file: %v, want an error", err)
	}
}
