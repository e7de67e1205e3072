#!/bin/sh
# A keyword judge for the hand-written quarter. tally writes each prompt on
# stdin and reads one JSON reply on stdout. judge.tsv beside this script has
# one line per probe: probe|phrase that supports it|phrase that contradicts
# it (may be empty)|unused. The answer given back is the phrase found, so
# tally asks its second, agreement question, which this judge answers "no"
# only for a contradicting phrase.
table="$(dirname "$0")/judge.tsv"
prompt=$(cat)
case "$prompt" in
*'{"agree": "yes"} or {"agree": "no"}'*)
	while IFS='|' read -r probe support contra expect; do
		if [ -n "$contra" ] && printf '%s' "$prompt" | grep -qF -- "$contra"; then
			echo '{"agree": "no"}'
			exit 0
		fi
	done <"$table"
	echo '{"agree": "yes"}'
	exit 0
	;;
esac
question=$(printf '%s\n' "$prompt" | sed -n 's/^Question: //p' | tail -n 1)
while IFS='|' read -r probe support contra expect; do
	[ "$probe" = "$question" ] || continue
	if [ -n "$contra" ] && printf '%s' "$prompt" | grep -qF -- "$contra"; then
		printf '{"reasoning": "the context says otherwise", "answer": "%s", "verdict": "contradicted"}\n' "$contra"
	elif printf '%s' "$prompt" | grep -qF -- "$support"; then
		printf '{"reasoning": "stated in the context", "answer": "%s", "verdict": "supported"}\n' "$support"
	else
		echo '{"reasoning": "not in the context", "answer": "", "verdict": "absent"}'
	fi
	exit 0
done <"$table"
echo "judge.sh: no line of judge.tsv for the question: $question" >&2
exit 1
