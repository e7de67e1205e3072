package selection

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// propMsg is one message of a test transcript.
type propMsg struct {
	turn       int
	role, text string
}

// propSession builds a session "s1" of messages in turn order: a user
// message is a typed prompt at its turn, an assistant message a step's
// text; turns is the number of turns (at least the last message's),
// and a compaction happens at the start of each turn listed.
func propSession(msgs []propMsg, turns int, compactions ...int) *agentlog.Session {
	s := &agentlog.Session{ID: "s1", Format: agentlog.Generic}
	for _, m := range msgs {
		turns = max(turns, m.turn)
	}
	s.Turns = make([]agentlog.Turn, turns)
	for _, m := range msgs {
		if m.role == "user" {
			s.Messages = append(s.Messages, agentlog.Message{Kind: agentlog.Typed, Turn: m.turn - 1, Step: len(s.Steps), Text: m.text})
			s.Turns[m.turn-1].Message = len(s.Messages) - 1
			continue
		}
		s.Steps = append(s.Steps, agentlog.Step{Turn: m.turn - 1, Text: m.text})
	}
	for _, c := range compactions {
		s.Compactions = append(s.Compactions, agentlog.Compaction{Turn: c - 1})
	}
	return s
}

// propConstraints is what Propose proposes for s with opts, constraints
// only.
func propConstraints(s *agentlog.Session, opts ProposeOptions) []ProposedItem {
	var out []ProposedItem
	for _, c := range Propose(s, opts).Candidates {
		if c.Class == fixture.Constraint {
			out = append(out, c)
		}
	}
	return out
}

// TestProposeRules pins each rule of the classifier on one message: what
// it proposes (at confidence ≥ 0 — everything, but the steer rule) or
// that it proposes nothing, and why.
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
		{"user", "Please don’t touch the vendored code.", fixture.Constraint, "Please don’t touch the vendored code", 0.7, "constraint/prohibition/never", "a curly apostrophe is still a prohibition"},
		{"user", "Also, all queries go through the OrderRepository, no raw SQL in handlers.", fixture.Constraint, "all queries go through the OrderRepository, no raw SQL in handlers", 0.8, "constraint/connective+prohibition", `", no …" opens a prohibiting clause`},
		{"user", "Before you start: commit messages follow Conventional Commits.", fixture.Constraint, "commit messages follow Conventional Commits", 0.9, "constraint/lead-in+obligation", "a norm stated as a fact"},
		{"user", "Important: the release notes stay in English.", fixture.Constraint, "the release notes stay in English", 0.6, "constraint/lead-in", "a rule lead-in alone"},
		{"user", "Use pnpm, not npm, for installs.", fixture.Constraint, "Use pnpm, not npm, for installs", 0.6, "constraint/obligation/use", "an opening obligation verb without lead-in"},
		{"user", "let's make sure we're using US English everywhere please", fixture.Constraint, "let's make sure we're using US English everywhere please", 0.6, "constraint/obligation/keep", `"let's make sure" binds as "please make sure" does`},
		{"user", "Thanks. Keep going.", "", "", 0, "", "acknowledgement: keep going is not a standing rule"},
		{"user", "Hm, not what I expected. Dig into payments/queue.py.", fixture.Reference, "payments/queue.py", 0.6, "reference/path", `"not what I expected" is no prohibition; a path a person typed names a file of the work`},
		{"user", "Go with the simpler version.", "", "", 0, "", "a one-off direction, no rule"},
		{"user", "Like I said earlier, dual_write_orders defaults to off.", "", "", 0, "", "a restatement is never a new constraint"},
		{"user", "Again: PR goes to develop.", "", "", 0, "", "restatement marker, even though it looks like a lead-in"},
		{"user", "Add retries with exponential backoff to the calls we make to Redis.", "", "", 0, "", "a task statement is not a constraint"},
		// Commitments.
		{"assistant", "I'll open the PR against develop, not main. Starting with the tests.", fixture.Commitment, "I'll open the PR against develop, not main", 0.9, "commitment/instead-of", "the source text's example commitment; the next sentence is not part of it"},
		{"assistant", "I will run the linters.", fixture.Commitment, "I will run the linters", 0.7, "commitment/plain", "a plain promise, in a step that calls no tool"},
		{"assistant", "I'll add tests to `hook_registry_test.go`:", fixture.Reference, "hook_registry_test.go", 0.6, "reference/path", "a sentence ending in a colon introduces the next step: no commitment; the file it changes is a reference"},
		{"assistant", "Got it - I won't amend commits going forward.", fixture.Commitment, "Got it - I won't amend commits going forward", 0.9, "commitment/refusal", "a refusal from now on, after a dash"},
		{"assistant", "I'll keep it simple and focus on the casts.", "", "", 0, "", "an idiom about the manner of working"},
		{"assistant", "I'll explore the codebase before we dive into brainstorming.", "", "", 0, "", "finding things out is narration, whatever follows"},
		{"assistant", "I'll modify the code to include the branch only when hasShadowBranch is true.", fixture.Commitment, "I'll modify the code to include the branch only when hasShadowBranch is true", 0.7, "commitment/plain", "\"only when\" is the code's condition, not a binding one: a plain promise (no tool call in its step)"},
		{"assistant", "I'll pause here and wait for you to finish the rebase before continuing.", fixture.Commitment, "I'll pause here and wait for you to finish the rebase before continuing", 0.9, "commitment/ask-first", "waiting for the person"},
		{"user", "The conflict resolution shouldn't be too hard, please take a look.", "", "", 0, "", "an estimate, not a prohibition"},
		{"user", "The RunGitCommand function is defined in testenv.go but never called anywhere.", fixture.Reference, "testenv.go", 0.6, "reference/path", "a description (\"but never called\"), no prohibition; the file a person names is a reference"},
		{"assistant", "Once CI is green, I'll tag v1.2.0.", fixture.Commitment, "Once CI is green, I'll tag v1.2.0", 0.9, "commitment/until", "a leading clause, and the version's dots do not split the sentence"},
		{"assistant", "So the existing code is correct — no `t.Parallel()` needed here.", fixture.Commitment, "So the existing code is correct — no `t.Parallel()` needed here", 0.55, "commitment/no-change", "a verdict that what exists stays as it is"},
		{"assistant", "Let me check whether the existing code is correct.", "", "", 0, "", "a check to make, not a verdict"},
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
		{"user", "Does payments/queue.py need changes too?", fixture.Reference, "payments/queue.py", 0.6, "reference/path", "the path a person typed (0.6) outranks a question with no sign of a pending decision (0.3)"},
		{"user", "Should we cache per tenant?", fixture.OpenQuestion, "Should we cache per tenant?", 0.8, "open_question/decision", "should and we"},
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
		{"assistant", "Replied to 2734651368, then pushed.", fixture.Reference, "2734651368", 0.6, "reference/numeric-id", "an id before a list comma (\", \" is not a thousands separator)"},
		{"assistant", "Reading payments/ratelimit.py to see how LoadQueue is wired.", fixture.Reference, "payments/ratelimit.py", 0.3, "reference/path", "a bare path is working state"},
		{"user", "create me a .github/CODEOWNERS file", fixture.Reference, ".github/CODEOWNERS", 0.6, "reference/path", "a one-slash name without an extension in a dot folder is a path, not a word pair"},
		{"user", "add it to the allow list in `.golangci.yaml`", fixture.Reference, ".golangci.yaml", 0.6, "reference/path", "a dot file keeps its dot (a new user's trial found \"golangci.yaml\")"},
		{"user", "it returns github.com/acme/cli/strategy.Strategy now", "", "", 0, "", "a package path and a type named in it is no file"},
		{"user", "run the linter on src/*/handlers.go", "", "", 0, "", "a path in a glob names no one file"},
		{"user", "the flaky asserts are at scenario_checkpoint_test.go:42,75", fixture.Reference, "scenario_checkpoint_test.go:42,75", 0.85, "reference/file-line", "lines listed with no space are the file's (a new user's trial found \":42\" alone)"},
		{"user", "If the shell is known, install the completions, and if we can't determine it, print a warning.", "", "", 0, "", `"can't" inside a condition is no prohibition (a new user's trial found the probe "May if … we determine …?" with the negation dropped)`},
		{"assistant", "TestSchemaConcurrent fails: expected 1200, got 1199.", "", "", 0, "", "a status line"},
		{"user", "I don't quite like that commit though - it gets rid of the informative output.", fixture.Constraint, "I don't quite like that commit though - it gets rid of the informative output", 0.7, "constraint/prohibition/dislike", "a dislike with an adverb in it"},
		{"user", "if there is an error, always exit with os.Exit(1)", fixture.Constraint, "if there is an error, always exit with os.Exit(1)", 0.6, "constraint/obligation/always", `"always" opening the clause after a condition`},
		{"user", "it somehow always fails on CI, and always returns 1", "", "", 0, "", `"always" before a verb in the third person describes`},
		{"user", "Do we need the change in the setup doc at all then?", fixture.Constraint, "Do we need the change in the setup doc at all then?", 0.7, "constraint/objection/just-for", "doubting a change is needed at all objects to it"},
		{"user", "do we have this code block copied multiple times now?", fixture.Constraint, "do we have this code block copied multiple times now?", 0.7, "constraint/objection/just-for", "pointing at duplication objects to it"},
		{"user", "can you do a web search if others have the DNS issue too?", "", "", 0, "", `a "too" asks for one more thing now, no lasting property`},
		{"user", "can you check if there would be issues with a https url instead of a git url?", "", "", 0, "", "asking the agent to find something out sets nothing"},
		{"user", "ignore this warning: SA4006 this value of err is never used (staticcheck)", fixture.Constraint, "ignore this warning", 0.7, "constraint/prohibition/defer", "before pasted output the lead-in is what the person said (propPasted)"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			p := Propose(propSession([]propMsg{{2, tt.role, tt.text}}, 2), ProposeOptions{})
			// The steer rule reads a whole follow-up message when no
			// sentence rule did (TestProposeSteer pins it).
			p.Candidates = slices.DeleteFunc(p.Candidates, func(c ProposedItem) bool { return strings.HasPrefix(c.Rule, "constraint/steer") })
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
		// A ban joined to a positive instruction: "forbidden to … and
		// keep using sqlx?" would forbid the second (a new user's trial).
		{"user", "Don't touch the public API and keep using sqlx for queries.", "Does this rule from the user still hold: “Don't touch the public API and keep using sqlx for queries”?", "yes"},
		// A correction's "no" forbids nothing (a probe review found
		// "Does the user forbid revert those changes …?").
		{"user", "no revert those changes, I think it's correct if it's part of the commit", "Does this rule from the user still hold: “no revert those changes, I think it's correct if it's part of the commit”?", "yes"},
		{"user", "Please keep this in mind: tests must not hit the network; stub S3.", "May tests hit the network?", "no"},
		{"user", "Ground rule: target release/2.4 with every PR, never main.", "Must the agent target release/2.4 with every PR, never main?", "yes"},
		{"user", "Before you start: commit messages follow Conventional Commits.", "Does this rule from the user still hold: “commit messages follow Conventional Commits”?", "yes"},
		// A leave is no ban (a new user's trial found "Is the agent
		// forbidden to worry about linting …?").
		{"user", "Don't worry about linting for now, just continue.", "Does this rule from the user still hold: “Don't worry about linting for now, just continue”?", "yes"},
		{"assistant", "I'll open the PR against develop, not main.", "What did the assistant commit to about the PR?", "open the PR against develop, not main"},
		{"assistant", "I'll keep the old /v1/orders endpoint until the mobile app ships 4.2.", "What did the assistant commit to about the old /v1/orders endpoint?", "keep the old /v1/orders endpoint until the mobile app ships 4.2"},
		{"assistant", "I'll ask before deleting any S3 objects.", "What did the assistant commit to (“I'll ask before deleting any …”)?", "ask before deleting any S3 objects"},
		// A refusal keeps its negation in the expected answer (a new
		// user's trial found "delete the old cache files" for this).
		{"assistant", "OK — I won't delete the old cache files.", "What did the assistant commit to about the old cache files?", "won't delete the old cache files"},
		{"assistant", "Got it - I will not amend commits going forward.", "What did the assistant commit to about commits going forward?", "will not amend commits going forward"},
		{"assistant", "I won’t push until you've reviewed it.", "What did the assistant commit to (“I won’t push until you've reviewed …”)?", "won’t push until you've reviewed it"},
		{"user", "Would an enum be better than a varchar for orders.status?", "Has the user decided this question yet: “Would an enum be better than a varchar for orders.status?”", "no — still open"},
		// A person's words are quoted as said, first person and all (a
		// probe review found "so the user think I'd prefer …").
		{"user", "I think I'd prefer it moved to the sessions package, ideally.", "Does this rule from the user still hold: “I think I'd prefer it moved to the sessions package, ideally”?", "yes"},
		// An objection asks whether it was raised: a fix in the summary
		// does not contradict it (a new user's trial found "does this
		// objection still hold? yes" after the agent had acted on it).
		{"user", "doesn't git know if it's a binary file?", "Did the user raise this objection, which later work must respect: “doesn't git know if it's a binary file?”?", "yes"},
		{"user", "Then on stop hook I want a notification if a review is still pending.", "Does this requirement from the user still hold: “Then on stop hook I want a notification if a review is still pending”?", "yes"},
		{"user", "I'm keeping the write-up in report.md rev 14.", "Which document and revision does “I'm keeping the write-up in …” refer to?", "report.md rev 14"},
		{"user", "Use snapshot stg-2026-01-22.", "Which snapshot did the user name?", "snapshot stg-2026-01-22"},
		{"user", "https://github.com/entireio/cli/pull/2", "Which URL did the user name?", "https://github.com/entireio/cli/pull/2"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			p := Propose(propSession([]propMsg{{1, tt.role, tt.text}}, 1), ProposeOptions{MinConfidence: DefaultMinConfidence})
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
	tr := propSession([]propMsg{
		{1, "user", "Move the payments service to structured logging."},
		{3, "user", "Ground rule: never modify anything under infra/terraform."},
		{4, "user", "Should the price cache TTL be per-tenant or global?"},
		{5, "user", "Do we backfill users.email for old rows or leave them NULL?"},
		{6, "assistant", "Checked: we backfill users.email for old rows in a migration."},
		{7, "user", "Rollback steps are in runbook section 9.4."},
		{9, "user", "modify nothing under infra/terraform, ever"},
		{10, "assistant", "Following runbook section 9.4 now."},
		{12, "user", "Does payments/queue.py need changes too?"},
	}, 12, 8, 11)
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
		{12, fixture.Reference, 0.6}, // one item a sentence: the path a person typed (0.6) wins over the plain question (0.3)
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
	if strings.Join(ids, " ") != "c1:constraint c2:open_question c3:reference c4:reference" {
		t.Errorf("after the cut: %v", ids)
	}
	if empty := Propose(propSession(nil, 1, 1), ProposeOptions{}); empty.Candidates == nil || len(empty.Candidates) != 0 {
		t.Errorf("no messages: candidates %#v, want an empty list (JSON [])", empty.Candidates)
	}
}

// ExamplePropose proposes items from a short session in the generic
// log format (any reader of package agentlog gives the same Session).
func ExamplePropose() {
	log := `{"session_id": "sess_a4f1", "messages": [
	{"role": "user", "content": "Add an orders.status index."},
	{"role": "assistant", "content": "Let me read the schema first."},
	{"role": "user", "content": "Ground rule: never modify anything under /migrations."},
	{"role": "user", "content": "<system-reminder>never mind</system-reminder>", "injected": "system reminder"},
	{"role": "assistant", "content": "Understood. I'll open the PR against develop, not main. Numbers are going into report.md rev 14."},
	{"role": "user", "content": "Would an enum be better than a varchar for orders.status?"},
	{"role": "user", "content": "Why is TestOrders failing?"},
	{"role": "assistant", "content": "Looking."}],
	"compactions": [{"after_message": 6, "summary": "…"}]}`
	sessions, err := agentlog.ReadAll(strings.NewReader(strings.ReplaceAll(log, "\n", " ")), "events.jsonl", agentlog.Generic)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := Propose(sessions[0], ProposeOptions{MinConfidence: DefaultMinConfidence})
	fmt.Printf("%s: %d turns, %d compaction\n", p.ConversationID, p.Turns, p.CompactionsExpected)
	for _, c := range p.Candidates {
		fmt.Printf("%s %-13s turn %d  %.2f  %q\n", c.ID, c.Class, c.Turn, c.Confidence, c.Literal)
	}
	// Output:
	// sess_a4f1: 4 turns, 1 compaction
	// c1 constraint    turn 2  0.90  "never modify anything under /migrations"
	// c2 commitment    turn 2  0.90  "I'll open the PR against develop, not main"
	// c3 reference     turn 2  0.85  "report.md rev 14"
	// c4 open_question turn 3  0.65  "Would an enum be better than a varchar for orders.status?"
}

// TestProposeRuleTable runs every rule of the proposer's tables on its
// own example (it must fire) and its near miss (it must not): the
// constraint and commitment cues, and the reference patterns (the
// example must yield the pattern's reference, the near miss none of its
// kind).
func TestProposeRuleTable(t *testing.T) {
	var decisions []propRule
	for _, d := range propDecisions {
		decisions = append(decisions, d.propRule)
		if d.confidence <= 0 || d.confidence > 1 || d.probe == "" {
			t.Errorf("%s: confidence %v, probe %q", d.name, d.confidence, d.probe)
		}
	}
	for _, table := range [][]propRule{propProhibitions, propObligations, propCommitments, decisions, propCues} {
		for _, r := range table {
			t.Run(r.name, func(t *testing.T) {
				if r.example == "" || r.nearMiss == "" {
					t.Fatal("a rule needs an example and a near miss")
				}
				if _, ok := propFires([]propRule{r}, propNormalize(r.example)); !ok {
					t.Errorf("does not fire on its example %q", r.example)
				}
				if _, ok := propFires([]propRule{r}, propNormalize(r.nearMiss)); ok {
					t.Errorf("fires on its near miss %q", r.nearMiss)
				}
			})
		}
	}
	for _, pat := range propRefPatterns {
		t.Run(pat.rule+"/"+pat.ref, func(t *testing.T) {
			found := false
			for _, g := range propReferences(pat.example, "assistant") {
				if g.rule == pat.rule && g.literal == strings.Trim(pat.ref, "`") {
					found = true
				}
			}
			if !found {
				t.Errorf("example %q: no %s %q in %+v", pat.example, pat.rule, pat.ref, propReferences(pat.example, "assistant"))
			}
			for _, g := range propReferences(pat.nearMiss, "assistant") {
				if g.rule == pat.rule {
					t.Errorf("near miss %q gives %s %q", pat.nearMiss, g.rule, g.literal)
				}
			}
		})
	}
}

// TestProposeSessions pins what Propose makes of whole sessions, each
// candidate shown as the case shows it.
func TestProposeSessions(t *testing.T) {
	// What comes from the session rather than the text: injected
	// messages are not read, a slash command's arguments are, a shell
	// command is not, pasted output is skipped, what a person typed when
	// refusing a tool call is read at its turn, an "I'll …" in a step that
	// calls a tool is narration (even with a condition, when it orders the
	// next steps), and a later message that takes an instruction back
	// drops it.
	kinds := &agentlog.Session{ID: "s1", Turns: make([]agentlog.Turn, 4)}
	kinds.Messages = []agentlog.Message{
		{Kind: agentlog.Typed, Turn: 0, Step: 0, Text: "Never commit to main.\n```\nFAIL: never commit to main\n```"},
		{Kind: agentlog.SystemReminder, Turn: 0, Step: 0, Text: "<system-reminder>Never use tabs.</system-reminder>"},
		{Kind: agentlog.SlashCommand, Turn: 1, Step: 3, Text: "<command-name>/review</command-name><command-args>always run specs locally before push</command-args>"},
		{Kind: agentlog.ShellCommand, Turn: 2, Step: 4, Text: "<bash-input>never mind</bash-input>"},
		{Kind: agentlog.Typed, Turn: 3, Step: 4, Text: "Actually, you can commit to main now."},
	}
	kinds.Steps = []agentlog.Step{
		{Turn: 0, Text: "I'll read the file now.", Calls: []agentlog.ToolCall{{Name: "Read"}}},
		{Turn: 0, Text: "I'll write the migration first and run it on a copy before touching the real table.", Calls: []agentlog.ToolCall{{Name: "Write"}}},
		{Turn: 0, Text: "Done. I'll post the numbers in PLAN.md."},
		{Turn: 1, Calls: []agentlog.ToolCall{{Name: "Bash", HasResult: true, IsError: true,
			Result: "The user doesn't want to proceed with this tool use. " + propRejectMarker + "\ndon't run CI or integration tests, too slow."}}},
	}
	turnClassLiteral := func(c ProposedItem) string { return fmt.Sprintf("%d %s %s", c.Turn, c.Class, c.Literal) }
	for _, tt := range []struct {
		name string
		s    *agentlog.Session
		min  float64 // ProposeOptions.MinConfidence
		show func(ProposedItem) string
		want []string
	}{
		{"message kinds", kinds, DefaultMinConfidence, turnClassLiteral, []string{
			"1 commitment I'll post the numbers in PLAN.md",
			"2 constraint always run specs locally before push",
			"2 constraint don't run CI or integration tests, too slow",
		}},
		// A question the assistant answers in its own turn is the work in
		// hand (0.3, below the default cut); one left at the end of its
		// turn, or deferred, stays open.
		{"answered in turn", propSession([]propMsg{
			{1, "user", "Should we cache per tenant or globally?"},
			{1, "assistant", "Looking at the key layout."},
			{2, "user", "Question for later: should we drop Node 18?"},
			{2, "assistant", "Noted."},
			{3, "user", "Should the retry budget be shared or per worker?"},
		}, 3), 0, func(c ProposedItem) string { return fmt.Sprintf("%d %.2f %s", c.Turn, c.Confidence, c.Rule) }, []string{
			"1 0.30 open_question/decision+answered-in-turn",
			"2 0.90 open_question/deferred",
			"3 0.80 open_question/decision",
		}},
		// A message sent again word for word (after an interruption)
		// says nothing new: nothing at its turn, not even the steer
		// rule's opening remark.
		{"sent again", propSession([]propMsg{
			{2, "user", "great, new change. I want the /0 folder created first instead"},
			{2, "assistant", "Stopped."},
			{3, "user", "great, new change.\nI want the /0 folder created first instead"},
		}, 3), 0, turnClassLiteral, []string{
			"2 constraint I want the /0 folder created first instead",
		}},
		// An instruction said again after another took it back is
		// read again: it restores what was taken back.
		{"restored", propSession([]propMsg{
			{1, "user", "Use Postgres for the cache store."},
			{2, "user", "Actually, use SQLite for the cache store instead."},
			{3, "user", "Use Postgres for the cache store."},
		}, 3), DefaultMinConfidence, turnClassLiteral, []string{
			"2 constraint Actually, use SQLite for the cache store instead",
			"3 constraint Use Postgres for the cache store",
		}},
		// The same sentence in a later message is no take-back of
		// itself: its "instead" drops nothing.
		{"said again", propSession([]propMsg{
			{2, "user", "I want the cache keyed per tenant instead."},
			{2, "assistant", "Stopped."},
			{3, "user", "Sorry, that got cut off. I want the cache keyed per tenant instead."},
		}, 3), DefaultMinConfidence, turnClassLiteral, []string{
			"2 constraint I want the cache keyed per tenant instead",
		}},
		// An accepted plan ("Implement the following plan:", the agent's
		// text sent as the person's) gives its references and no
		// constraint or question.
		{"accepted plan", propSession([]propMsg{{1, "user", "Implement the following plan:\n\n# Plan\n\n- No changes to `setup.go` callers.\n- Keep shared helpers in place.\n- Should we also cover Gemini?\n- Edit `cmd/entire/cli/resume.go`."}}, 1),
			DefaultMinConfidence, turnClassLiteral, []string{
				"1 reference setup.go",
				"1 reference cmd/entire/cli/resume.go",
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Propose(tt.s, ProposeOptions{MinConfidence: tt.min}).Candidates {
				got = append(got, tt.show(c))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// FuzzPropose: any text, typed or said by the assistant, gives
// candidates that make a valid fixture once accepted, have confidences
// in [0, 1], a rule, a turn of the session and a literal, and survive
// fixture.Parse.
func FuzzPropose(f *testing.F) {
	f.Add("Ground rule: never touch x. Should we use y or z?", "I'll fix it before x.go:12; see PR #12 and commit abcdef1.")
	f.Add("- keep `a/b` as is\n```\nFAIL\n```\nactually, forget that", "Got it - I won't amend commits going forward.")
	f.Add("\u0000\n§ 1.2 … e.g. Also, no", "I'll keep it simple: https://x.y/z 2734843645")
	f.Fuzz(func(t *testing.T, user, assistant string) {
		s := propSession([]propMsg{{1, "user", user}, {1, "assistant", assistant}, {2, "user", assistant + " " + user}}, 2)
		p := Propose(s, ProposeOptions{})
		fx := fixture.Fixture{ConversationID: "s1", Turns: p.Turns, CompactionsExpected: p.CompactionsExpected, MustSurvive: []fixture.Item{}}
		for _, c := range p.Candidates {
			if !(c.Confidence >= 0 && c.Confidence <= 1) || c.Rule == "" || c.Status != ReviewPending || c.Turn < 1 || c.Turn > 2 || c.Literal == "" {
				t.Fatalf("bad candidate %+v", c)
			}
			fx.MustSurvive = append(fx.MustSurvive, c.Item())
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("not a valid candidates file: %v\n%+v", err, p.Candidates)
		}
		js, err := json.Marshal(fx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fixture.Parse("fx.json", js); err != nil {
			t.Fatalf("fixture.Parse rejects it: %v", err)
		}
	})
}

// TestProposeDecisionWithCall pins that in a step calling a tool a
// decision said with "I'll" after its reason ("so I'll keep them") is a
// commitment, and "I'll read the file" narration.
func TestProposeDecisionWithCall(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Both functions are also used in `runSessionRaw`, so I'll keep them.", "commitment/keep"},
		{"I'll read the file first.", ""},
	} {
		s := propSession([]propMsg{{1, "user", "Remove the dead trailer helpers."}, {1, "assistant", c.text}}, 1)
		s.Steps[0].Calls = []agentlog.ToolCall{{Name: "Read", Input: []byte(`{"file_path":"cmd/session.go"}`), HasResult: true}}
		got := ""
		for _, it := range Propose(s, ProposeOptions{}).Candidates {
			if it.Class == fixture.Commitment {
				got = it.Rule
			}
		}
		if got != c.want {
			t.Errorf("%q: rule %q, want %q", c.text, got, c.want)
		}
	}
}

// TestProposeURLsGlued pins that two links a person pasted with nothing
// between them are two references, not one URL holding the other.
func TestProposeURLsGlued(t *testing.T) {
	p := Propose(propSession([]propMsg{{1, "user", "the failing run: https://github.com/acme/cli/actions/runs/216https://github.com/acme/cli/pull/7"}}, 1), ProposeOptions{})
	var got []string
	for _, c := range p.Candidates {
		got = append(got, c.Literal)
	}
	want := []string{"https://github.com/acme/cli/actions/runs/216", "https://github.com/acme/cli/pull/7"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestProposeRefProbeContext pins that a reference whose sentence says
// little ("Committed as `abc1234`.") is asked about with the sentence
// before it, so two commits of one session get two probes (a probe
// review found three commits sharing one).
func TestProposeRefProbeContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []propMsg
		want []string
	}{
		{"the sentence before", []propMsg{{1, "user", "Fix the race in the stop hook and commit."},
			{1, "assistant", "Fixed the race in the stop hook by taking the lock first. Committed as `3f9a2c1`."}},
			[]string{"Which commit does “Fixed the race in the stop hook by taking the lock first. Committed as `…`” refer to?"}},
		// A heading of the agent's summary of changes says nothing of
		// its file: the line under it does (a new user's trial found
		// "Which file was mentioned?" 16 times in 352 drafted probes).
		{"the line under a heading", []propMsg{{1, "user", "Fix the rewind bug."},
			{1, "assistant", "## Summary of Changes\n\n### 3. `strategy/manual_commit_types.go`\n- Added the ArchivedSession struct to hold the transcripts of every archived session on rewind"}},
			[]string{"Which file does “### 3. `…` - Added the ArchivedSession struct to hold the transcripts of every archived …” refer to?"}},
	} {
		var got []string
		for _, c := range Propose(propSession(tc.msgs, 1), ProposeOptions{}).Candidates {
			if c.Class == fixture.Reference {
				got = append(got, c.Probe)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestProposeRefSameLiteral pins a reference whose literal was proposed
// before under another identity (a branch, then the same words as a
// path): it is not proposed again, and a later, surer mention of it
// changes no other item. Before, the path's identity was remembered at
// the index the next item took, and a later mention raised a person's
// constraint to the path's confidence and rule (set 2, 2cfdacb8).
func TestProposeRefSameLiteral(t *testing.T) {
	p := &propProposer{seenRefs: map[string]int{}, seenLits: map[string]bool{}}
	e := propUtterance{turn: 1, role: "user"}
	p.addRefs(e, []propGuess{{class: fixture.Reference, literal: "entire/checkpoints/v1", confidence: 0.7, rule: "reference/branch"}})
	p.addRefs(e, []propGuess{{class: fixture.Reference, literal: "entire/checkpoints/v1", confidence: 0.3, rule: "reference/path"}})
	p.add(e, propGuess{class: fixture.Constraint, literal: "Can you help me build that action", confidence: 0.4, rule: "constraint/steer"})
	p.addRefs(e, []propGuess{{class: fixture.Reference, literal: "entire/checkpoints/v1", confidence: 0.6, rule: "reference/path"}})
	var got []string
	for _, it := range p.items {
		got = append(got, fmt.Sprintf("%s %.2f %s", it.Class, it.Confidence, it.Rule))
	}
	want := []string{"reference 0.70 reference/branch", "constraint 0.40 constraint/steer"}
	if !slices.Equal(got, want) {
		t.Errorf("items %q, want %q", got, want)
	}
}

// TestProposePathPatternScripts: a path is found whole whatever script
// its names are in, and Windows paths with their drive or ".\" (the
// shapes of a new user's trial: German, Chinese, Windows).
func TestProposePathPatternScripts(t *testing.T) {
	var re *regexp.Regexp
	for _, p := range propRefPatterns {
		if p.rule == "reference/path" {
			re = p.re
		}
	}
	tests := []struct{ text, want string }{
		{`Please update C:\Users\Jörg\repo\tests\größe_test.go as discussed.`, `C:\Users\Jörg\repo\tests\größe_test.go`},
		{"Please update /home/jörg/repo/größe_test.go as discussed.", "/home/jörg/repo/größe_test.go"},
		{"Please update docs/Übersicht.md as discussed.", "docs/Übersicht.md"},
		{`请更新 D:\代码仓库\支付\接口定义.proto 文件`, `D:\代码仓库\支付\接口定义.proto`},
		{`run .\scripts\build.ps1 first`, `.\scripts\build.ps1`},
		{`edit src\pay\api.go now`, `src\pay\api.go`},
		{"see größe_test.go", "größe_test.go"},
		{`printf("a\nb")`, ""}, // an escape, not a path
		{"src/pay/api.go", "src/pay/api.go"},
		{"see C:/Users/Jörg/repo/main.go now", "C:/Users/Jörg/repo/main.go"}, // a re-check trial lost the drive
		{"see c:/work/app/server.ts", "c:/work/app/server.ts"},
	}
	for _, tt := range tests {
		if got := re.FindString(tt.text); got != tt.want {
			t.Errorf("%q: found %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestProposeFileLineWindows: a file:line keeps a Windows path whole, its
// drive and its backslashes (a re-check trial found it cut to main.go:42).
func TestProposeFileLineWindows(t *testing.T) {
	var re *regexp.Regexp
	for _, p := range propRefPatterns {
		if p.rule == "reference/file-line" {
			re = p.re
		}
	}
	tests := []struct{ text, want string }{
		{`fails at C:\Users\Jörg\repo\main.go:42 again`, `C:\Users\Jörg\repo\main.go:42`},
		{`see D:\代码仓库\接口定义.proto:9`, `D:\代码仓库\接口定义.proto:9`},
		{"see C:/repo/main.go:42", "C:/repo/main.go:42"},
		{"see src/pay/api.go:17", "src/pay/api.go:17"},
	}
	for _, tt := range tests {
		if got := re.FindString(tt.text); got != tt.want {
			t.Errorf("%q: found %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestProposeQuotedPaths: a path with a space in it is found whole
// between quotes or backticks, and a share's path (UNC) keeps its
// "\\server" (a re-check trial lost the head of both); a quoted phrase
// that is no path is no reference, nor is a quote closed by an
// apostrophe inside a word.
func TestProposeQuotedPaths(t *testing.T) {
	tests := []struct{ text, want string }{
		{`Update "C:\Users\Jörg Weiß\repo\config.ini" as discussed.`, `C:\Users\Jörg Weiß\repo\config.ini`},
		{"Open `/Users/me/My Project/src/app.ts` and fix it.", "/Users/me/My Project/src/app.ts"},
		{`Edit “C:\Program Files\App\settings.json” now.`, `C:\Program Files\App\settings.json`},
		{`Keep "~/Library/Application Support/Code/settings.json" as it is.`, "~/Library/Application Support/Code/settings.json"},
		{`Read "C:\repo\main.go" first.`, `C:\repo\main.go`},
		{`Run 'D:\Program Files\Tool\tool.exe' once.`, `D:\Program Files\Tool\tool.exe`}, // a re-check trial
		{`Don't touch '/tmp' or it's gone.`, ""},
		// An open quote that only an apostrophe closes (a re-check
		// trial found "/tmp or /var/cache, it" proposed).
		{`Never write to '/tmp or /var/cache, it's shared.`, "/var/cache"},
		{`See \\fileserver\specs\api.md for the contract.`, `\\fileserver\specs\api.md`},
		{`It fails at \\build01\logs\run.log:17 every time.`, `\\build01\logs\run.log:17`},
		{`He said "see you / later" and left.`, ""},
		{`Type "/ x" to search.`, ""},
	}
	for _, tt := range tests {
		var got []string
		for _, g := range propReferences(tt.text, "user") {
			if g.class == fixture.Reference {
				got = append(got, g.literal)
			}
		}
		want := []string{tt.want}
		if tt.want == "" {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: references %q, want %q", tt.text, got, want)
		}
	}
}
