package comparerun

import (
	"errors"
	"fmt"
	"strings"
)

// Inputs reports whether the arguments name saved results (every one ends in .json)
// rather than commands, and refuses what does not fit them: more names (-n) than commands,
// a region (--region) of commands.
func Inputs(args, names []string, region string) (saved bool, err error) {
	n := 0
	for _, a := range args {
		if strings.HasSuffix(strings.ToLower(a), ".json") && !strings.ContainsAny(a, " \t") {
			n++
		}
	}
	switch {
	case n > 0 && n < len(args):
		return false, fmt.Errorf("%d of the %d arguments are .json files: compare either saved results or commands, not both", n, len(args))
	case n > 0:
		return true, nil // a saved comparison holds several commands: ReadSaved checks the names
	case len(names) > len(args):
		return false, fmt.Errorf("-n: %d names for %d commands", len(names), len(args))
	case region != "":
		return false, errors.New("--region names a region of saved include/pmc.h files: give .json files")
	}
	return false, nil
}

// FormatOf is the output chosen by the format flags: at most one of them.
func FormatOf(json, csv, markdown bool) (Format, error) {
	switch {
	case json && (csv || markdown) || csv && markdown:
		return Text, errors.New("--json, --csv and --markdown each choose the output: use one (and --html for the page)")
	case json:
		return JSON, nil
	case csv:
		return CSV, nil
	case markdown:
		return Markdown, nil
	}
	return Text, nil
}

// Label is the name of command i: its name in names (-n), or A, B, C ...
func Label(names []string, i int) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("C%d", i+1)
}

// Argvs are the commands' argument vectors: each command run with sh -c (shell), or split
// into words. An error names the command by its label.
func Argvs(commands []string, shell bool, names []string) ([][]string, error) {
	argvs := make([][]string, len(commands))
	for i, a := range commands {
		var err error
		if shell {
			argvs[i] = []string{"sh", "-c", a}
		} else if argvs[i], err = SplitWords(a); err != nil {
			return nil, fmt.Errorf("command %s: %w", Label(names, i), err)
		}
	}
	return argvs, nil
}

// SplitWords splits a command into words without a shell: blanks separate words, single
// quotes keep everything literal, double quotes and backslashes work as in sh.
func SplitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
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
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%q: the %c quote is not closed", s, quote)
	case escaped:
		return nil, fmt.Errorf("%q: ends with a backslash", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("an empty command: give each command as one argument, e.g. 'sleep 1'")
	}
	return words, nil
}
