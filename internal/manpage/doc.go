// Package manpage writes man(7) pages from a cobra command tree: one page per command (pmc.1,
// pmc-stat.1, ...) with NAME and SYNOPSIS from Use and Short, DESCRIPTION from Long, OPTIONS
// with each flag's line exactly as --help prints it (pflag's own text, defaults included), the
// subcommands, EXAMPLES and SEE ALSO. The pages are built from the same definitions as --help,
// so they cannot drift from it.
//
// It is a few hundred lines instead of cobra's doc package because that one pulls
// go-md2man and blackfriday (Markdown to roff) into the module for text that is plain prose.
// Text is escaped for roff (backslashes, hyphens as \-, non-ASCII as \[uXXXX], a leading
// dot or quote guarded), so groff -ww reads the pages without a warning.
//
// Nothing here is linked into pmc: scripts/gendoc calls it at build and release time.
package manpage
