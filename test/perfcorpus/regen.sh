#!/bin/sh
# Rewrites testdata/perf/FILE.VIEW.txt: what perf report prints for each line of
# testdata/cases.txt, reduced to the lines the test compares (the event headers, the column
# header and the first 20 entries of each event, blanks squeezed), or for a VIEW text-*
# all of it but perf's random tip and the file's time (--header's "captured on"), as for
# VIEW stats and header (perf report --stats, --header-only; text-tasks is the --tasks view).
# Needs perf (6.1 made the committed files). Not pmc's -update: the truth here is perf's.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/empty" "$tmp/buildids"
grep -v '^#' testdata/cases.txt | while read -r file view args; do
	gzip -dc "testdata/data/$file.gz" > "$tmp/$file"
	# shellcheck disable=SC2086 # ARGS are words
	if perf --buildid-dir "$tmp/buildids" report --stdio -i "$tmp/$file" --symfs "$tmp/empty" \
		--kallsyms /dev/null $args > "$tmp/out" 2> "$tmp/err" && grep -q '^# Samples:\|^Aggregated stats:\|^# header version\|^#      pid      tid' "$tmp/out"; then
		case $view in
		text-* | stats | header) grep -v '^# (Tip: .*)$\|^# captured on' "$tmp/out" > "testdata/perf/$file.$view.txt" ;;
		*) ./rows.awk "$tmp/out" > "testdata/perf/$file.$view.txt" ;;
		esac
	else
		# perf reports nothing: say so with its first error line.
		printf '# perf: no report: %s\n' "$(grep -m1 -i 'error\|bad\|fail' "$tmp/err" || head -n1 "$tmp/err")" \
			> "testdata/perf/$file.$view.txt"
	fi
	rm -f "$tmp/$file"
done
