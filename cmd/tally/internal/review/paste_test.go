package review

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/selection"
)

// runReads reviews the sample with input arriving as the given reads
// (with a terminal's wait when terminal is set), returning the states
// saved and what was drawn.
func runReads(t *testing.T, p *selection.Proposal, terminal bool, rs ...read) ([]string, string) {
	t.Helper()
	var saves []string
	s := &script{reads: rs}
	r := &Review{Proposal: p, Output: "fx.json", Width: 120, Save: func(p *selection.Proposal) error {
		saves = append(saves, state(p))
		return nil
	}}
	if terminal {
		r.wait = s.wait
	}
	var out bytes.Buffer
	if _, err := r.Run(s, &out); err != nil {
		t.Fatal(err)
	}
	return saves, out.String()
}

// The trial's paste (a new user's): two lines, each ended by the line
// break a terminal sends for a pasted newline (CR).
const trialPaste = trialLine1 + "\r" + trialLine2 + "\r"

// TestRunPasteIntoEdit: the trial — p, Ctrl-U, then a two-line paste,
// then Enter — leaves the whole paste on the probe's one line and every
// candidate undecided, whether the terminal brackets the paste or not,
// and however the paste is split across reads. Before bracketed paste
// and the burst rule, the paste's second line was read as keys: the r
// of "Antwort" rejected a candidate, the a's of "ja" and "laut" accepted
// others, and the e of "Ticket" opened another edit.
func TestRunPasteIntoEdit(t *testing.T) {
	want := trialLine1 + " " + trialLine2
	gap := 300 * time.Millisecond // a person's Enter after the paste is on the screen
	tests := []struct {
		name     string
		paste    []read
		terminal bool
	}{
		{"bracketed", reads(pasteStart + trialPaste + pasteEnd), true},
		{"bracketed, split in the text and the end marker", reads(pasteStart+trialLine1+"\rAnt", "wort: ja, laut Ticket.\r\x1b[20", "1~"), true},
		{"bracketed, LF line ends", reads(pasteStart + trialLine1 + "\n" + trialLine2 + "\n" + pasteEnd), false},
		{"bracketed, CRLF line ends", reads(pasteStart + trialLine1 + "\r\n" + trialLine2 + "\r\n" + pasteEnd), false},
		{"not bracketed, one read", reads(trialLine1 + "\r" + trialLine2), false},
		{"not bracketed, split at the line break, terminal", []read{{0, trialLine1 + "\r"}, {time.Millisecond, trialLine2 + "\r"}}, true},
		{"not bracketed, split in a word, terminal", []read{{0, trialLine1 + "\rAnt"}, {time.Millisecond, "wort: ja, laut Ticket.\r"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sampleProposal(t)
			rs := append(reads("p", "\x15"), tt.paste...)
			rs = append(rs, read{gap: gap, data: "\r"})
			saves, out := runReads(t, p, tt.terminal, rs...)
			if got := p.Candidates[0].Probe; got != want {
				t.Errorf("probe %q, want %q", got, want)
			}
			if state(p) != "ppp@0" || strings.Join(saves, " ") != "ppp@0" {
				t.Errorf("state %s, saves %v: the paste decided something", state(p), saves)
			}
			if p.Candidates[1].Probe != sampleProposal(t).Candidates[1].Probe || p.Candidates[0].Expect != "yes" {
				t.Errorf("another field was edited: %+v", p.Candidates[:2])
			}
			if !strings.Contains(out, "» probe updated") {
				t.Errorf("no message:\n%s", out)
			}
		})
	}
}

// TestRunPasteEnter: Enter still ends an edit when it ends what came —
// typed alone, or at the end of a one-line paste — and a line break
// inside a paste does not.
func TestRunPasteEnter(t *testing.T) {
	const gap = 300 * time.Millisecond
	tests := []struct {
		name   string
		rs     []read
		expect string
		saves  string
		reason string
	}{
		{"typed", reads("e", "\x15", "n", "o", "\r"), "no", "ppp@0", "one key per read, as before"},
		{"typed fast on a terminal", []read{{0, "e"}, {0, "\x15"}, {0, "n"}, {0, "o"}, {0, "\r"}}, "no", "ppp@0", "reads back to back, none a burst: still typing"},
		{"one-line paste with its line end", reads("e", "\x15", "no\r"), "no", "ppp@0", "the Enter ends the read: the edit ends, the text is whole"},
		{"line break inside, then typed Enter", reads("e", "\x15", "n\ro", "\r"), "n o", "ppp@0", "the first line break has text after it"},
		{"paste then typed keys", []read{{0, "e"}, {0, "\x15"}, {0, pasteStart + "ja" + pasteEnd}, {gap, "!"}, {gap, "\r"}, {gap, "a"}}, "ja!", "ppp@0 app@1",
			"typing goes on after a paste (a person's keys come later than burstGap)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sampleProposal(t)
			saves, _ := runReads(t, p, true, tt.rs...)
			if got := p.Candidates[0].Expect; got != tt.expect || strings.Join(saves, " ") != tt.saves {
				t.Errorf("%s: expect %q, saves %v; want %q, %s", tt.reason, got, saves, tt.expect, tt.saves)
			}
		})
	}
}

// TestRunPasteInCommandMode: outside an edit a paste is never a key: a
// bracketed one, or keys arriving together, are ignored with a message,
// and a key typed afterwards acts as before.
func TestRunPasteInCommandMode(t *testing.T) {
	tests := []struct {
		name     string
		rs       []read
		terminal bool
		msg      string
	}{
		{"bracketed", []read{{0, pasteStart + trialPaste + pasteEnd}, {time.Second, "a"}}, true, "pasted text ignored: press p or e to edit a field first"},
		{"not bracketed", reads(trialPaste, "a"), false, "pasted text ignored (55 keys arrived at once): press p or e to edit a field first"},
		{"not bracketed, in two reads, terminal", []read{{0, trialLine1}, {time.Millisecond, "\r" + trialLine2 + "\r"}, {time.Second, "a"}}, true,
			"pasted text ignored (28 keys arrived at once)"},
		{"not bracketed, last read a single key, terminal", []read{{0, "Antwort: j"}, {time.Millisecond, "a"}, {time.Second, "a"}}, true,
			"pasted text ignored (a key arrived right after pasted text)"},
		{"keys queued up", reads("ar", "a"), false, "pasted text ignored (2 keys arrived at once)"},
		{"paste and keys in one read", reads(pasteStart+"x"+pasteEnd+"arar", "a"), false, "pasted text ignored: press p or e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sampleProposal(t)
			saves, out := runReads(t, p, tt.terminal, tt.rs...)
			if strings.Join(saves, " ") != "app@1" {
				t.Errorf("saves %v, want only the typed a's app@1", saves)
			}
			if !strings.Contains(out, "» "+tt.msg) {
				t.Errorf("no message %q in\n%s", tt.msg, out)
			}
		})
	}
	// On the closing page the message offers what can be done there.
	p := sampleProposal(t)
	p.Position = 3
	for i := range p.Candidates {
		p.Candidates[i].Status = selection.ReviewAccepted
	}
	if _, out := runReads(t, p, false, reads(pasteStart+"x"+pasteEnd)...); !strings.Contains(out, "» pasted text ignored: b goes back, q quits") {
		t.Errorf("closing page:\n%s", out)
	}
}

// TestRunPasteCut: a paste beyond maxPaste is cut there, the edit says
// so, and nothing of the rest is read as keys.
func TestRunPasteCut(t *testing.T) {
	p := sampleProposal(t)
	long := strings.Repeat("ab", maxPaste)
	saves, out := runReads(t, p, false, reads("p", "\x15", pasteStart+long+pasteEnd, "\r")...)
	if got := p.Candidates[0].Probe; got != long[:maxPaste] {
		t.Errorf("probe of %d bytes, want %d", len(got), maxPaste)
	}
	if strings.Join(saves, " ") != "ppp@0" {
		t.Errorf("saves %v", saves)
	}
	if want := fmt.Sprintf("» probe updated (a paste was cut to its first %d KiB)", maxPaste>>10); !strings.Contains(out, want) {
		t.Errorf("no message %q", want)
	}
}
