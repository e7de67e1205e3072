#!/bin/sh
# A scripted proposer for the LLM proposer's tests: it reads the prompt on
# stdin and answers with the items it finds by keyword, as a model would
# be asked to. Each run appends a line to $TALLY_TEST_CALLS when set, so a
# test can count the calls (a cached reply makes none).
prompt=$(cat)
[ -n "$TALLY_TEST_CALLS" ] && echo call >>"$TALLY_TEST_CALLS"
case "$prompt" in
*'Reply with one JSON object'*) ;;
*) echo "judge.sh: not a proposer prompt" >&2; exit 1 ;;
esac
case "$prompt" in
*'[turn 1] user: never commit to main'*)
	cat <<'JSON'
{"items": [
 {"class": "reference", "turn": 2, "literal": "docs/plan.md", "probe": "Which plan file does the work follow?", "expect": "docs/plan.md", "confidence": 0.7},
 {"class": "constraint", "turn": 1, "literal": "never commit to main", "probe": "May the agent commit to main?", "expect": "no", "confidence": 0.9}
]}
JSON
	;;
*'[turn 1] user: say something odd'*)
	echo 'Sure! Here are the items: none.'
	;;
*'[turn 1] user: fail now'*)
	echo 'model overloaded' >&2
	exit 3
	;;
*) echo '{"items": []}' ;;
esac
