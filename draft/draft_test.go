package draft

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
