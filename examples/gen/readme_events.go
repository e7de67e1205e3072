package main

import (
	"fmt"
	"strings"
)

// eventsRow is the README's files-table row for the event logs.
func (q *Quarter) eventsRow(logged int) string {
	if q.ClaudeCode {
		return fmt.Sprintf("| `events/week-01.jsonl.gz` … `week-%02d.jsonl.gz` | the full logs of %d of those sessions in Claude Code's session format, gzipped, by the week the session started; a session's records are together, in order |", Weeks, logged)
	}
	return fmt.Sprintf("| `events/week-01.jsonl` … `week-%02d.jsonl` | full event logs of %d of those sessions, by the week the session started; a session's events are together, in turn order |", Weeks, logged)
}

// ccEventsSection is the README's account of the event logs in Claude
// Code's format and of the truth, up to the table of truth lines.
func (q *Quarter) ccEventsSection() string {
	var st ccStats
	loggedFixtures, compactions, summarised := 0, 0, 0
	for _, l := range q.Logs {
		st.add(q.ccLogs[l.s.ID].Stats)
		compactions += len(l.s.Compactions)
		if l.s.Fixture {
			loggedFixtures++
			summarised += len(l.s.Compactions)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `
## events/

%d sessions — every incident (the %d fixtures among them) and a uniform
sample of the rest — in Claude Code's session format: one JSON record a
line, as Claude Code writes `+"`~/.claude/projects/…/<session>.jsonl`"+`, the
sessions that started in a week one after another in that week's file
(tally reads such a file as several sessions, a new one where
`+"`sessionId`"+` changes), gzipped (tally reads gzip whatever the name).
%d records: %d prompts, %d assistant records, %d tool results, %d
compactions with their summaries, %d records a reader skips (a
`+"`file-history-snapshot`"+` after each prompt, which has no `+"`sessionId`"+`, and
`+"`system`"+` `+"`turn_duration`"+` records after some turns), and the client's
notes below.

- **Turns.** Every turn starts with a user record a person typed (string
  content). In %d turns the person says nothing of substance and sends a
  short continuation ("ok, go ahead", "continue"); %d prompts carry an
  `+"`<ide_opened_file>`"+` note the client injected as a first text part.
  Turns are numbered from 1 by their prompts, and truth.jsonl counts them
  that way.
- **Compactions** run right after the prompt of their turn: a `+"`system`"+`
  record of subtype `+"`compact_boundary`"+` (`+"`compactMetadata`"+`: trigger
  `+"`auto`"+`, `+"`preTokens`"+` past the %d-token budget), then the
  `+"`isCompactSummary`"+` user record with the summary the agent continued
  from: for the fixture sessions' %d compactions the incumbent summariser's
  compaction block (the first message of its context), for the others the
  task and the work done so far.
- **Responses.** Each model response has one `+"`message.id`"+`, and each of its
  parts is a record of its own; now and then two tool calls go out in one
  response. `+"`uuid`"+` and `+"`parentUuid`"+` chain the records (a tool result's
  parent is the record of its call); ids, uuids and times are drawn from
  the seed.
- **Tools** are Claude Code's, with its inputs: Read `+"`{file_path, offset?, limit?}`"+`,
  Grep `+"`{pattern, path?, output_mode, -n?}`"+`,
  Edit `+"`{replace_all, file_path, old_string, new_string}`"+` and
  Bash `+"`{command, description, timeout?}`"+` for tests, git, make, wc and ls. The description is a free-text label drawn
  for each call, so two runs of one command usually differ in it. File
  paths are absolute under the session's `+"`cwd`"+`.
- **Results** come back as `+"`tool_result`"+` parts, each in a user record of
  its own, short but shaped like Claude Code's: Read lines numbered with
  "→" and the system reminder Claude Code appends, Grep matches, Edit's
  confirmation. %d are errors (`+"`is_error`"+`): %d test runs that failed
  ("Exit code 1"), %d edits whose old string was not found, and %d edits
  the person rejected, each followed by the client's "[Request interrupted
  by user for tool use]".

Every session's items are in its log at their turns — in a fixture
session, the annotated items only: the items its summary lists that the
annotation leaves out are not stated in its log. The user states a
constraint, the assistant says a commitment ("I'll …"), the user asks an
open question that nobody answers, and a reference is mentioned. Each
message contains the item's literal exactly; in the fixture sessions the
literal is the fixture's (the incumbent's summaries may quote it again).

### The injected signals (events/truth.jsonl)

Calls are the same call as Claude Code's logs are read (selection's
repeated-tool-call signal): one Bash command whatever its description, a
Read of overlapping lines of one file (a whole-file read overlaps every
range), a Grep of one pattern in one folder, an Edit of one file at one
old string.

- **repeated_tool_call**: a tool call at turn `+"`turn`"+` that is the same
  call as one at `+"`evidence_turn`"+`, with a compaction at `+"`compaction_turn`"+`,
  evidence_turn < compaction_turn < turn ≤ compaction_turn + %d, no
  compaction between compaction_turn and turn, and nothing the call looks
  at changed between the two: no edit of the file read, none under the
  folder searched, no edit at all before tests run again. The agent asks
  again for a result the compaction took away.
- **restated_instruction**: a prompt at `+"`turn`"+` restating, in other
  words ("As I said, don't touch migrations.", "Again: PR goes to
  develop."), the constraint the user stated at `+"`evidence_turn`"+`, with a
  compaction at `+"`compaction_turn`"+` between them, the latest before turn
  and at most %d turns before it.
- Look-alikes, which must **not** be flagged:
  - **reread_different_args**: after a compaction, within the window, the
    same tool on the same file with lines that do not overlap, or the same
    pattern in another folder, than a call before it;
  - **identical_no_compaction**: the same call repeated 1–4 turns later
    with no compaction at any turn from the first call to the second;
  - **restatement_before_compaction**: a restatement, with the same
    markers, before the session's first compaction;
  - **reread_after_edit**: after a compaction, within the window, a Read
    that is the same call as one before it, of a file the agent edited
    (an Edit that succeeded) at `+"`change_turn`"+`, between the two;
  - **rerun_after_change**: the same for a test run, with an edit of any
    file between the two runs.
  The last two are work, not forgetting (selection gives them those kinds);
  they are not in the fixture sessions.

Each line also names the records: `+"`uuid`"+` (the record of the later call,
or the restating prompt), `+"`evidence_uuid`"+` (the earlier call's, or the
instruction's prompt), `+"`compaction_uuid`"+` (the compact_boundary), `+"`change_uuid`"+` (the edit between
the calls of a work look-alike) and
`+"`claude_code_tool`"+` (the tool as the log names it; `+"`tool`"+` keeps the
generator's name: read_file, grep, run_tests). Apart from the injected
repeats and work look-alikes, no call within %d turns after a compaction is
the same call as one before it.

Restatements open with one of these markers: %s. No other user message
uses them, and no background message says "I'll". Each (session, turn)
appears at most once in truth.jsonl.

| line | lines | sessions |
|---|--:|--:|
`, len(q.Logs), loggedFixtures, st.Records, st.Prompts, st.AssistantRecords, st.Results, compactions, st.Skipped,
		st.Continuations, st.IDENotes, CompactionThreshold, summarised,
		st.Failed["test"]+st.Failed["edit"]+st.Failed["rejected"], st.Failed["test"], st.Failed["edit"], st.Failed["rejected"],
		SignalWindow-1, SignalWindow-1, repeatWindow, markerList(ccRestateMarkers))
	return b.String()
}
