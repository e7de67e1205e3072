package reviews

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// FuzzReader: any input reads without a panic, each line gives a review
// or problems with a position, and every review read is written and
// read back unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte(okLine + "\n" + okLine + "\n"))
	f.Add([]byte(`{"conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","system":"s","item":"x","judge_verdict":"verbatim","verdict":"supported","reviewer":"=1+1","note":"\u0000\u2028","source":"r.xlsx"}`))
	f.Add([]byte(`{"conversation_id":7,"compaction":1e3}` + "\n[1]\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), "f.jsonl", 1<<16)
		for {
			r, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				ps := fixture.AsProblems(err)
				if len(ps) == 0 {
					t.Fatalf("error without problems: %v", err)
				}
				for _, p := range ps {
					if p.File != "f.jsonl" || p.Line != rd.Line() {
						t.Fatalf("problem %v not at line %d", p, rd.Line())
					}
				}
				continue
			}
			var b bytes.Buffer
			w := NewWriter(&b)
			if err := w.Write(r); err != nil {
				t.Fatalf("a review read does not write: %+v: %v", r, err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			back, err := ReadAll(&b, "g.jsonl", 0)
			if err != nil || len(back) != 1 || back[0] != r {
				t.Fatalf("round trip of %+v: %+v, %v", r, back, err)
			}
		}
	})
}

// FuzzCollectCSV: any CSV after the Items sheet's header gives reviews
// that validate, or problems, never a panic.
func FuzzCollectCSV(f *testing.F) {
	f.Add("c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,absent,'=x,\"a\nb\"\n")
	f.Add("c2,1,q,open_question,,,,contradicted,,,,supported,,,,TRUE,unsure,Contradicted ,,\n")
	f.Add("c9,x,,rule,,,,,,,,,,,,,nope,,,\n\"")
	f.Fuzz(func(t *testing.T, body string) {
		tab, err := ReadCSV(strings.NewReader(csvHeader+body), "r.csv")
		if err != nil {
			return
		}
		for _, chk := range []*Check{csvCheck, nil} {
			got, err := Collect(tab, chk)
			if err != nil {
				continue
			}
			for _, r := range got.Reviews {
				if err := r.Validate(); err != nil {
					t.Fatalf("review %+v does not validate: %v", r, err)
				}
			}
		}
	})
}

// FuzzCollectQueueCSV: any CSV after a review queue's header gives
// reviews that validate, each with a sample a queue draws or none, or
// problems, never a panic.
func FuzzCollectQueueCSV(f *testing.F) {
	f.Add("c1,1,i1,constraint,,,,verbatim,,,,,absent,,,,random,,absent,'=x,\"a\nb\"\n")
	f.Add("c2,1,q,open_question,,,,contradicted,,,,Census ,supported,,,,,unsure,Contradicted ,,\n")
	f.Add("c2,1,q,open_question,,,,contradicted,,,,often,supported,,,,=1,,absent,,\n\"")
	header := strings.Join(QueueHeader, ",") + "\n"
	f.Fuzz(func(t *testing.T, body string) {
		tab, err := ReadCSV(strings.NewReader(header+body), "q.csv")
		if err != nil {
			return
		}
		got, err := Collect(tab, csvCheck)
		if err != nil {
			return
		}
		for _, r := range got.Reviews {
			if err := r.Validate(); err != nil {
				t.Fatalf("review %+v does not validate: %v", r, err)
			}
			if r.Sample != "" && r.Sample != SampleCensus && r.Sample != SampleRandom {
				t.Fatalf("review %+v: sample %q", r, r.Sample)
			}
		}
	})
}

// FuzzQueueRoundTrip: a queue row of any text, written by WriteQueue and
// read back by ReadCSV with a reviewer's verdict filled, gives the row's
// key and samples unchanged (a key cell aside that starts with ' before
// a formula character, whose ' ReadCSV takes for the writer's mark).
func FuzzQueueRoundTrip(f *testing.F) {
	f.Add("c1", "i1", "=HYPERLINK(\"x\")", "-probe", "\t", 3, true, false)
	f.Add("@c", "+i", "a\"b", "c\nd", "\r\x00", 1, false, true)
	f.Fuzz(func(t *testing.T, conv, item, literal, probe, answer string, comp int, census, both bool) {
		q := QueueRow{ConversationID: conv, Compaction: comp, ItemID: item, Class: fixture.Reference, Literal: literal, Probe: probe,
			Judge: [2]fixture.Verdict{fixture.Supported, fixture.Absent}, Answer: [2]string{answer, answer}, Sample: [2]string{SampleRandom, ""}}
		if census {
			// The queue's census is of the judge's contradictions.
			q.Sample[0], q.Judge[0] = SampleCensus, fixture.Contradicted
		}
		if both {
			q.Sample[1] = SampleRandom
		}
		var b bytes.Buffer
		if err := WriteQueue(&b, []QueueRow{q}); err != nil {
			return // an invalid row: no key, compaction below 1
		}
		for _, s := range []string{conv, item} {
			if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r\x00", rune(s[1])) {
				return
			}
		}
		for _, s := range []string{conv, item, literal, probe, answer} {
			if !utf8.ValidString(s) {
				return // ReadCSV refuses a CSV that is not UTF-8, naming the cell
			}
		}
		text := strings.TrimSuffix(b.String(), ",,,,\n") + ",supported,absent,,\n"
		tab, err := ReadCSV(strings.NewReader(text), "q.csv")
		if err != nil {
			t.Fatalf("reading back: %v\n%q", err, text)
		}
		chk := &Check{Name: "r", Systems: [2]string{"inc", "cand"},
			Items: map[ItemKey]Known{{conv, comp, item}: {Class: fixture.Reference, Judge: q.Judge}}}
		got, err := Collect(tab, chk)
		if err != nil {
			if strings.TrimSpace(conv) != conv || strings.TrimSpace(item) != item || !utf8.ValidString(conv+item) {
				return // Collect trims the key's spaces; reviews need UTF-8
			}
			t.Fatalf("collecting back: %v\n%q", err, text)
		}
		if len(got.Reviews) != 2 {
			t.Fatalf("reviews %+v", got.Reviews)
		}
		for s, r := range got.Reviews {
			if r.ConversationID != conv || r.Compaction != comp || r.ItemID != item || r.Sample != q.Sample[s] {
				t.Fatalf("review %d %+v of row %+v", s, r, q)
			}
		}
	})
}

// FuzzReadCSVSeparators: a filled review queue row of any Reviewer and
// Note text, saved with ";" or a tab between the columns (quoted as
// needed or every field quoted, with or without a byte order mark and
// CRLF), reads as the same queue saved with commas: the same reviews,
// or the same problems but for their file positions; and any bytes after
// the header read without a panic.
func FuzzReadCSVSeparators(f *testing.F) {
	f.Add("Jürgen", "Semikolon; Komma, \"Zitat\"\nZeile 2", uint8(1), false, true, true)
	f.Add("=cmd", "'=SUM(1,2)\t", uint8(2), true, false, false)
	f.Add("Err:510", "#NAME?", uint8(0), true, true, true)
	f.Add("", "sep=;", uint8(1), false, false, false)
	f.Fuzz(func(t *testing.T, reviewer, note string, sep uint8, quoteAll, crlf, bom bool) {
		records := [][]string{QueueHeader, queueRecord(map[string]string{HeaderConversation: "c1", HeaderCompaction: "1", HeaderItem: "i1", HeaderClass: "constraint",
			HeaderIncumbentVerdict: "verbatim", HeaderCandidateVerdict: "absent", HeaderCandidateSample: SampleRandom,
			HeaderCandidateReview: "absent", HeaderReviewer: reviewer, HeaderNote: note})}
		read := func(s rune) (*Collected, error) {
			tab, err := ReadCSV(strings.NewReader(encodeCSV(t, records, s, quoteAll, crlf, bom)), "q.csv")
			if err != nil {
				return nil, err
			}
			return Collect(tab, csvCheck)
		}
		want, werr := read(',')
		got, gerr := read(separators[int(sep)%len(separators)])
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("with commas: %v; with %q: %v", werr, separators[int(sep)%len(separators)], gerr)
		}
		if werr == nil && !slices.Equal(got.Reviews, want.Reviews) {
			t.Fatalf("reviews %+v, with commas %+v", got.Reviews, want.Reviews)
		}
		// Any text after a semicolon-separated header.
		body := reviewer + "\n" + note
		if tab, err := ReadCSV(strings.NewReader(strings.Join(QueueHeader, ";")+"\n"+body), "q.csv"); err == nil {
			if got, err := Collect(tab, csvCheck); err == nil {
				for _, r := range got.Reviews {
					if err := r.Validate(); err != nil {
						t.Fatalf("review %+v does not validate: %v", r, err)
					}
				}
			}
		}
	})
}
