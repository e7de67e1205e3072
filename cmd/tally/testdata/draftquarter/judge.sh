#!/bin/sh
# A key-word judge for quarters drafted from sessions (draftquarter_test.go).
# tally writes each prompt on stdin and reads one JSON reply on stdout. Its
# one argument is a table, one line per item: the probe, a tab, the item's
# key words (space-separated, lower case), a tab, and the expected answer as
# a JSON string body. An item is supported when every key word is in the
# context (ignoring case), and the answer given is then the expected one;
# otherwise it is absent. The agreement question is answered "yes": the
# answer given is the expected answer itself.
table=$1
tab=$(printf '\t')
prompt=$(cat)
case "$prompt" in
*'{"agree": "yes"} or {"agree": "no"}'*)
	echo '{"agree": "yes"}'
	exit 0
	;;
esac
question=$(printf '%s\n' "$prompt" | sed -n 's/^Question: //p' | tail -n 1)
context=$(printf '%s\n' "$prompt" | sed -n '/^<context>$/,/^<\/context>$/p')
while IFS=$tab read -r probe words expect; do
	[ "$probe" = "$question" ] || continue
	for w in $words; do
		if ! printf '%s' "$context" | grep -qiF -- "$w"; then
			echo '{"reasoning": "a key word is not in the context", "answer": "", "verdict": "absent"}'
			exit 0
		fi
	done
	printf '{"reasoning": "every key word is in the context", "answer": "%s", "verdict": "supported"}\n' "$expect"
	exit 0
done <"$table"
echo "judge.sh: no line of $table for the question: $question" >&2
exit 1
