package agentlog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/internal/input"
)

// readAll reads every session of r through a Reader.
func readAll(t *testing.T, r io.Reader, o Options) ([]*Session, *Reader) {
	t.Helper()
	rd, err := NewReader(r, "x.jsonl", o)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Session
	for {
		s, err := rd.Next()
		if err == io.EOF {
			return out, rd
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

// TestReaderStreams: Next gives the sessions ReadAll gives, gzipped or
// not, with the uncompressed bytes counted, in each format.
func TestReaderStreams(t *testing.T) {
	for _, c := range []struct {
		file     string
		format   Format
		sessions int
		start    string
	}{
		{"testdata/session.jsonl", ClaudeCode, 1, "2026-02-01T10:00:01Z"},
		{"testdata/codex-rollout.jsonl", Codex, 1, "2025-09-14T10:00:00Z"},
		{"testdata/generic.jsonl", Generic, 2, ""},
	} {
		raw, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadAll(bytes.NewReader(raw), "x.jsonl", "")
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(raw)
		zw.Close()
		for _, in := range [][]byte{raw, z.Bytes()} {
			got, rd := readAll(t, bytes.NewReader(in), Options{})
			if rd.Format() != c.format || len(got) != c.sessions || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: format %s, %d sessions; want %s, %d, as ReadAll reads them", c.file, rd.Format(), len(got), c.format, c.sessions)
			}
			if rd.Bytes() != int64(len(raw)) {
				t.Errorf("%s: counted %d bytes, want %d (uncompressed)", c.file, rd.Bytes(), len(raw))
			}
			if start := got[0].Start; c.start == "" && !start.IsZero() || c.start != "" && !start.Equal(mustTime(c.start)) {
				t.Errorf("%s: start %v, want %q", c.file, start, c.start)
			}
		}
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestReaderSkipBad: with SkipBad a malformed line (bad JSON, a field of
// the wrong type, a line over the limit) is counted on its session as
// MalformedLine and reported, and reading goes on; without it, the first
// one fails the read.
func TestReaderSkipBad(t *testing.T) {
	long := `{"type":"user","sessionId":"a","message":{"content":"` + strings.Repeat("x", 200) + `"}}`
	for _, c := range []struct {
		format Format
		log    string
		// lines per session, and the malformed lines' numbers
		lines []int
		bad   []string
	}{
		{ClaudeCode, `{"type":"user","sessionId":"a","message":{"content":"hi"}}` + "\n" + `{"type":` + "\n" + long + "\n" +
			`{"type":"user","sessionId":"a","isMeta":"yes","message":{"content":"hi"}}` + "\n" + `{"type":"user","sessionId":"b","message":{"content":"hi"}}` + "\n",
			[]int{4, 1}, []string{"x.jsonl:2:", "x.jsonl:3: line longer than", "x.jsonl:4:"}},
		{Codex, `{"timestamp":"2025-09-14T10:00:00Z","type":"session_meta","payload":{"id":"c"}}` + "\n" + `{"type":7}` + "\n" +
			`{"timestamp":"2025-09-14T10:00:00Z","type":"event_msg","payload":{"type":"token_count"}}` + "\n",
			[]int{3}, []string{"x.jsonl:2:"}},
		{Generic, `{"type":1}` + "\n" + `{"session_id":"g","messages":[]}` + "\n" + `[` + "\n" + "\n" + `{"session_id":"h","messages":[],"started":"soon"}` + "\n",
			[]int{5}, []string{"x.jsonl:1:", "x.jsonl:3:", "x.jsonl:5:43: started"}}, // every line on g, the one session
	} {
		var bad []string
		ss, _ := readAll(t, strings.NewReader(c.log), Options{Format: c.format, MaxLine: 100, SkipBad: true,
			Bad: func(err error) { bad = append(bad, err.Error()) }})
		var lines []int
		for _, s := range ss {
			lines = append(lines, s.Records.Lines())
		}
		if !reflect.DeepEqual(lines, c.lines) || len(bad) != len(c.bad) {
			t.Errorf("%s: lines per session %v, want %v; skipped %q", c.format, lines, c.lines, bad)
			continue
		}
		for i := range bad {
			if !strings.HasPrefix(bad[i], c.bad[i]) {
				t.Errorf("%s: skipped %q, want it to start %q", c.format, bad[i], c.bad[i])
			}
		}
		n := 0
		for _, s := range ss {
			n += s.Records.Skipped[MalformedLine]
		}
		if n != len(c.bad) {
			t.Errorf("%s: %d lines counted malformed, want %d", c.format, n, len(c.bad))
		}
		rd, err := NewReader(strings.NewReader(c.log), "x.jsonl", Options{Format: c.format, MaxLine: 100})
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = rd.Next()
		}
		if err == io.EOF || !strings.HasPrefix(err.Error(), c.bad[0]) {
			t.Errorf("%s without SkipBad: got %v, want the first malformed line's error", c.format, err)
		}
		if _, again := rd.Next(); again != err {
			t.Errorf("%s: after an error Next gave %v", c.format, again)
		}
	}
}

func TestReaderLineLimit(t *testing.T) {
	_, err := ReadAll(strings.NewReader(`{"type":"user","message":{"content":"hi"}}`+"\n"), "x.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	rd, _ := NewReader(strings.NewReader(`{"type":"user","message":{"content":"hi"}}`+"\n"), "x.jsonl", Options{MaxLine: 10})
	if _, err := rd.Next(); !errors.Is(err, input.ErrTooLarge) {
		t.Errorf("got %v, want a line over the limit", err)
	}
}
