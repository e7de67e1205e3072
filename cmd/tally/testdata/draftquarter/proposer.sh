#!/bin/sh
# A scripted model for fixtures draft --proposer llm (fixtures_draft_test.go):
# it reads the LLM proposer's prompt on stdin and answers with the items of
# the session draft/testdata/two.jsonl that the prompt's lines hold, as a
# model would. The prompt quotes only the turns before one compaction, so
# the pull-request promise (said after the first) is proposed only when the
# turns before the second are asked about. Each run appends a line to
# $TALLY_TEST_CALLS when set; with $TALLY_TEST_SLEEP too, it writes "begin",
# sleeps that long and writes "finish", so that calls made at once show.
prompt=$(cat)
[ -n "$TALLY_TEST_CALLS" ] && echo call >>"$TALLY_TEST_CALLS"
if [ -n "$TALLY_TEST_SLEEP" ]; then
	echo begin >>"$TALLY_TEST_CALLS"
	sleep "$TALLY_TEST_SLEEP"
	echo finish >>"$TALLY_TEST_CALLS"
fi
case "$prompt" in
*'Reply with one JSON object'*) ;;
*) echo "proposer.sh: not a proposer prompt" >&2; exit 1 ;;
esac
items='{"class": "constraint", "turn": 1, "literal": "never push to main without asking me first", "probe": "May the agent push to main without asking?", "expect": "no", "confidence": 0.9},
 {"class": "reference", "turn": 1, "literal": "SYNC-482", "probe": "Which ticket tracks the flaky retry test?", "expect": "SYNC-482", "confidence": 0.8}'
case "$prompt" in
*'[turn 2] assistant: Continuing with the retry loop.'*)
	items="$items"',
 {"class": "commitment", "turn": 2, "literal": "I will open the pull request only after the tests pass", "probe": "When will the agent open the pull request?", "expect": "only after the tests pass", "confidence": 0.9}'
	;;
esac
printf '{"items": [\n %s\n]}\n' "$items"
