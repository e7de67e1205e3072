package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/tally-eval/tally/fixture"
)

// classTable is one system's check results per class, over every
// (fixture, compaction, live item).
type classTable map[fixture.Class]map[fixture.Verdict]int

// table tallies the verdicts of one system's contexts.
func table(built []*builtContext) classTable {
	t := make(classTable)
	for _, c := range fixture.Classes {
		t[c] = make(map[fixture.Verdict]int)
	}
	for _, bc := range built {
		for ii, v := range bc.Verdicts {
			if v != "" {
				t[bc.Conv.items[ii].Class][v]++
			}
		}
	}
	return t
}

func (t classTable) live(c fixture.Class) int {
	n := 0
	for _, k := range t[c] {
		n += k
	}
	return n
}

func (t classTable) markdown(b *bytes.Buffer) {
	b.WriteString("| class | live | verbatim | supported | absent | contradicted | retained |\n|---|--:|--:|--:|--:|--:|--:|\n")
	var tot [5]int
	for _, c := range fixture.Classes {
		m := t[c]
		ret := m[fixture.Verbatim] + m[fixture.Supported]
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d/%d |\n", c, t.live(c), m[fixture.Verbatim], m[fixture.Supported], m[fixture.Absent], m[fixture.Contradicted], ret, t.live(c))
		tot[0] += t.live(c)
		tot[1] += m[fixture.Verbatim]
		tot[2] += m[fixture.Supported]
		tot[3] += m[fixture.Absent]
		tot[4] += m[fixture.Contradicted]
	}
	fmt.Fprintf(b, "| all | %d | %d | %d | %d | %d | %d/%d |\n", tot[0], tot[1], tot[2], tot[3], tot[4], tot[1]+tot[2], tot[0])
}

// deciles are the 10th..90th percentiles (empirical) and the maximum.
func deciles(xs []int) []float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	slices.Sort(f)
	var out []float64
	for p := 1; p <= 9; p++ {
		out = append(out, stat.Quantile(float64(p)/10, stat.Empirical, f, nil))
	}
	return append(out, f[len(f)-1])
}

func decileRow(b *bytes.Buffer, name string, xs []int) {
	fmt.Fprintf(b, "| %s |", name)
	for _, d := range deciles(xs) {
		fmt.Fprintf(b, " %g |", d)
	}
	b.WriteString("\n")
}

func pct(k, n int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(n)) }

// readme writes README.md: what each file is, how it was made, and the
// numbers that describe it, all computed here.
func (q *Quarter) readme(sizes []promptSize) ([]byte, error) {
	var b bytes.Buffer
	ss := q.Sessions
	var turns, comps, itemsN []int
	never, counts, incidents, logged, over150 := 0, 0, 0, 0, 0
	classN := make(map[fixture.Class]int)
	for _, s := range ss {
		turns = append(turns, s.Turns)
		comps = append(comps, len(s.Compactions))
		itemsN = append(itemsN, len(s.listed()))
		if len(s.Compactions) == 0 {
			never++
		}
		if s.CountsOnly {
			counts++
		}
		if s.Incident {
			incidents++
		}
		if s.Logged {
			logged++
		}
		if s.Turns > 150 {
			over150++
		}
		for _, it := range s.listed() {
			classN[it.Class]++
		}
	}
	// The fixture sessions' items their annotation leaves out.
	var unann []int
	unannN := make(map[fixture.Class]int)
	unannAfter, fixtureAnnotated := 0, 0
	for _, cv := range q.Fixtures {
		fixtureAnnotated += len(cv.s.Items)
		unann = append(unann, len(cv.s.Unannotated))
		last := cv.s.Compactions[len(cv.s.Compactions)-1]
		for _, it := range cv.s.Unannotated {
			unannN[it.Class]++
			if it.Turn > last {
				unannAfter++
			}
		}
	}
	allUnann := sum(unann)
	allItems := 0
	for _, n := range classN {
		allItems += n
	}
	first, last := ss[0].Started, ss[len(ss)-1].Started

	fmt.Fprintf(&b, `# examples/quarterly — a synthetic quarter

**Everything here is synthetic.** No real user, repository or conversation
is in it: `+"`go run ./examples/gen`"+` made every file from seed %d, and
the same seed gives byte-identical files (`+"`go test ./examples/...`"+`
fails if these files drift from the generator). This README too is written
by the generator; every number below is computed, not typed.

It is one quarter of a coding agent's production sessions, shaped the way
the source text describes them, with everything tally's commands need:
session summaries for `+"`select`"+`, event logs with injected failure
signals and their truth for `+"`signals`"+` and `+"`propose`"+`, 40
fixtures with the compacted contexts of an incumbent and a candidate
summariser (and of the incumbent run a second time, the A/A pair for
`+"`noise`"+`) and a recorded judge for `+"`check`"+`, and paired replay
outcomes for `+"`replay`"+`.

## Files

| path | what it is |
|---|---|
| `+"`sessions.jsonl`"+` | %d session summaries: `+"`{\"session_id\",\"turns\",\"started\",\"incident\"?,\"compactions\":[{\"turn\"}] \\| N,\"items\":[{\"class\",\"turn\"}] \\| N}`"+` |
%s
| `+"`events/truth.jsonl`"+` | where the failure signals were injected, and the look-alikes that must not be flagged |
| `+"`fixtures/<conversation_id>.json`"+` | the %d fixture conversations, in the source text's format |
| `+"`contexts/incumbent/<conversation_id>/<n>.json`"+`, `+"`contexts/candidate/…`"+`, `+"`contexts/incumbent-rerun/…`"+` | the compacted context at compaction n of each fixture, as each summariser assembled it (the last: the incumbent run again) |
| `+"`judge/recorded.jsonl`"+` | the recorded judge's verdicts for every live item not carried verbatim, all three systems (`+"`fixture.Record`"+` lines, judge `+"`%s`"+`) |
| `+"`replay.jsonl`"+` | paired task outcomes for %d replayed conversations |
| `+"`prompt_sizes.jsonl`"+` | the estimated prompt size of every context |

`, q.Seed, len(ss), q.eventsRow(logged), len(q.Fixtures), RecordedJudge, len(q.Replay))

	fmt.Fprintf(&b, `## sessions.jsonl

%d sessions started between %s and %s (%d weeks from %s). How they were drawn:

- **Turns**: log-normal with median %g and log-sd %g, rounded, between 1 and %d.
- **Compactions**: every session starts at %d tokens (system prompt and
  tools); each turn adds tokens drawn around a rate of the session's own
  (log-normal, median %g tokens a turn, log-sd %g; each turn log-sd %g,
  at most %d). A compaction runs at the start of the first turn whose
  context has reached the budget of %d tokens, and leaves 9,000–19,000.
- **Items**: a density per turn of the session's own (log-normal, median
  0.07), a Poisson count, a class mix of the session's own around
  constraint 0.30, commitment 0.20, open question 0.30, reference 0.20;
  distinct turns from 2 on (turn 1 states the task), constraints early.
- **Items the annotation leaves out**: a summary lists the items the
  arrival-time classifier flagged, and an annotation keeps only some of
  them. Each fixture session's summary lists its fixture's items (the
  annotated ones) and, besides, %d items in all (%d to %d a session) that
  the classifier flagged and the fixture's annotation leaves out: a density
  per turn of the session's own (log-normal, median %g, log-sd %g; after
  the last compaction %g of it), a class mix of the session's own around
  the quarter's (constraint %s, commitment %s, open question %s, reference
  %s), constraints early, at turns that are no compaction's and no
  annotated item's; %d of them after the last compaction. They count in
  the decisions below; the event logs, fixtures and contexts do not state
  them (the logs state the annotated items only). Compaction incidents
  concentrate in long, dense sessions: the fixture sessions' summaries
  list %d items, of which the annotations keep %d.
- **Incidents**: %d sessions (%s) are marked `+"`\"incident\": true`"+` —
  the 40 fixture sessions and others with fewer decisions, most of them
  sessions that compacted.
- **Counts only**: %d sessions (%s, all without event logs) come from an
  older client that reports `+"`\"compactions\": N, \"items\": N`"+` instead of
  lists.

Distribution:

- sessions that never compact: %d of %d, **%s**
- sessions longer than 150 turns: %d; longest: %d turns
- compactions in all: %d; items in all: %d (constraint %s, commitment %s, open question %s, reference %s)

| deciles | 10%% | 20%% | 30%% | 40%% | 50%% | 60%% | 70%% | 80%% | 90%% | max |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
`, len(ss), first.Format("2006-01-02"), last.Format("2006-01-02"), Weeks, QuarterStart.Format("Monday 2006-01-02"),
		medianTurns, turnsSigma, maxTurns, baseTokens, medianRate, rateSigma, perTurnSigma, maxTurnCost, CompactionThreshold,
		allUnann, slices.Min(unann), slices.Max(unann), unannotatedDensity, unannotatedSigma, unannotatedAfterLast,
		pct(unannN[fixture.Constraint], allUnann), pct(unannN[fixture.Commitment], allUnann), pct(unannN[fixture.OpenQuestion], allUnann), pct(unannN[fixture.Reference], allUnann),
		unannAfter, allUnann+fixtureAnnotated, fixtureAnnotated,
		incidents, pct(incidents, len(ss)), counts, pct(counts, len(ss)),
		never, len(ss), pct(never, len(ss)), over150, slices.Max(turns), sum(comps), allItems,
		pct(classN[fixture.Constraint], allItems), pct(classN[fixture.Commitment], allItems), pct(classN[fixture.OpenQuestion], allItems), pct(classN[fixture.Reference], allItems))
	decileRow(&b, "turns", turns)
	decileRow(&b, "compactions", comps)
	decileRow(&b, "items", itemsN)

	// Selection.
	fmt.Fprintf(&b, `
## Fixture selection: the decisions ranking

The fixtures are the first %d sessions of this ranking (`+"`RankForFixtures`"+`
and `+"`Decisions`"+` in `+"`examples/gen/rank.go`"+`; `+"`tally select`"+` implements exactly this):

- A session's **decisions**: for each compaction, the number of items its
  summary lists stated before that compaction's turn (item turn <
  compaction turn), at least 1 per compaction; every listed item counts,
  whether an annotation kept it or not. With counts only: compactions × max(1, items).
  A session that never compacts has 0.
- **Rank**: incidents first; then decisions, descending; ties by
  session_id ascending (byte order). Take the first %d.

Incidents alone exceed the budget (%d incidents), so all %d fixtures are
incidents: those with the most decisions. The fewest decisions a fixture has is %d
decisions; %s

In the table, *items* are what the session's summary lists, *annotated*
the fixture's must_survive items among them, and *live item-compactions*
the annotated items' (the pairs the fixture checks).

| conversation | turns | compactions | items | annotated | decisions | live item-compactions |
|---|--:|--:|--:|--:|--:|--:|
`, FixtureBudget, FixtureBudget, incidents, FixtureBudget, minDecisions(q.Fixtures), tieSentence(q))
	for _, s := range RankForFixtures(ss, FixtureBudget) {
		live := 0
		for _, it := range s.Items {
			for _, c := range s.Compactions {
				if it.Turn < c {
					live++
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", s.ID, s.Turns, len(s.Compactions), len(s.listed()), len(s.Items), Decisions(s), live)
	}

	// Events and signals.
	var nSig = map[string]int{}
	var sessSig = map[string]map[string]bool{}
	for _, l := range q.Logs {
		for _, t := range l.truth {
			k := t.Signal + t.Lookalike
			nSig[k]++
			if sessSig[k] == nil {
				sessSig[k] = map[string]bool{}
			}
			sessSig[k][l.s.ID] = true
		}
	}
	nEvents, loggedFixtures := 0, 0
	for _, l := range q.Logs {
		if l.s.Fixture {
			loggedFixtures++
		}
		for _, p := range l.turns {
			nEvents += len(p.Calls)
			if p.Compaction {
				nEvents++
			}
			if p.User != "" {
				nEvents++
			}
			if p.Assistant != "" {
				nEvents++
			}
		}
	}
	if q.ClaudeCode {
		b.WriteString(q.ccEventsSection())
	} else {
		fmt.Fprintf(&b, `
## events/

%d events from %d sessions: every incident (the %d fixtures among them) and
a uniform sample of the rest. Each line is `+"`{\"session_id\",\"turn\",\"ts\",\"kind\":\"message\"|\"tool_call\"|\"compaction\",\"role\"?,\"text\"?,\"tool\"?,\"args\"?}`"+`.
Within a turn the order is: the compaction (when one runs at that turn),
the user's message, the tool calls, the assistant's message. Tools:
read_file, grep, edit_file, run_tests, list_dir, run_command, with JSON
arguments in a fixed key order. Apart from the injected repeats below, no
session makes the same call (tool and arguments) twice.

Every session's items are in its log at their turns — in a fixture
session, the annotated items only: the items its summary lists that the
annotation leaves out are not stated in its log. The user states a
constraint, the assistant says a commitment ("I'll …"), the user asks an
open question that nobody answers, and a reference is mentioned. Each
message contains the item's literal exactly; in the fixture sessions the
literal is the fixture's.

### The injected signals (events/truth.jsonl)

- **repeated_tool_call**: a tool call at turn `+"`turn`"+` with the same tool and
  identical arguments as a call at `+"`evidence_turn`"+`, with a compaction at
  `+"`compaction_turn`"+`, evidence_turn < compaction_turn < turn ≤
  compaction_turn + %d (so within %d turns under either reading), and no
  compaction between compaction_turn and turn.
- **restated_instruction**: a user message at `+"`turn`"+` restating, in other
  words ("I said don't touch migrations", "Again: PR goes to develop."), the
  constraint the user stated at `+"`evidence_turn`"+`, with a compaction at
  `+"`compaction_turn`"+` between them (the latest before turn).
- Look-alikes, which must **not** be flagged:
  - **reread_different_args**: after a compaction, within the window, the
    same tool on the same path with other arguments (another line range,
    another folder) than a call before it;
  - **identical_no_compaction**: an identical call repeated 1–4 turns later
    with no compaction at any turn from the first call to the second;
  - **restatement_before_compaction**: a restatement, with the same
    markers, before the session's first compaction.

Restatements open with one of these markers: %s. No other user message
uses them, and no background message says "I'll". Each (session, turn)
appears at most once in truth.jsonl.

| line | lines | sessions |
|---|--:|--:|
`, nEvents, len(q.Logs), loggedFixtures, SignalWindow-1, SignalWindow, markerList(restateMarkers))
	}
	truthKinds := []string{SignalRepeatedToolCall, SignalRestatedInstruction, LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRestateBefore}
	if q.ClaudeCode {
		truthKinds = append(truthKinds, LookalikeRereadAfterEdit, LookalikeRerunAfterChange)
	}
	for _, k := range truthKinds {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", k, nSig[k], len(sessSig[k]))
	}
	sigSessions, incSig := map[string]bool{}, 0
	for _, k := range []string{SignalRepeatedToolCall, SignalRestatedInstruction} {
		for id := range sessSig[k] {
			sigSessions[id] = true
		}
	}
	for _, s := range ss {
		if sigSessions[s.ID] && s.Incident {
			incSig++
		}
	}
	fmt.Fprintf(&b, "\nSessions with at least one signal: %d, of which %d are incidents.\n", len(sigSessions), incSig)

	// Fixtures and contexts.
	nCtx := 0
	for _, cv := range q.Fixtures {
		nCtx += len(cv.s.Compactions)
	}
	inc, cand := table(q.Built[SystemIncumbent]), table(q.Built[SystemCandidate])
	var smInc, smCand summariser
	for _, sm := range summarisers {
		if sm.Name == SystemIncumbent {
			smInc = sm
		} else {
			smCand = sm
		}
	}
	fmt.Fprintf(&b, `
## fixtures/, contexts/ and judge/

Each fixture's `+"`turns`"+` and `+"`compactions_expected`"+` equal its session's,
and its `+"`must_survive`"+` items are the items its annotation keeps: a subset
of the items the session's summary lists (class and turn) — the summary
also lists items the classifier flagged and the annotation leaves out, and
a fixture cannot reveal that one of those was lost. The items come with
literals, probes and expected answers drawn from templates with varied
paths, branches, tables, files and revisions; no literal is shared between
fixtures. The fixture set's live item-compaction pairs — an item is checked
at a compaction when item.turn < the compaction's turn — are constraint %d,
commitment %d, open_question %d, reference %d.

A context, `+"`contexts/<system>/<conversation_id>/<n>.json`"+`, is
`+"`{\"conversation_id\",\"compaction\",\"turn\",\"system\",\"messages\":[{\"role\",\"content\"}]}`"+`
(content a string or a list of `+"`{\"type\":\"text\",\"text\"}`"+` parts; both
occur). `+"`turn`"+` is the compaction's turn. %d contexts per system.
The third system, `+"`incumbent-rerun`"+`, is the incumbent run a second time
(below, after the two systems' results).

- **incumbent**: a long system prompt; a `+"`<compaction_state>`"+` note of two
  parts, a pinned ledger quoting items verbatim and a sectioned summary
  carrying the rest in paraphrase; then the last %d turns before the
  compaction as they happened, tool results whole.
- **candidate**: "better-reading": a shorter system prompt, a prose state
  note with fewer pinned quotes, the last %d turns with tool results cut at
  %d lines. It closes open questions that are still open and inverts
  hedges into approvals.

Once a summary drops or inverts an item, later summaries of that
conversation do not recover it. An item stated within the kept recent turns
is verbatim there. The generator checks every context: a verbatim item's
literal is in `+"`fixture.Render(context)`"+` (`+"`fixture.IsVerbatim`"+`), and no
other live item's literal is; a truly supported item's paraphrase is there, a
contradicted item's inversion is there, a truly absent item's neither.

`+"`judge/recorded.jsonl`"+` holds one line per live item that is not verbatim, per
system and compaction, as a good but fallible judge answers against that
context alone: supported with the expected answer, absent ("not stated — …"), or
contradicted with the inverted claim as the answer (and `+"`expect`"+` and a
`+"`reason`"+`). No `+"`error`"+` verdicts. The judge errs at known rates (see
"The reviews" below): the verdicts are drawn first, and where the judge
errs the context is written with the other truth — the paraphrase left out
of a context the judge calls supported, or put into one it calls absent —
so the verdicts, and the tables below, stay the source text's. `+"`tally check --judge recorded`"+` takes an
item as verbatim when `+"`fixture.IsVerbatim(Render(context), literal)`"+`, and
otherwise the recorded verdict.

The results (over every fixture, compaction and live item):

**incumbent**

`, LiveTargets[fixture.Constraint], LiveTargets[fixture.Commitment], LiveTargets[fixture.OpenQuestion], LiveTargets[fixture.Reference],
		nCtx, smInc.Recent, smCand.Recent, smCand.MaxResultLines)
	inc.markdown(&b)
	b.WriteString("\n**candidate**\n\n")
	cand.markdown(&b)
	q.rerunSection(&b)
	if err := q.reviewsSection(&b); err != nil {
		return nil, err
	}

	// Replay.
	var cells [4]int
	kinds := map[string]int{}
	for _, l := range q.Replay {
		i := 0
		if l.Reference == "failure" {
			i += 2
		}
		if l.Candidate == "failure" {
			i++
		}
		cells[i]++
		kinds[l.ReferenceKind]++
	}
	fmt.Fprintf(&b, `
## replay.jsonl

%d logged sessions that compacted, each replayed twice from the same prefix:
`+"`{\"conversation_id\",\"reference\",\"candidate\",\"reference_kind\"}`"+`. The
reference is an uncompacted run where the whole transcript fits the model
window of %d tokens (%d conversations, `+"`uncompacted`"+`), and for the
longest sessions, whose transcript does not, a recorded run a person
accepted (%d, `+"`accepted_trace`"+`). Failures are likelier in sessions with more
compactions and in incidents.

| | candidate success | candidate failure |
|---|--:|--:|
| reference success | A = %d | B = %d (lost) |
| reference failure | C = %d (gained) | D = %d |

Reference successes %d/%d, candidate successes %d/%d, %d discordant pairs.
`, len(q.Replay), ModelWindow, kinds["uncompacted"], kinds["accepted_trace"], cells[0], cells[1], cells[2], cells[3],
		cells[0]+cells[1], len(q.Replay), cells[0]+cells[2], len(q.Replay), cells[1]+cells[2])

	// Prompt sizes.
	mean := map[string]float64{}
	maxTok := map[string]int{}
	nSys := map[string]int{}
	for _, s := range sizes {
		mean[s.System] += float64(s.PromptTokens)
		nSys[s.System]++
		maxTok[s.System] = max(maxTok[s.System], s.PromptTokens)
	}
	for k := range mean {
		mean[k] /= float64(nSys[k])
	}
	fmt.Fprintf(&b, `
## prompt_sizes.jsonl

`+"`{\"system\",\"conversation_id\",\"compaction\",\"prompt_tokens\"}`"+` for every context.
The estimate is `+"`prompt_tokens = (len(fixture.Render(context)) + 3) / 4`"+`: the
rendered context's length in bytes, a quarter of it, rounded up (about four
bytes a token for English and code).

| system | contexts | mean prompt_tokens | max |
|---|--:|--:|--:|
| incumbent | %d | %.0f | %d |
| candidate | %d | %.0f | %d |
| incumbent-rerun | %d | %.0f | %d |

The budget on the incumbent's mean is **%d** tokens. The candidate's mean
is %.1f%% smaller than the incumbent's.
`, nSys[SystemIncumbent], mean[SystemIncumbent], maxTok[SystemIncumbent], nSys[SystemCandidate], mean[SystemCandidate], maxTok[SystemCandidate],
		nSys[SystemRerun], mean[SystemRerun], maxTok[SystemRerun], PromptBudget, 100*(1-mean[SystemCandidate]/mean[SystemIncumbent]))

	if strings.Contains(b.String(), "%!") {
		return nil, fmt.Errorf("README: a formatting verb went wrong")
	}
	return b.Bytes(), nil
}

// markerList quotes the restatement markers, without their placeholder.
func markerList(markers []string) string {
	var ms []string
	for _, m := range markers {
		ms = append(ms, "`"+strings.TrimSpace(strings.SplitN(m, "%s", 2)[0])+"`")
	}
	return strings.Join(ms, ", ")
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func minDecisions(cs []*conv) int {
	m := -1
	for _, c := range cs {
		if d := Decisions(c.s); m < 0 || d < m {
			m = d
		}
	}
	return m
}

func tieSentence(q *Quarter) string {
	if q.Tied == "" {
		return "no other incident has as many."
	}
	return fmt.Sprintf("incident %s has as many too and is left out by the tie-break (a later session_id).", q.Tied)
}
