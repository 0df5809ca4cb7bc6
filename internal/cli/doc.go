// Package cli holds pmc's command table and one file per subcommand. It parses flags into
// validated options and hands them to the packages that do the work; it never talks to the
// kernel itself.
package cli
