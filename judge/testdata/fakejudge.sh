#!/bin/sh
# fakejudge.sh DIR [ARG...] — a command judge for the tests.
#
# It copies its standard input (the prompt) to DIR/prompt.N, N counting
# calls from 1, and its own argv to DIR/argv.N (each argument followed by a
# NUL byte), then prints DIR/agree.json for an agreement question or
# DIR/verdict.json otherwise. If DIR/fail exists it prints that file on
# stderr and exits 3 instead. Nothing it reads is ever evaluated.
set -eu
dir=$1
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$dir/count"
cat > "$dir/prompt.$n"
printf '%s\0' "$0" "$@" > "$dir/argv.$n"
if [ -f "$dir/fail" ]; then
	cat "$dir/fail" >&2
	exit 3
fi
if grep -q 'Do these two answers to the question agree' "$dir/prompt.$n"; then
	cat "$dir/agree.json"
else
	cat "$dir/verdict.json"
fi
