#!/bin/sh
# A stand-in judge for `tally check --judge command`: it saves the prompt
# it reads on stdin to the file $TALLY_TEST_PROMPT and its own arguments,
# one per line, to $TALLY_TEST_ARGS, then answers every question
# "supported" with the answer "yes".
cat > "$TALLY_TEST_PROMPT"
printf '%s\n' "$0" "$@" > "$TALLY_TEST_ARGS"
printf '%s\n' '{"reasoning": "stub", "answer": "yes", "verdict": "supported"}'
