package draft

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/selection"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// echo is a proposer for tests of the turn logic: every typed message and
// every step text of the session it is given is one candidate (a
// constraint when the user said it, a commitment when the model did),
// with the turn and message the Proposer contract asks for. Which
// utterances the real classifier picks is selection's business; where a
// candidate lands, and where it is live, is this package's.
func echo(s *agentlog.Session) (selection.Proposal, error) {
	var p selection.Proposal
	add := func(turn int, role, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		class := fixture.Constraint
		if role == "assistant" {
			class = fixture.Commitment
		}
		p.Candidates = append(p.Candidates, selection.ProposedItem{ID: "x", Class: class, Turn: turn, Role: role,
			Literal: text, Probe: "Does this still hold: " + text + "?", Expect: "yes", Confidence: 1, Rule: "echo", Message: text})
	}
	mi := 0
	for i, st := range s.Steps {
		for ; mi < len(s.Messages) && s.Messages[mi].Step <= i; mi++ {
			if m := s.Messages[mi]; m.Typed() {
				add(typedTurn(m.Turn), "user", m.Text)
			}
		}
		{
			add(typedTurn(st.Turn), "assistant", st.Text)
		}
	}
	for ; mi < len(s.Messages); mi++ {
		if m := s.Messages[mi]; m.Typed() {
			add(typedTurn(m.Turn), "user", m.Text)
		}
	}
	return p, nil
}

func open(t *testing.T, name string) *agentlog.Session {
	t.Helper()
	s, err := agentlog.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBuildTurns pins, against turns worked out by hand from the files,
// where each utterance lands and which contexts it is live in.
func TestBuildTurns(t *testing.T) {
	tests := []struct {
		file   string
		reason string
		// starts of the literals, with their fixture turns, in order.
		items    []string
		turns    int
		contexts []int      // each context's turn
		live     []int      // candidates live at each context
		messages [][]string // each context's messages, how they start
	}{
		{
			file: "two.jsonl",
			reason: "an automatic compaction inside typed turn 2 (the rest of turn 2 is fixture turn 3), " +
				"a manual /compact between typed turns 4 and 5 (its context serves turn 5's prompt, fixture turn 6)",
			items: []string{"1 Ground rule: never push", "1 Understood. I will ask", "1 The tree is clean.",
				"2 Fix the retry loop", "3 Continuing with the retry loop", "3 Done: the loop", "4 Thanks. Use the staging",
				"4 Running the integration", "5 <command-name>/compact"},
			turns:    6,
			contexts: []int{3, 6},
			live:     []int{4, 9},
			messages: [][]string{{"This session is being continued"}, {"This session is being continued", "<local-command-stdout>"}},
		},
		{
			file:     "last.jsonl.gz",
			reason:   "gzipped; an automatic compaction in the last typed turn, which the session ends in",
			items:    []string{"1 Migrate the orders table", "1 I'll write the migration first"},
			turns:    2,
			contexts: []int{2},
			live:     []int{2},
			messages: [][]string{{"This session is being continued", "<system-reminder>"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d, err := Build(open(t, tt.file), echo)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range d.Candidates.Candidates {
				got = append(got, fmt.Sprintf("%d %s", c.Turn, c.Literal))
			}
			if len(got) != len(tt.items) {
				t.Fatalf("%s\n%d candidates:\n%s\nwant %d", tt.reason, len(got), strings.Join(got, "\n"), len(tt.items))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.items[i]) {
					t.Errorf("candidate %d is %q, want %q… (%s)", i+1, got[i], tt.items[i], tt.reason)
				}
			}
			if d.Candidates.Turns != tt.turns || d.Candidates.CompactionsExpected != len(tt.contexts) {
				t.Errorf("turns %d, compactions %d; want %d, %d", d.Candidates.Turns, d.Candidates.CompactionsExpected, tt.turns, len(tt.contexts))
			}
			for k, c := range d.Contexts {
				live := 0
				for _, it := range d.Candidates.Candidates {
					if it.Item().LiveAt(c) {
						live++
					}
				}
				var starts []string
				for _, m := range c.Messages {
					starts = append(starts, m.Parts[0].Text)
				}
				want := tt.messages[k]
				ok := len(starts) == len(want)
				for i := 0; ok && i < len(want); i++ {
					ok = strings.HasPrefix(starts[i], want[i])
				}
				if c.Turn != tt.contexts[k] || live != tt.live[k] || d.Compactions[k].Live != live || !ok {
					t.Errorf("context %d: turn %d, %d live (model says %d), messages %q; want turn %d, %d live, messages %q",
						k+1, c.Turn, live, d.Compactions[k].Live, starts, tt.contexts[k], tt.live[k], want)
				}
			}
			if len(d.Notes) != 0 {
				t.Errorf("notes: %q", d.Notes)
			}
		})
	}
}

func TestBuildNoCompaction(t *testing.T) {
	_, err := Build(open(t, "none.jsonl"), echo)
	if !errors.Is(err, ErrNoCompaction) {
		t.Fatalf("got %v, want ErrNoCompaction", err)
	}
	if want := `testdata/none.jsonl: session "4b2a7c10-1111-4c2d-9e3f-a0b1c2d3e4f5": no compaction with a summary: no fixture to draft`; err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
}

// TestContextsGolden: the incumbent's contexts as written, one golden
// file per session (go test ./draft -update rewrites them). Each must
// read back with fixture.ParseContext as the context built.
func TestContextsGolden(t *testing.T) {
	for _, name := range []string{"two.jsonl", "last.jsonl.gz"} {
		d, err := Build(open(t, name), echo)
		if err != nil {
			t.Fatal(err)
		}
		var all bytes.Buffer
		for _, c := range d.Contexts {
			var b bytes.Buffer
			if err := WriteContext(&b, c); err != nil {
				t.Fatal(err)
			}
			back, err := fixture.ParseContext(name, b.Bytes())
			if err != nil {
				t.Fatalf("%s context %d does not parse: %v\n%s", name, c.Compaction, err, b.String())
			}
			if fmt.Sprint(back) != fmt.Sprint(c) {
				t.Errorf("%s context %d reads back as\n%+v\nnot\n%+v", name, c.Compaction, back, c)
			}
			fmt.Fprintf(&all, "== %s/%d.json\n", c.ConversationID, c.Compaction)
			all.Write(b.Bytes())
		}
		golden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")+".contexts.txt"), all.Bytes())
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./draft -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./draft -update rewrites it):\n%s", path, got)
	}
}

// TestBuildOtherFormats: a generic session (one line, so messages are
// ordered by their steps and turns) and a Codex rollout, each with an
// automatic compaction inside a typed turn.
func TestBuildOtherFormats(t *testing.T) {
	generic := `{"session_id":"g/7","messages":[` +
		`{"role":"user","content":"Keep the public API stable."},` +
		`{"role":"assistant","content":"I'll change only internal packages."},` +
		`{"role":"user","content":"<env>cwd=/src</env>","injected":"meta"},` +
		`{"role":"assistant","content":"Continuing from the summary."},` +
		`{"role":"user","content":"Now write the changelog."},` +
		`{"role":"assistant","content":"Done."}],` +
		`"compactions":[{"after_message":3,"summary":"Keep the public API stable; only internal packages change.","trigger":"auto"}]}`
	ss, err := agentlog.ReadAll(strings.NewReader(generic+"\n"), "g.jsonl", agentlog.Generic)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(ss[0], echo)
	if err != nil {
		t.Fatal(err)
	}
	// Turn 1 holds the prompt and the first step; the compaction after
	// the injected note splits typed turn 1 (the rest is turn 2); "Now
	// write the changelog." is turn 3.
	var got []string
	for _, c := range d.Candidates.Candidates {
		got = append(got, fmt.Sprintf("%d %s", c.Turn, c.Literal))
	}
	if want := "1 Keep the public API stable.|1 I'll change only internal packages."; strings.Join(got, "|") != want {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if c := d.Contexts[0]; d.Candidates.ConversationID != "g_7" || c.Turn != 2 || d.Candidates.Turns != 3 || len(c.Messages) != 1 ||
		c.Messages[0].Parts[0].Text != "Keep the public API stable; only internal packages change." {
		t.Errorf("id %q, %d turns, context %+v", d.Candidates.ConversationID, d.Candidates.Turns, c)
	}

	s, err := agentlog.Open("../agentlog/testdata/codex-rollout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d, err = Build(s, echo)
	if err != nil {
		t.Fatal(err)
	}
	checkDraft(t, s, d)
	// The first compaction's context is what Codex built: the person's
	// message it kept, then the summary (compact.rs,
	// build_compacted_history); the second keeps its summary encrypted
	// and is left out, said in a note.
	if len(d.Contexts) != 1 {
		t.Fatalf("%d contexts, want 1", len(d.Contexts))
	}
	if m := d.Contexts[0].Messages; len(m) < 4 || !strings.HasPrefix(m[0].Parts[0].Text, "# AGENTS.md") || m[2].Parts[0].Text != "add a --verbose flag" || m[3].Parts[0].Text != s.Compactions[0].Summary {
		t.Errorf("codex context starts %+v, want the start-up context and the kept message, then the summary", m[:min(4, len(m))])
	}
	if !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, "line 27 keeps its summary encrypted") }) {
		t.Errorf("notes %q say nothing of the encrypted summary", d.Notes)
	}
}

// TestBuildNotes: a candidate a later prefix no longer proposes, and one
// whose text cannot be found in a split turn, are said in Notes; a
// compaction without a summary is left out, and said.
func TestBuildNotes(t *testing.T) {
	s := open(t, "two.jsonl")
	// The first prefix proposes "SYNC-482"; the second, as if the ticket
	// had been closed in between, does not.
	retiring := func(p *agentlog.Session) (selection.Proposal, error) {
		out, _ := echo(p)
		if len(p.Compactions) == 0 {
			out.Candidates = append(out.Candidates, selection.ProposedItem{Class: fixture.Reference, Turn: 1, Role: "user",
				Literal: "ticket SYNC-482", Probe: "Which ticket?", Expect: "SYNC-482", Message: "tracked in ticket SYNC-482"})
		}
		// From the second prefix, a candidate at typed turn 2 (split by
		// compaction 1 into fixture turns 2 and 3) whose text is in
		// neither part.
		if len(p.Compactions) == 1 {
			out.Candidates = append(out.Candidates, selection.ProposedItem{Class: fixture.Constraint, Turn: 2, Role: "user",
				Literal: "not in the log", Probe: "Is it?", Expect: "yes"})
		}
		return out, nil
	}
	d, err := Build(s, retiring)
	if err != nil {
		t.Fatal(err)
	}
	var ticket, lost selection.ProposedItem
	for _, c := range d.Candidates.Candidates {
		switch c.Literal {
		case "ticket SYNC-482":
			ticket = c
		case "not in the log":
			lost = c
		}
	}
	if ticket.Turn != 1 || lost.Turn != 3 {
		t.Fatalf("ticket at turn %d, want 1; the unfound candidate at %d, want 3 (the later part of typed turn 2)", ticket.Turn, lost.Turn)
	}
	want := []string{
		`a constraint candidate at typed turn 2 ("not in the log") was not found in its turn's text: put at fixture turn 3, the latest it can be`,
		ticket.ID + ` (reference, turn 1) is proposed from the turns before compaction 1 but not from those before compaction 2 (answered or superseded in between?); the fixture checks it at every later compaction: reject or edit it in review`,
	}
	if strings.Join(d.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant\n%s", strings.Join(d.Notes, "\n"), strings.Join(want, "\n"))
	}

	// A compaction without its summary record (the log cut after the
	// boundary) is left out: the first compaction of two.jsonl without
	// line 12, its summary.
	data, err := os.ReadFile("testdata/two.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	cut := strings.Join(append(lines[:11:11], lines[12:]...), "\n")
	ss, err := agentlog.ReadAll(strings.NewReader(cut), "cut.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	d, err = Build(ss[0], echo)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Contexts) != 1 || d.Compactions[0].Context != 0 || d.Compactions[1].Context != 1 || d.Contexts[0].Turn != 5 ||
		len(d.Notes) != 1 || d.Notes[0] != "the compaction at line 11 has no summary in the log (cut off after it, or a format that records none): left out of the fixture" {
		t.Errorf("contexts %+v, notes %q", d.Contexts, d.Notes)
	}
	checkDraft(t, ss[0], d)

	// A summary record without its boundary (agentlog makes it a
	// compaction known by the summary's line) gives the same fixture.
	whole, err := Build(s, echo)
	if err != nil {
		t.Fatal(err)
	}
	noBoundary := strings.Join(append(lines[:10:10], lines[11:]...), "\n")
	ss, err = agentlog.ReadAll(strings.NewReader(noBoundary), "noboundary.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	d, err = Build(ss[0], echo)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d.Candidates) != fmt.Sprint(whole.Candidates) || fmt.Sprint(d.Contexts) != fmt.Sprint(whole.Contexts) {
		t.Errorf("without the boundary record:\n%+v\n%+v\nwant\n%+v\n%+v", d.Candidates, d.Contexts, whole.Candidates, whole.Contexts)
	}
}

func TestConversationID(t *testing.T) {
	tests := []struct{ id, name, want, reason string }{
		{"9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3", "x.jsonl", "9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3", "a Claude Code session id names a folder"},
		{"rollout:2026/01", "x.jsonl", "rollout_2026_01", "\":\" and \"/\" cannot name a folder"},
		{"", "/logs/abc-1.jsonl.gz", "abc-1", "no id: the file name without its endings"},
		{"..", "/logs/..jsonl", "session", "nothing usable"},
		{"  ", "a\tb.json", "a_b", "a blank id; a control character in the name"},
		// Windows's rules (Microsoft, "Naming Files, Paths, and
		// Namespaces"): a new user's trial drafted "win_bad|id*?<>\"x",
		// "CON" and "trailing. " folders.
		{`win|bad*?<>"x`, "x.jsonl", "win_bad_____x", "characters Windows refuses in a name"},
		{"CON", "x.jsonl", "CON_", "a device name"},
		{"nul.txt", "x.jsonl", "nul_.txt", "a device name before an extension, in any case"},
		{"COM1", "x.jsonl", "COM1_", "a numbered device"},
		{"COM10", "x.jsonl", "COM10", "not a device"},
		{"console", "x.jsonl", "console", "not a device"},
		{"trailing. ", "x.jsonl", "trailing._", "a trailing space"},
		{"trailing.", "x.jsonl", "trailing_", "a trailing dot"},
		{"com¹", "x.jsonl", "com¹_", "a superscript-numbered device (a re-check trial)"},
		{strings.Repeat("x", 300), "x.jsonl", strings.Repeat("x", 183) + "-" + sha256Prefix(strings.Repeat("x", 300)), "too long for a file name: cut, with a hash"},
	}
	for _, tt := range tests {
		if got := ConversationID(&agentlog.Session{ID: tt.id, Name: tt.name}); got != tt.want {
			t.Errorf("ConversationID(%q, %q) = %q, want %q (%s)", tt.id, tt.name, got, tt.want, tt.reason)
		}
	}
}

// TestBuildMicrocompactionOnly: a session whose only compaction is a
// microcompaction (old tool results cleared, no summary) says so, not
// only that it has no compaction (a new user's trial took one for a
// compaction).
func TestBuildMicrocompactionOnly(t *testing.T) {
	s := open(t, "none.jsonl")
	s.Microcompactions = []agentlog.Microcompaction{{Line: 7}, {Line: 9}}
	_, err := Build(s, echo)
	if !errors.Is(err, ErrNoCompaction) || !strings.HasSuffix(err.Error(), "; the log has 2 microcompactions (the first at line 7): it clears old tool results in place and writes no summary, so it gives no fixture") {
		t.Errorf("error %v", err)
	}
}

// TestBuildPartialCompaction: a partial Claude Code compaction's context
// is its summary, then the messages it kept word for word
// (compactMetadata.preservedSegment), so an item stated in them is found
// verbatim, as the agent saw it.
func TestBuildPartialCompaction(t *testing.T) {
	log := `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"Never push to main."}}
{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Understood."}]}}
{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":"Use tabs in the Makefile."}}
{"type":"assistant","sessionId":"s","uuid":"a3","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Tabs it is."}]}}
{"type":"system","subtype":"compact_boundary","sessionId":"s","uuid":"b1","compactMetadata":{"trigger":"auto","preTokens":9000,"preservedSegment":{"headUuid":"u2","anchorUuid":"s1","tailUuid":"a3"}}}
{"type":"user","sessionId":"s","uuid":"s1","isCompactSummary":true,"message":{"role":"user","content":"Summary: no pushes to main."}}
{"type":"user","sessionId":"s","uuid":"u4","message":{"role":"user","content":"Go on."}}`
	ss, err := agentlog.ReadAll(strings.NewReader(log), "p.jsonl", agentlog.ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(ss[0], echo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range d.Contexts[0].Messages {
		got = append(got, m.Parts[0].Text)
	}
	if want := []string{"Summary: no pushes to main.", "Use tabs in the Makefile.", "Tabs it is."}; !slices.Equal(got, want) {
		t.Errorf("context %q, want %q", got, want)
	}
}

// sha256Prefix is the hex of the first 8 bytes of s's SHA-256 (FIPS 180-4).
func sha256Prefix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
