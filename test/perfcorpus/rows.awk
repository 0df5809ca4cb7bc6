#!/usr/bin/awk -f
# The lines of a perf report --stdio output that the corpus test compares, blanks squeezed:
# each event's "# Samples", "# Event count" and column header lines and its first 20 entries.
# corpus_test.go's rows function is the same rule in Go.
function squeeze(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
/^# Samples:/ { n = 0; print squeeze($0); next }
/^# Event count/ || /^# Total Lost/ || /^# *(Children|Overhead|Samples|Period)  / { print squeeze($0); next }
/^ +[0-9]+\.[0-9]+%/ { if (n < 20) print squeeze($0); n++ }
