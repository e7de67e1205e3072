package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// propMsg is one message of a test transcript.
type propMsg struct {
	turn       int
	role, text string
}

// propTranscript builds a transcript of messages, with a compaction
// before each turn listed in compactions.
func propTranscript(msgs []propMsg, compactions ...int) Transcript {
	t := Transcript{SessionID: "s1"}
	for _, c := range compactions {
		t.Events = append(t.Events, TranscriptEvent{SessionID: "s1", Turn: c, Kind: "compaction"})
	}
	for _, m := range msgs {
		t.Events = append(t.Events, TranscriptEvent{SessionID: "s1", Turn: m.turn, Kind: "message", Role: m.role, Text: m.text})
	}
	return t
}

// TestProposeRules pins each rule of the classifier on one message: what
// it proposes (at confidence ≥ 0 — everything) or that it proposes
// nothing, and why.
func TestProposeRules(t *testing.T) {
	tests := []struct {
		role, text string
		class      fixture.Class // "" when nothing should be proposed
		literal    string
		confidence float64
		rule       string
		reason     string
	}{
		// Constraints.
		{"user", "Ground rule: leave dual_write_orders off by default.", fixture.Constraint, "leave dual_write_orders off by default", 0.9, "constraint/lead-in+obligation", "rule lead-in, obligation verb; the lead-in and full stop are not part of the literal"},
		{"user", "Before you start: never modify anything under /migrations.", fixture.Constraint, "never modify anything under /migrations", 0.9, "constraint/lead-in+prohibition", "the source text's example constraint"},
		{"user", "Also, don't deploy to staging without asking me first.", fixture.Constraint, "don't deploy to staging without asking me first", 0.8, "constraint/connective+prohibition", "a connective is a weaker lead-in than a rule"},
		{"user", "Please don’t touch the vendored code.", fixture.Constraint, "Please don’t touch the vendored code", 0.7, "constraint/prohibition", "a curly apostrophe is still a prohibition"},
		{"user", "Also, all queries go through the OrderRepository, no raw SQL in handlers.", fixture.Constraint, "all queries go through the OrderRepository, no raw SQL in handlers", 0.8, "constraint/connective+prohibition", `", no …" opens a prohibiting clause`},
		{"user", "Before you start: commit messages follow Conventional Commits.", fixture.Constraint, "commit messages follow Conventional Commits", 0.9, "constraint/lead-in+obligation", "a norm stated as a fact"},
		{"user", "Important: the release notes stay in English.", fixture.Constraint, "the release notes stay in English", 0.6, "constraint/lead-in", "a rule lead-in alone"},
		{"user", "Use pnpm, not npm, for installs.", fixture.Constraint, "Use pnpm, not npm, for installs", 0.6, "constraint/obligation", "an opening obligation verb without lead-in"},
		{"user", "Thanks. Keep going.", "", "", 0, "", "acknowledgement: keep going is not a standing rule"},
		{"user", "Hm, not what I expected. Dig into payments/queue.py.", "", "", 0.3, "reference/path", `"not what I expected" is no prohibition; the bare path is working state`},
		{"user", "Go with the simpler version.", "", "", 0, "", "a one-off direction, no rule"},
		{"user", "Like I said earlier, dual_write_orders defaults to off.", "", "", 0, "", "a restatement is never a new constraint"},
		{"user", "Again: PR goes to develop.", "", "", 0, "", "restatement marker, even though it looks like a lead-in"},
		{"user", "Add retries with exponential backoff to the calls we make to Redis.", "", "", 0, "", "a task statement is not a constraint"},
		// Commitments.
		{"assistant", "I'll open the PR against develop, not main. Starting with the tests.", fixture.Commitment, "I'll open the PR against develop, not main", 0.9, "commitment/i-will+condition", "the source text's example commitment; the next sentence is not part of it"},
		{"assistant", "I will run the linters.", fixture.Commitment, "I will run the linters", 0.7, "commitment/i-will", "a plain promise"},
		{"assistant", "Once CI is green, I'll tag v1.2.0.", fixture.Commitment, "Once CI is green, I'll tag v1.2.0", 0.9, "commitment/i-will+condition", "a leading clause, and the version's dots do not split the sentence"},
		{"assistant", "Let me find where LoadQueue lives.", "", "", 0, "", "an immediate action, not a commitment"},
		{"user", "I'll review it tonight.", "", "", 0, "", "commitments are the assistant's"},
		// Open questions.
		{"user", "Would an enum be better than a varchar for orders.status?", fixture.OpenQuestion, "Would an enum be better than a varchar for orders.status?", 0.65, "open_question/decision-weak", "the source text's example question: one sign (better)"},
		{"user", "Should we retry failed Stripe webhooks or drop them after three attempts?", fixture.OpenQuestion, "Should we retry failed Stripe webhooks or drop them after three attempts?", 0.8, "open_question/decision", "should, we and an alternative"},
		{"user", "Question for later: Can we drop support for Node 18?", fixture.OpenQuestion, "Can we drop support for Node 18?", 0.9, "open_question/deferred", "a deferring lead-in"},
		{"user", "Thinking ahead. Do we keep the lazy_catalog flag after launch?", fixture.OpenQuestion, "Do we keep the lazy_catalog flag after launch?", 0.9, "open_question/deferred", "a deferring sentence before it"},
		{"user", "Why is TestQueueEmpty failing?", "", "", 0, "", "a throwaway question about the work in hand"},
		{"user", "Can you show me the diff so far?", "", "", 0, "", "a request"},
		{"user", "How far along are you?", "", "", 0, "", "a progress question"},
		{"user", "Does payments/queue.py need changes too?", fixture.OpenQuestion, "Does payments/queue.py need changes too?", 0.3, "open_question/plain", "no sign of a pending decision: below the default cut"},
		{"assistant", "Should we retry failed webhooks?", "", "", 0, "", "open questions are the user's"},
		// References.
		{"assistant", "The off-by-one is at internal/inventory/retry.go:397.", fixture.Reference, "internal/inventory/retry.go:397", 0.85, "reference/file-line", "file and line"},
		{"user", "I'm keeping the write-up in report.md rev 14.", fixture.Reference, "report.md rev 14", 0.85, "reference/revision", "the source text's example reference"},
		{"user", "If it goes wrong, follow runbook section 3.4.", fixture.Reference, "runbook section 3.4", 0.75, "reference/section", "a section takes the document word before it; the reference outranks the obligation"},
		{"user", "Spec is docs/rfc-0042.md §7; follow it.", fixture.Reference, "docs/rfc-0042.md §7", 0.85, "reference/document-section", "a document section"},
		{"assistant", "git bisect says commit ab70bc2 is the first bad one.", fixture.Reference, "commit ab70bc2", 0.85, "reference/commit", "a commit"},
		{"user", "The earlier attempt was PR #5527; it got reverted.", fixture.Reference, "PR #5527", 0.8, "reference/pull-request", "a pull request"},
		{"user", "Link everything to ticket INFRA-909.", fixture.Reference, "ticket INFRA-909", 0.85, "reference/ticket", "a ticket"},
		{"user", "The flake shows up in build 86363 on GitHub Actions.", fixture.Reference, "build 86363 on GitHub Actions", 0.8, "reference/build", "a CI build with its CI"},
		{"user", "Compare against bench baseline run 9191.", fixture.Reference, "bench baseline run 9191", 0.75, "reference/run", "a run with its description, not the verb before it"},
		{"user", "Use snapshot stg-2026-01-22 for the fixtures.", fixture.Reference, "snapshot stg-2026-01-22", 0.8, "reference/snapshot", "a snapshot outranks the opening obligation"},
		{"user", "Watch the ingest-lag dashboard, panel 12 while it deploys.", fixture.Reference, "the ingest-lag dashboard, panel 12", 0.75, "reference/dashboard", "a dashboard panel"},
		{"user", "Rebase onto branch feature/ledger-v2 first.", fixture.Reference, "branch feature/ledger-v2", 0.7, "reference/branch", "a branch"},
		{"user", "Details are at https://example.com/runbooks/42.", fixture.Reference, "https://example.com/runbooks/42", 0.8, "reference/url", "a URL without its full stop"},
		{"user", "Context is in DATA-4073.", fixture.Reference, "DATA-4073", 0.65, "reference/ticket-key", "a bare ticket key"},
		{"user", "The file is UTF-8 encoded.", "", "", 0, "", "UTF-8 is a standard, not a ticket"},
		{"assistant", "Reading payments/ratelimit.py to see how LoadQueue is wired.", fixture.Reference, "payments/ratelimit.py", 0.3, "reference/path", "a bare path is working state"},
		{"assistant", "TestSchemaConcurrent fails: expected 1200, got 1199.", "", "", 0, "", "a status line"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			p := Propose(propTranscript([]propMsg{{2, tt.role, tt.text}}), ProposeOptions{})
			if tt.class == "" && tt.rule == "" {
				if len(p.Candidates) != 0 {
					t.Fatalf("%s: proposed %+v", tt.reason, p.Candidates)
				}
				return
			}
			if len(p.Candidates) != 1 {
				t.Fatalf("%s: %d candidates %+v, want 1", tt.reason, len(p.Candidates), p.Candidates)
			}
			c := p.Candidates[0]
			if tt.class != "" && (c.Class != tt.class || c.Literal != tt.literal) {
				t.Errorf("%s: got %s %q, want %s %q", tt.reason, c.Class, c.Literal, tt.class, tt.literal)
			}
			if math.Abs(c.Confidence-tt.confidence) > 1e-12 || c.Rule != tt.rule {
				t.Errorf("%s: confidence %v rule %s, want %v %s", tt.reason, c.Confidence, c.Rule, tt.confidence, tt.rule)
			}
			if c.Turn != 2 || c.Role != tt.role || c.Status != ReviewPending || c.ID != "c1" || c.Message != tt.text {
				t.Errorf("bookkeeping: %+v", c)
			}
		})
	}
}

// TestProposeDrafts pins the drafted probes and expected answers, one per
// template.
func TestProposeDrafts(t *testing.T) {
	tests := []struct {
		role, text    string
		probe, expect string
	}{
		{"user", "Ground rule: never modify anything under /migrations.", "Is the agent forbidden to modify anything under /migrations?", "yes"},
		{"user", "Also, don't deploy to staging without asking me first.", "Is the agent forbidden to deploy to staging without asking the user first?", "yes"},
		{"user", "Important: do not change the column types in audit_log.", "Is the agent forbidden to change the column types in audit_log?", "yes"},
		{"user", "Also, no force-pushes to develop.", "Does the user forbid force-pushes to develop?", "yes"},
		{"user", "Please keep this in mind: tests must not hit the network; stub S3.", "May tests hit the network?", "no"},
		{"user", "Ground rule: target release/2.4 with every PR, never main.", "Must the agent target release/2.4 with every PR, never main?", "yes"},
		{"user", "Before you start: commit messages follow Conventional Commits.", "Does this rule from the user still hold: commit messages follow Conventional Commits?", "yes"},
		{"assistant", "I'll open the PR against develop, not main.", "What did the assistant commit to about the PR?", "open the PR against develop, not main"},
		{"assistant", "I'll keep the old /v1/orders endpoint until the mobile app ships 4.2.", "What did the assistant commit to about the old /v1/orders endpoint?", "keep the old /v1/orders endpoint until the mobile app ships 4.2"},
		{"assistant", "I'll ask before deleting any S3 objects.", "What did the assistant commit to (“I'll ask before deleting any …”)?", "ask before deleting any S3 objects"},
		{"user", "Would an enum be better than a varchar for orders.status?", "Has the user decided this question yet: Would an enum be better than a varchar for orders.status?", "no — still open"},
		{"user", "I'm keeping the write-up in report.md rev 14.", "Which document and revision does “I'm keeping the write-up in …” refer to?", "report.md rev 14"},
		{"user", "Use snapshot stg-2026-01-22.", "Which snapshot was mentioned?", "snapshot stg-2026-01-22"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			p := Propose(propTranscript([]propMsg{{1, tt.role, tt.text}}), ProposeOptions{MinConfidence: DefaultMinConfidence})
			if len(p.Candidates) != 1 {
				t.Fatalf("%d candidates: %+v", len(p.Candidates), p.Candidates)
			}
			if c := p.Candidates[0]; c.Probe != tt.probe || c.Expect != tt.expect {
				t.Errorf("got  %q / %q\nwant %q / %q", c.Probe, c.Expect, tt.probe, tt.expect)
			}
		})
	}
}

// TestProposeTranscript checks what depends on more than one message:
// answered questions, restatements in other words, repeated references,
// ids and counts, and the confidence cut.
func TestProposeTranscript(t *testing.T) {
	tr := propTranscript([]propMsg{
		{1, "user", "Move the payments service to structured logging."},
		{3, "user", "Ground rule: never modify anything under infra/terraform."},
		{4, "user", "Should the price cache TTL be per-tenant or global?"},
		{5, "user", "Do we backfill users.email for old rows or leave them NULL?"},
		{6, "assistant", "Checked: we backfill users.email for old rows in a migration."},
		{7, "user", "Rollback steps are in runbook section 9.4."},
		{9, "user", "modify nothing under infra/terraform, ever"},
		{10, "assistant", "Following runbook section 9.4 now."},
		{12, "user", "Does payments/queue.py need changes too?"},
	}, 8, 11)
	all := Propose(tr, ProposeOptions{})
	type row struct {
		turn  int
		class fixture.Class
		conf  float64
	}
	var got []row
	for _, c := range all.Candidates {
		got = append(got, row{c.Turn, c.Class, c.Confidence})
	}
	want := []row{
		{3, fixture.Constraint, 0.9},
		{4, fixture.OpenQuestion, 0.8},
		{5, fixture.OpenQuestion, 0.2}, // answered at turn 6
		{7, fixture.Reference, 0.75},
		// turn 9 restates turn 3 in other words; turn 10 repeats the reference
		{12, fixture.OpenQuestion, 0.3}, // one item a sentence: the path (also 0.3) loses the tie
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if all.Candidates[2].Rule != "open_question/decision+answered-later" {
		t.Errorf("answered question's rule %q", all.Candidates[2].Rule)
	}
	if all.ConversationID != "s1" || all.Turns != 12 || all.CompactionsExpected != 2 || all.Position != 0 {
		t.Errorf("header %+v", all)
	}
	cut := Propose(tr, ProposeOptions{MinConfidence: DefaultMinConfidence})
	var ids []string
	for _, c := range cut.Candidates {
		ids = append(ids, c.ID+":"+string(c.Class))
	}
	if strings.Join(ids, " ") != "c1:constraint c2:open_question c3:reference" {
		t.Errorf("after the cut: %v", ids)
	}
	if empty := Propose(propTranscript(nil, 1), ProposeOptions{}); empty.Candidates == nil || len(empty.Candidates) != 0 {
		t.Errorf("no messages: candidates %#v, want an empty list (JSON [])", empty.Candidates)
	}
}

// TestReadTranscriptsProblems: every malformed line is named by file,
// line and column, with the field at fault.
func TestReadTranscriptsProblems(t *testing.T) {
	good := `{"session_id":"s1","turn":1,"kind":"message","role":"user","text":"hi"}`
	tests := []struct {
		line string
		want string
	}{
		{`{"session_id":"s1","turn":1,"kind":"message","role":"user","text":"hi"`, "log.jsonl:2:71: unexpected end of line: the JSON object is not complete"},
		{`not json`, "log.jsonl:2:2: invalid character 'o' in literal null (expecting 'u')"},
		{`[1,2]`, "log.jsonl:2:1: want a JSON object (one event), got an array"},
		{`{"session_id":"s1","turn":0,"kind":"compaction"}`, "log.jsonl:2:20: turn: must be at least 1 (turns are numbered from 1), got 0"},
		{`{"session_id":"s1","turn":16777217,"kind":"compaction"}`, "log.jsonl:2:20: turn: must be at most 16777216, as in every event log, got 16777217"},
		{`{"session_id":"s1","turn":"3","kind":"compaction"}`, `log.jsonl:2:20: turn: want a whole number, got string "3"`},
		{`{"session_id":"s1","turn":2.5,"kind":"compaction"}`, "log.jsonl:2:20: turn: want a whole number, got number 2.5"},
		{`{"session_id":"s1","kind":"compaction"}`, `log.jsonl:2:1: missing "turn"`},
		{`{"session_id":"","turn":1,"kind":"compaction"}`, "log.jsonl:2:2: session_id: want a non-empty string"},
		{`{"session_id":7,"turn":1,"kind":"compaction"}`, "log.jsonl:2:2: session_id: want a string, got number 7"},
		{`{"session_id":"s1","turn":1,"kind":"note"}`, `log.jsonl:2:29: kind: want message, tool_call or compaction, got "note"`},
		{`{"session_id":"s1","turn":1,"kind":"message","text":"hi"}`, "log.jsonl:2:29: role: a message needs a non-empty role"},
		{`{"session_id":"s1","turn":1,"kind":"message","role":"user","text":null}`, "log.jsonl:2:29: text: a message needs a text"},
		{`{"session_id":"s1","turn":1,"kind":"tool_call"}`, "log.jsonl:2:29: tool: a tool call needs a non-empty tool"},
		{`{"session_id":"s1","turn":1,"turn":2,"kind":"compaction"}`, "log.jsonl:2:29: turn: given twice"},
		{`{"session_id":"s1","turn":1,"ts":"yesterday","kind":"compaction"}`, `log.jsonl:2:29: ts: want an RFC 3339 time such as 2026-01-05T04:55:22Z, got "yesterday"`},
		{`{"session_id":"s1","turn":1,"kind":"compaction"} x`, "log.jsonl:2:50: extra data after the event object"},
		{"{\"session_id\":\"s\xff\",\"turn\":1,\"kind\":\"compaction\"}", "log.jsonl:2:17: invalid UTF-8 (byte 0xff)"},
		{`{"session_id":"a/b","turn":1,"kind":"compaction"}`, `log.jsonl:2:1: session_id: "a/b" cannot name a folder (no /, \, :, control characters, "." or ".."), and it would be the fixture's conversation_id`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			in := good + "\n" + tt.line + "\n\n" + good + "\n"
			_, err := ReadTranscripts("log.jsonl", strings.NewReader(in), TranscriptOptions{})
			ps := fixture.AsProblems(err)
			if len(ps) != 1 || ps[0].Error() != tt.want {
				t.Fatalf("got  %v\nwant %s", err, tt.want)
			}
			// --skip-bad: the line is skipped, reported, and the rest read.
			log, err := ReadTranscripts("log.jsonl", strings.NewReader(in), TranscriptOptions{SkipBad: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(log.Skipped) != 1 || log.Skipped[0].Error() != tt.want {
				t.Errorf("skipped %v", log.Skipped)
			}
			if len(log.Sessions) != 1 || len(log.Sessions[0].Events) != 2 {
				t.Errorf("sessions %+v", log.Sessions)
			}
		})
	}
}

// TestReadTranscriptsManyProblems: every bad line is reported, not only
// the first, up to a cap.
func TestReadTranscriptsManyProblems(t *testing.T) {
	_, err := ReadTranscripts("x", strings.NewReader("a\nb\n"), TranscriptOptions{})
	if ps := fixture.AsProblems(err); len(ps) != 2 || ps[1].Line != 2 {
		t.Errorf("two bad lines: %v", err)
	}
	_, err = ReadTranscripts("x", strings.NewReader(strings.Repeat("?\n", 150)), TranscriptOptions{})
	ps := fixture.AsProblems(err)
	if len(ps) != propMaxProblems+1 || ps[len(ps)-1].Error() != "x: 50 more problems not shown" {
		t.Errorf("150 bad lines: %d problems, last %v", len(ps), ps[len(ps)-1])
	}
}

// TestReadTranscriptsSessions: a log of many sessions is grouped by
// session, in order of appearance, each in turn order; Session keeps one;
// unknown keys are ignored and null is an absent value.
func TestReadTranscriptsSessions(t *testing.T) {
	in := strings.Join([]string{
		`{"session_id":"b","turn":2,"kind":"message","role":"user","text":"two","extra":{"x":1}}`,
		`{"session_id":"a","turn":1,"kind":"compaction","ts":null,"role":null}`,
		`{"session_id":"b","turn":1,"ts":"2026-01-05T09:13:58Z","kind":"tool_call","tool":"grep","args":{"pattern":"x"}}`,
		"",
		`{"session_id":"b","turn":2,"kind":"message","role":"assistant","text":"ok"}` + "\r",
	}, "\n")
	log, err := ReadTranscripts("l", strings.NewReader(in), TranscriptOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Sessions) != 2 || log.Sessions[0].SessionID != "b" || log.Sessions[1].SessionID != "a" {
		t.Fatalf("sessions %+v", log.Sessions)
	}
	b := log.Sessions[0]
	var order []string
	for _, e := range b.Events {
		order = append(order, fmt.Sprintf("%d:%s@%d", e.Turn, e.Kind, e.Line))
	}
	if strings.Join(order, " ") != "1:tool_call@3 2:message@1 2:message@5" {
		t.Errorf("order %v", order)
	}
	if b.Events[0].TS != "2026-01-05T09:13:58Z" || string(b.Events[0].Args) != `{"pattern":"x"}` || b.Events[2].Text != "ok" {
		t.Errorf("fields %+v", b.Events)
	}
	if b.Turns() != 2 || b.Compactions() != 0 || log.Sessions[1].Compactions() != 1 {
		t.Errorf("turns %d compactions %d", b.Turns(), b.Compactions())
	}
	one, err := ReadTranscripts("l", strings.NewReader(in), TranscriptOptions{Session: "a"})
	if err != nil || len(one.Sessions) != 1 || one.Sessions[0].SessionID != "a" {
		t.Errorf("Session a: %+v %v", one.Sessions, err)
	}
}

// errReader fails after its data.
type propErrReader struct{ data []byte }

func (r *propErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadTranscriptsIOError(t *testing.T) {
	_, err := ReadTranscripts("l", &propErrReader{[]byte("{}\n")}, TranscriptOptions{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || len(fixture.AsProblems(err)) != 0 {
		t.Errorf("I/O error: %v", err)
	}
}

// ExamplePropose proposes items from a short transcript.
func ExamplePropose() {
	log := strings.Join([]string{
		`{"session_id":"sess_a4f1","turn":1,"kind":"message","role":"user","text":"Add an orders.status index."}`,
		`{"session_id":"sess_a4f1","turn":3,"kind":"message","role":"user","text":"Ground rule: never modify anything under /migrations."}`,
		`{"session_id":"sess_a4f1","turn":19,"kind":"message","role":"assistant","text":"I'll open the PR against develop, not main."}`,
		`{"session_id":"sess_a4f1","turn":22,"kind":"message","role":"user","text":"Would an enum be better than a varchar for orders.status?"}`,
		`{"session_id":"sess_a4f1","turn":30,"kind":"compaction"}`,
		`{"session_id":"sess_a4f1","turn":41,"kind":"message","role":"assistant","text":"Numbers are going into report.md rev 14."}`,
		`{"session_id":"sess_a4f1","turn":42,"kind":"message","role":"user","text":"Why is TestOrders failing?"}`,
	}, "\n")
	tl, err := ReadTranscripts("events.jsonl", strings.NewReader(log), TranscriptOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := Propose(tl.Sessions[0], ProposeOptions{MinConfidence: DefaultMinConfidence})
	fmt.Printf("%s: %d turns, %d compaction\n", p.ConversationID, p.Turns, p.CompactionsExpected)
	for _, c := range p.Candidates {
		fmt.Printf("%s %-13s turn %2d  %.2f  %q\n", c.ID, c.Class, c.Turn, c.Confidence, c.Literal)
	}
	// Output:
	// sess_a4f1: 42 turns, 1 compaction
	// c1 constraint    turn  3  0.90  "never modify anything under /migrations"
	// c2 commitment    turn 19  0.90  "I'll open the PR against develop, not main"
	// c3 open_question turn 22  0.65  "Would an enum be better than a varchar for orders.status?"
	// c4 reference     turn 41  0.85  "report.md rev 14"
}

// FuzzReadTranscripts: reading never panics; problems are placed inside
// the input; every event read obeys the format; and proposing from any
// session read gives candidates that make a valid fixture once accepted,
// survive a JSON round trip, and have confidences in [0, 1].
func FuzzReadTranscripts(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","turn":1,"kind":"message","role":"user","text":"Ground rule: never touch x. Should we use y or z?"}`))
	f.Add([]byte(`{"session_id":"s","turn":2,"kind":"message","role":"assistant","text":"I'll fix it before x.go:12; see PR #12 and commit abcdef1."}` + "\n" + `{"session_id":"t","turn":1,"kind":"compaction"}`))
	f.Add([]byte(`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","args":[1,{"a":null}]}`))
	f.Add([]byte("{\"session_id\":\"s\",\"turn\":1,\"kind\":\"message\",\"role\":\"user\",\"text\":\"\\u0000\\n§ 1.2 … e.g. Also, no\"}\r\n\n"))
	f.Add([]byte(`{"session_id":".","turn":99999999999999999999,"kind":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			log, err := ReadTranscripts("f.jsonl", bytes.NewReader(data), TranscriptOptions{SkipBad: skip})
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, p := range append(fixture.AsProblems(err), log.Skipped...) {
				if p.File != "f.jsonl" || p.Msg == "" || (p.Line != 0 && (p.Line < 1 || p.Line > lines || p.Col < 1)) {
					t.Fatalf("problem out of place: %#v", p)
				}
			}
			if err != nil {
				if skip {
					t.Fatalf("SkipBad returned %v", err)
				}
				continue
			}
			for _, s := range log.Sessions {
				for _, e := range s.Events {
					if e.SessionID != s.SessionID || e.Turn < 1 || (e.Kind != "message" && e.Kind != "tool_call" && e.Kind != "compaction") {
						t.Fatalf("bad event %+v", e)
					}
				}
				p := Propose(s, ProposeOptions{})
				fx := fixture.Fixture{ConversationID: p.ConversationID, Turns: p.Turns, CompactionsExpected: p.CompactionsExpected, MustSurvive: []fixture.Item{}}
				for _, c := range p.Candidates {
					if !(c.Confidence >= 0 && c.Confidence <= 1) || c.Rule == "" || c.Status != ReviewPending {
						t.Fatalf("bad candidate %+v", c)
					}
					fx.MustSurvive = append(fx.MustSurvive, c.Item())
				}
				if err := fx.Validate(); err != nil {
					t.Fatalf("accepting every candidate gives an invalid fixture: %v\n%+v", err, p.Candidates)
				}
				js, err := json.Marshal(fx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := fixture.Parse("fx.json", js); err != nil {
					t.Fatalf("fixture.Parse rejects it: %v", err)
				}
			}
		}
	})
}

// TestReadTranscriptsSyntaxColumns: a syntax error points at the
// character it is about, whichever way encoding/json found it.
func TestReadTranscriptsSyntaxColumns(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"turn":1,,"kind":"compaction"}`, "l:1:11: invalid character ',' looking for beginning of object key string"},
		{`{"turn":1 "kind":"compaction"}`, "l:1:11: invalid character '\"' after object key:value pair"},
		{`{"turn":tru}`, "l:1:12: invalid character '}' in literal true (expecting 'e')"},
		{`{"turn":1,   }`, "l:1:14: invalid character '}' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		_, err := ReadTranscripts("l", strings.NewReader(tt.line), TranscriptOptions{})
		if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].Error() != tt.want {
			t.Errorf("%s:\ngot  %v\nwant %s", tt.line, err, tt.want)
		}
	}
}
