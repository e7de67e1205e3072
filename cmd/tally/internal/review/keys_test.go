package review

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// typing is keys as a person types them: one key per read, an escape
// sequence (an arrow key's) being one key.
func typing(keys string) io.Reader {
	var s script
	for keys != "" {
		n := keyLen(keys)
		s.reads = append(s.reads, read{data: keys[:n]})
		keys = keys[n:]
	}
	return &s
}

// keyLen is the length of the key keys begins with: a CSI or SS3
// sequence up to its final byte, else one UTF-8 character.
func keyLen(keys string) int {
	if len(keys) > 2 && keys[0] == 0x1b && (keys[1] == '[' || keys[1] == 'O') {
		for i := 2; i < len(keys); i++ {
			if keys[i] >= 0x40 && keys[i] <= 0x7e {
				return i + 1
			}
		}
		return len(keys)
	}
	_, n := utf8.DecodeRuneInString(keys)
	return n
}

// script is input as a sequence of reads, each after a gap of time. Its
// wait is a keyReader wait function that answers from the gaps, as a
// terminal would, without sleeping: waiting uses up the gap.
type script struct {
	reads   []read
	stopped bool // wait says the review was stopped once the reads are used up
}

type read struct {
	gap  time.Duration // time before the read's bytes arrive
	data string
}

// Read returns the next read's bytes (all of them, as a terminal's read
// does with a buffer of 4 KiB and less), then io.EOF.
func (s *script) Read(b []byte) (int, error) {
	if len(s.reads) == 0 {
		return 0, io.EOF
	}
	n := copy(b, s.reads[0].data)
	if s.reads[0].data = s.reads[0].data[n:]; s.reads[0].data == "" {
		s.reads = s.reads[1:]
	}
	return n, nil
}

func (s *script) wait(d time.Duration) (bool, error) {
	switch {
	case len(s.reads) == 0 && s.stopped:
		return false, errStopped
	case len(s.reads) == 0: // the end of the input is read at once
		return true, nil
	case d < 0 || s.reads[0].gap <= d:
		s.reads[0].gap = 0
		return true, nil
	}
	s.reads[0].gap -= d
	return false, nil
}

// describe writes k for a test: a rune as itself (a space as ␠), a
// special key by name, a paste as paste"TEXT" (its length beyond 40
// bytes, ✂ when cut), and + after a key that came in a burst.
func describe(k key) string {
	names := map[special]string{keyEnter: "⏎", keyEsc: "Esc", keyBackspace: "⌫", keyCtrlC: "^C", keyCtrlD: "^D",
		keyCtrlU: "^U", keyCtrlW: "^W", keyLeft: "←", keyRight: "→", keyOther: "?"}
	s := string(k.r)
	switch {
	case k.special == keyPaste && len(k.paste) > 40:
		s = fmt.Sprintf("paste[%d]", len(k.paste))
	case k.special == keyPaste:
		s = fmt.Sprintf("paste%q", k.paste)
	case k.special != none:
		s = names[k.special]
	case k.r == ' ':
		s = "␠"
	}
	if k.cut {
		s += "✂"
	}
	if k.burst {
		s += "+"
	}
	return s
}

// events reads everything from kr, described, and the error that ended
// it.
func events(kr *keyReader) (string, error) {
	var got []string
	for {
		k, err := kr.next()
		if err != nil {
			return strings.Join(got, " "), err
		}
		got = append(got, describe(k))
	}
}

// reads is input arriving as the given reads, back to back.
func reads(data ...string) []read {
	var r []read
	for _, d := range data {
		r = append(r, read{data: d})
	}
	return r
}

const (
	trialLine1 = "Bitte prüfen: gilt das noch?"
	trialLine2 = "Antwort: ja, laut Ticket."
)

// TestKeyReader: what keyReader makes of input arriving in given reads,
// with a terminal's wait (timed by the gaps) or a plain reader's.
// References: xterm ctlseqs, "Bracketed Paste Mode" (ESC [ 200 ~ text
// ESC [ 201 ~) and ECMA-48 §5.4 (a CSI sequence: parameter bytes 0x30–
// 0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E).
func TestKeyReader(t *testing.T) {
	long := strings.Repeat("x", maxPaste+100)
	tests := []struct {
		name     string
		reads    []read
		terminal bool // read with script.wait
		want     string
		reason   string
	}{
		{"typed keys", reads("a", "r", "\x1b[D", "\r", "ü"), false, "a r ← ⏎ ü",
			"one key per read: none is a burst, an arrow key's sequence is one key"},
		{"typed Enter alone", reads("\r"), true, "⏎", "a typed Enter arrives alone: it ends an edit"},
		{"arrow split across reads", reads("\x1b[", "D"), false, "←", "after ESC [ the reader reads on for the final byte"},
		{"arrow split after ESC, terminal", []read{{0, "\x1b"}, {10 * time.Millisecond, "[D"}}, true, "←",
			"the rest of the sequence comes within escWait"},
		{"Escape alone, terminal", []read{{0, "\x1b"}, {time.Second, "a"}}, true, "Esc a",
			"nothing within escWait: the Escape key, then a key typed later"},
		{"Escape alone, plain reader", reads("\x1b", "a"), false, "Esc a", "no wait function: an Escape ending a read is the key"},
		{"Escape and a letter in one read", reads("\x1ba"), false, "Esc+ a+", "Alt-a, or a paste: neither arrived alone"},
		{"modified arrow", reads("\x1b[1;5D", "\x1b[1;5A", "\x1bOC"), false, "← ? →", "parameters are skipped; SS3 too"},
		{"stray end marker", reads(pasteEnd), false, "?", "an end marker without a start is no key"},
		{"sequence broken by a control byte", reads("\x1b[1\x03"), false, "?+ ^C+", "the byte that breaks it is a key of its own"},
		{"paste in one read", reads(pasteStart + trialLine1 + "\r" + trialLine2 + "\r" + pasteEnd), false,
			"paste[56]", "one event, whatever it holds"},
		{"paste text", reads(pasteStart + "ja\r\nnein" + pasteEnd), false, `paste"ja\r\nnein"`, "the text as sent; pasteText makes it one line"},
		{"paste across reads, markers split", reads("\x1b[20", "0~Bitte\rAnt", "wort: ja\x1b[2", "01~"), false,
			`paste"Bitte\rAntwort: ja"`, "both markers split; the text put back together"},
		{"paste split after ESC, terminal", []read{{0, "\x1b"}, {5 * time.Millisecond, "[200~ja" + pasteEnd}}, true,
			`paste"ja"`, "the split start marker is not the Escape key"},
		{"end marker split after ESC", reads(pasteStart+"ja\x1b", "[201~"), false, `paste"ja"`, "the tail that may start the end marker waits for the next read"},
		{"ESC inside a paste", reads(pasteStart + "a\x1b[31mb" + pasteEnd), false, `paste"a\x1b[31mb"`, "only the end marker ends a paste"},
		{"UTF-8 split across reads", reads(pasteStart+"pr\xc3", "\xbcfen"+pasteEnd, "\xc3", "\xbc"), false,
			`paste"prüfen" ü`, "a character split across reads is put back together"},
		{"keys after a paste in its read", reads(pasteStart + "x" + pasteEnd + "ar"), false, `paste"x"+ a+ r+`, "they came with the paste"},
		{"paste longer than maxPaste", reads(pasteStart+long[:5000], long[5000:]+pasteEnd, "q"), false,
			fmt.Sprintf("paste[%d]✂ q", maxPaste), "kept up to the bound, the rest dropped up to the end marker, never read as keys"},
		{"paste never ended, terminal", []read{{0, pasteStart + "abc"}, {5 * time.Second, "q"}}, true, `paste"abc" q`,
			"no byte within seqWait: the paste ends with what came, and the review goes on"},
		{"paste cut by the end of input", reads(pasteStart + "abc"), false, `paste"abc"`, "what came is the paste"},
		{"burst", reads("ja, laut"), false, "j+ a+ ,+ ␠+ l+ a+ u+ t+", "several keys in one read: an unbracketed paste"},
		{"CRLF is one key", reads("x\r\ny"), false, "x+ ⏎+ y+", "one line break"},
		{"burst continued within burstGap, terminal", []read{{0, "ja l"}, {10 * time.Millisecond, "a"}, {time.Second, "r"}}, true,
			"j+ a+ ␠+ l+ a+ r", "a read right after a burst continues it; a key typed later is alone"},
		{"burst continued, plain reader", reads("ja l", "a"), false, "j+ a+ ␠+ l+ a",
			"without a wait function only the read itself counts"},
		{"control keys", reads("\x7f", "\x08", "\x03", "\x04", "\x15", "\x17", "\t", "\x01", "\xff"), false, "⌫ ⌫ ^C ^D ^U ^W ␠ ? ?",
			"as before: tab is a space, other control bytes and invalid UTF-8 mean nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{reads: tt.reads}
			kr := &keyReader{in: s}
			if tt.terminal {
				kr.wait = s.wait
			}
			got, err := events(kr)
			if !errors.Is(err, io.EOF) {
				t.Errorf("ended with %v", err)
			}
			if got != tt.want {
				t.Errorf("%s:\ngot  %s\nwant %s", tt.reason, got, tt.want)
			}
		})
	}
}

// TestKeyReaderStopped: a wait that says the review stopped (a signal)
// ends the reading with errStopped, in a paste too.
func TestKeyReaderStopped(t *testing.T) {
	for _, data := range []string{"a", pasteStart + "abc"} {
		s := &script{reads: reads(data), stopped: true}
		got, err := events(&keyReader{in: s, wait: s.wait})
		if !errors.Is(err, errStopped) {
			t.Errorf("%q: %s, ended with %v", data, got, err)
		}
	}
}

// TestPasteText: a paste becomes one line of printable text.
func TestPasteText(t *testing.T) {
	for _, tt := range []struct{ in, want, reason string }{
		{trialLine1 + "\r" + trialLine2 + "\r", trialLine1 + " " + trialLine2 + " ", "xterm sends a pasted line break as CR"},
		{"a\r\nb\nc\rd", "a b c d", "CRLF, LF and CR are one space each"},
		{"a\n\nb", "a  b", "each line break is a space"},
		{"tab\there", "tab here", "a tab is a space"},
		{"10\u00a0km\u2028x\u0085y", "10 km x y", "other spaces and line separators are spaces"},
		{"a\x1b[31mb\x07\x00c", "a[31mbc", "control characters are dropped"},
		{"\u202Eexe.txt", "exe.txt", "a bidirectional override is dropped"},
		{"a\xffb\xc3", "ab", "invalid UTF-8 (a character cut at maxPaste) is dropped"},
		{"non — still open", "non — still open", "text stays as it is"},
	} {
		if got := pasteText(tt.in); got != tt.want {
			t.Errorf("%s: pasteText(%q) = %q, want %q", tt.reason, tt.in, got, tt.want)
		}
	}
}

// FuzzKeyReader: any input, in any two reads, gives events that end, a
// printable rune for every rune key, and a paste within maxPaste that
// pasteText makes printable.
func FuzzKeyReader(f *testing.F) {
	for _, s := range []string{"abc", "\x1b[D\r", pasteStart + "a\rb" + pasteEnd, "\x1b[20", "\x1b[1;5\x03", "\xc3\xbc\x1bO"} {
		f.Add(s, uint8(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in string, split uint8) {
		n := min(int(split), len(in))
		kr := &keyReader{in: &script{reads: reads(in[:n], in[n:])}}
		for range len(in) + 2 {
			k, err := kr.next()
			if err != nil {
				return
			}
			if k.special == none && !unicode.IsPrint(k.r) {
				t.Fatalf("rune key %q", k.r)
			}
			if len(k.paste) > maxPaste {
				t.Fatalf("paste of %d bytes", len(k.paste))
			}
			for _, r := range pasteText(k.paste) {
				if !unicode.IsPrint(r) {
					t.Fatalf("pasteText kept %q", r)
				}
			}
		}
		t.Fatalf("more events than bytes in %q", in)
	})
}
