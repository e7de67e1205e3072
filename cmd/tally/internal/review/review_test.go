package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tally-eval/tally/selection"
)

// run reviews the sample with keys as input, typed (one key per read:
// see typing), returning the proposal, the states saved (statuses and
// position, one string per save) and what was drawn.
func run(t *testing.T, p *selection.Proposal, keys string) (Outcome, []string, string) {
	t.Helper()
	var saves []string
	r := &Review{Proposal: p, Output: "fx.json", Width: 120, Save: func(p *selection.Proposal) error {
		if err := p.Validate(); err != nil {
			t.Fatalf("saved an invalid proposal: %v", err)
		}
		saves = append(saves, state(p))
		return nil
	}}
	var out bytes.Buffer
	o, err := r.Run(typing(keys), &out)
	if err != nil {
		t.Fatal(err)
	}
	return o, saves, out.String()
}

// state is "STATUSES@POSITION" with one letter a status: p, a or r.
func state(p *selection.Proposal) string {
	var b strings.Builder
	for _, c := range p.Candidates {
		b.WriteByte(string(c.Status)[0])
	}
	return fmt.Sprintf("%s@%d", b.String(), p.Position)
}

func sampleProposal(t *testing.T) *selection.Proposal {
	t.Helper()
	p, err := selection.ParseCandidates("c.json", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

// TestRunKeys drives the state machine with key sequences: every change
// is saved before the next key, and the end state is what the keys say.
func TestRunKeys(t *testing.T) {
	tests := []struct {
		name     string
		keys     string
		saves    string // the states saved, in order
		complete bool
		reason   string
	}{
		{"accept all", "aaa", "app@1 aap@2 aaa@3", true, "each decision moves on and is saved"},
		{"reject then back and accept", "rb" + "a", "rpp@1 rpp@0 app@1", false, "b goes back to change a decision"},
		{"left arrow is back", "a\x1b[D", "app@1 app@0", false, "← is b"},
		{"quit", "aq" + "aaa", "app@1", false, "q stops reading keys"},
		{"ctrl-c quits", "a\x03a", "app@1", false, "Ctrl-C quits in raw mode"},
		{"end of input quits", "r", "rpp@1", false, "EOF is quit"},
		{"back at the start", "bb", "", false, "nothing to save"},
		{"decide at the end", "aaaaarb", "app@1 aap@2 aaa@3 aaa@2", true, "a and r on the closing page do nothing"},
		{"noise", "x\r\x1b[C\x1b[1;5A\x7f", "", false, "unknown and control keys change nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, saves, _ := run(t, sampleProposal(t), tt.keys)
			if strings.Join(saves, " ") != tt.saves {
				t.Errorf("%s: saves %v, want %s", tt.reason, saves, tt.saves)
			}
			if o.Complete != tt.complete {
				t.Errorf("%s: complete %v", tt.reason, o.Complete)
			}
		})
	}
}

// TestRunEdit: p and e edit the probe and the expected answer in place,
// with Backspace, Ctrl-W and Ctrl-U, and Escape or an empty line leaves
// them as they were.
func TestRunEdit(t *testing.T) {
	tests := []struct {
		name, keys    string
		probe, expect string
		saves         int
		msg           string
	}{
		{"replace probe", "p\x15Is /migrations off-limits?\r", "Is /migrations off-limits?", "yes", 1, "probe updated"},
		{"append to expect", "e, always\r", sampleProbe, "yes, always", 1, "expect updated"},
		{"backspace", "e\x7f\x7f\x7fno\r", sampleProbe, "no", 1, "expect updated"},
		{"ctrl-w", "p\x17files there?\r", "Is the agent forbidden to modify anything under files there?", "yes", 1, "probe updated"},
		{"escape cancels", "p\x15gone\x1b", sampleProbe, "yes", 0, "probe: edit cancelled"},
		{"ctrl-c cancels", "e\x15gone\x03", sampleProbe, "yes", 0, "expect: edit cancelled"},
		{"empty is refused", "e\x15  \r", sampleProbe, "yes", 0, "expect left as it was: it cannot be empty"},
		{"unchanged", "e\r", sampleProbe, "yes", 0, "expect unchanged"},
		{"trimmed", "e\x15 no \n", sampleProbe, "no", 1, "expect updated"},
		{"utf-8", "e\x15non — still open\r", sampleProbe, "non — still open", 1, "expect updated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sampleProposal(t)
			_, saves, out := run(t, p, tt.keys)
			c := p.Candidates[0]
			if c.Probe != tt.probe || c.Expect != tt.expect {
				t.Errorf("probe %q expect %q, want %q %q", c.Probe, c.Expect, tt.probe, tt.expect)
			}
			if len(saves) != tt.saves || c.Status != selection.ReviewPending || p.Position != 0 {
				t.Errorf("saves %v, status %s, position %d", saves, c.Status, p.Position)
			}
			if !strings.Contains(out, "» "+tt.msg) {
				t.Errorf("no message %q in\n%s", tt.msg, out)
			}
		})
	}
}

const sampleProbe = "Is the agent forbidden to modify anything under /migrations?"

// TestRunScreen checks what a page shows: progress, the candidate, the
// keys, the resume message, the closing page.
func TestRunScreen(t *testing.T) {
	p := sampleProposal(t)
	p.Candidates[0].Status = selection.ReviewAccepted
	p.Position = 1
	_, _, out := run(t, p, "")
	for _, want := range []string{
		"tally review · sess_a4f1 → fx.json\r\n",
		"[######--------------] 1 of 3 decided · 1 accepted · 0 rejected · 2 pending\r\n",
		"item 2 of 3 · c2 · commitment · turn 19 · said by assistant · confidence 0.90\r\n",
		"rule commitment/i-will+condition · status pending\r\n",
		"literal:  I'll open the PR against develop, not main\r\n",
		"expect:   open the PR against develop, not main\r\n",
		Keys + "\r\n",
		"» resumed at candidate 2 of 3\r\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q:\n%s", want, out)
		}
	}
	_, _, out = run(t, p, "ar")
	for _, want := range []string{"Review complete.\r\n", "fx.json holds the 2 accepted items; it is saved after every decision.\r\n", "b back · q quit\r\n", "3 of 3 decided"} {
		if !strings.Contains(out, want) {
			t.Errorf("closing page lacks %q:\n%s", want, out)
		}
	}
}

// TestRunNarrow: on a narrow terminal no line of a page is wider than it.
func TestRunNarrow(t *testing.T) {
	p := sampleProposal(t)
	var out bytes.Buffer
	r := &Review{Proposal: p, Output: "some/long/path/to/the/fixture.json", Width: 40, Save: func(*selection.Proposal) error { return nil }}
	if _, err := r.Run(typing("aaxaaa"), &out); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out.String(), "\r\n") {
		if n := len([]rune(l)); n > 40 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// TestRunUntrustedText: text from a transcript cannot drive the terminal.
func TestRunUntrustedText(t *testing.T) {
	p := sampleProposal(t)
	p.Candidates[0].Message = "evil\x1b]0;pwned\x07 \x1b[2J\u202Eexe.txt\r\nnext line"
	p.Candidates[0].Literal = "tab\there"
	_, _, out := run(t, p, "")
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") || strings.Contains(out, "\u202E") || strings.Contains(out, "\x1b[2J") {
		t.Errorf("control sequence passed through: %q", out)
	}
	if !strings.Contains(out, "evil\uFFFD]0;pwned\uFFFD \uFFFD[2J\uFFFDexe.txt ⏎ next line") || !strings.Contains(out, "tab here") {
		t.Errorf("not shown safely: %q", out)
	}
}

func TestPrintableAndWrap(t *testing.T) {
	if got := Printable("a\x00b\x7fc\xffd\ue000"); got != "a\uFFFDb\uFFFDc\uFFFDd\ue000" {
		t.Errorf("Printable = %q", got)
	}
	got := wrap("aaaa bbbb cccc dddddddddddddddddddddd e", 10)
	if strings.Join(got, "|") != "aaaa bbbb|cccc|dddddddddd|dddddddddd|dd e" {
		t.Errorf("wrap = %q", got)
	}
	if got := wrap("", 10); len(got) != 1 || got[0] != "" {
		t.Errorf("wrap empty = %q", got)
	}
}

// TestRunSaveError: a failed save ends the review with the error.
func TestRunSaveError(t *testing.T) {
	p := sampleProposal(t)
	boom := errors.New("disk full")
	r := &Review{Proposal: p, Save: func(*selection.Proposal) error { return boom }}
	if _, err := r.Run(typing("aaa"), &bytes.Buffer{}); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

// TestRunInvalid: an invalid proposal is refused before anything is drawn.
func TestRunInvalid(t *testing.T) {
	p := sampleProposal(t)
	p.Position = 9
	var out bytes.Buffer
	r := &Review{Proposal: p, Save: func(*selection.Proposal) error { return nil }}
	if _, err := r.Run(strings.NewReader("a"), &out); err == nil || out.Len() != 0 {
		t.Errorf("err %v, drew %q", err, out.String())
	}
}

func TestReadKey(t *testing.T) {
	// Done by TestRunKeys, TestRunEdit and TestKeyReader; here the
	// escape-sequence edge: Escape, then a letter typed after it, is
	// Escape then the letter; the two in one read (Alt-a, or part of a
	// paste) decide nothing.
	p := sampleProposal(t)
	_, saves, _ := run(t, p, "\x1b"+"a")
	if strings.Join(saves, " ") != "app@1" {
		t.Errorf("typed: saves %v", saves)
	}
	p = sampleProposal(t)
	r := &Review{Proposal: p, Save: func(*selection.Proposal) error { t.Error("saved"); return nil }}
	if _, err := r.Run(strings.NewReader("\x1ba"), io.Discard); err != nil || state(p) != "ppp@0" {
		t.Errorf("one read: %v, state %s", err, state(p))
	}
}

// discardingReader is input with keys typed ahead: discard (what
// RunTerminal's flush does to a terminal) drops them, as long as nothing
// has been read yet.
type discardingReader struct {
	ahead, later string
	read         bool
}

func (d *discardingReader) Read(b []byte) (int, error) {
	d.read = true
	if d.ahead == "" && d.later == "" {
		return 0, io.EOF
	}
	all := d.ahead + d.later
	n := copy(b, all[:keyLen(all)]) // typed: one key per read
	d.ahead, d.later = "", all[n:]
	return n, nil
}

// TestRunDiscardsTypedAhead: the shown hook runs once, just before the
// first page is written and before any key is read, so keys it discards
// (typed before a candidate was visible) decide nothing; keys typed after
// it do.
func TestRunDiscardsTypedAhead(t *testing.T) {
	for _, tt := range []struct {
		ahead, later string
		discard      bool
		want         string
		reason       string
	}{
		{"aaa", "q", true, "ppp@0", "typed ahead and discarded: nothing decided"},
		{"aaa", "q", false, "aaa@3", "without the hook (not a terminal) typed-ahead keys count"},
		{"", "ar", true, "arp@2", "keys typed after the first page count"},
		{"r", "aq", true, "app@1", "only the keys typed ahead are dropped"},
	} {
		p := sampleProposal(t)
		in := &discardingReader{ahead: tt.ahead, later: tt.later}
		calls := 0
		var out bytes.Buffer
		r := &Review{Proposal: p, Save: func(*selection.Proposal) error { return nil }}
		if tt.discard {
			r.shown = func() error {
				calls++
				if in.read {
					t.Errorf("%s: the hook ran after a key was read", tt.reason)
				}
				if out.Len() != 0 {
					t.Errorf("%s: the hook ran after the first page was written", tt.reason)
				}
				in.ahead = ""
				return nil
			}
		}
		if _, err := r.Run(in, &out); err != nil {
			t.Fatalf("%s: %v", tt.reason, err)
		}
		if got := state(p); got != tt.want || (tt.discard && calls != 1) {
			t.Errorf("%s: state %s, hook ran %d times; want %s", tt.reason, got, calls, tt.want)
		}
	}
}
