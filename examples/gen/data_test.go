package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
)

// Readers of the committed data for the tests. They decode the files as
// any consumer would, independently of the generator's own types.

type sessionRec struct {
	SessionID   string          `json:"session_id"`
	Turns       int             `json:"turns"`
	Started     string          `json:"started"`
	Incident    bool            `json:"incident"`
	Compactions json.RawMessage `json:"compactions"`
	Items       json.RawMessage `json:"items"`

	compactions []int // turns; nil with counts only
	nCompact    int
	items       []itemRec // nil with counts only
	nItems      int
	countsOnly  bool
}

type itemRec struct {
	Class string `json:"class"`
	Turn  int    `json:"turn"`
}

type eventRec struct {
	SessionID string          `json:"session_id"`
	Turn      int             `json:"turn"`
	TS        string          `json:"ts"`
	Kind      string          `json:"kind"`
	Role      string          `json:"role"`
	Text      string          `json:"text"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
}

type truthRec struct {
	SessionID      string `json:"session_id"`
	Signal         string `json:"signal"`
	Lookalike      string `json:"lookalike"`
	Turn           int    `json:"turn"`
	CompactionTurn int    `json:"compaction_turn"`
	EvidenceTurn   int    `json:"evidence_turn"`
	Tool           string `json:"tool"`
	ClaudeCodeTool string `json:"claude_code_tool"`
	UUID           string `json:"uuid"`
	EvidenceUUID   string `json:"evidence_uuid"`
	CompactionUUID string `json:"compaction_uuid"`
	ChangeTurn     int    `json:"change_turn"`
	ChangeUUID     string `json:"change_uuid"`
}

// eachLine decodes every line of a JSONL file into a fresh T.
func eachLine[T any](t *testing.T, path string, fn func(T)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		fn(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func loadSessions(t *testing.T) []*sessionRec {
	t.Helper()
	var out []*sessionRec
	eachLine(t, filepath.Join(committed, "sessions.jsonl"), func(s sessionRec) {
		var n int
		if json.Unmarshal(s.Compactions, &n) == nil {
			s.countsOnly, s.nCompact = true, n
			if err := json.Unmarshal(s.Items, &s.nItems); err != nil {
				t.Fatalf("%s: items: %v", s.SessionID, err)
			}
		} else {
			var cs []struct{ Turn int }
			var is []itemRec
			if err := json.Unmarshal(s.Compactions, &cs); err != nil {
				t.Fatalf("%s: compactions: %v", s.SessionID, err)
			}
			if err := json.Unmarshal(s.Items, &is); err != nil {
				t.Fatalf("%s: items: %v", s.SessionID, err)
			}
			for _, c := range cs {
				s.compactions = append(s.compactions, c.Turn)
			}
			s.items, s.nCompact, s.nItems = is, len(cs), len(is)
		}
		out = append(out, &s)
	})
	return out
}

// tallyDir is a folder holding the quarter with its logs in tally's own
// event format: the committed data when it is in that format, else a
// generation into a temporary folder (go run ./examples/gen -format
// tally), removed by TestMain.
func tallyDir(t *testing.T) string { t.Helper(); return tallyQuarter.path(t) }

var tallyQuarter = &quarterDir{format: FormatTally, committedIs: func() bool {
	_, err := os.Stat(filepath.Join(committed, "events", "week-01.jsonl"))
	return err == nil
}}

// quarterDir is the quarter with its logs in one format: the committed
// data when committedIs says it is in that format, else a generation
// into a temporary folder (go run ./examples/gen -format FORMAT), made
// once and removed by TestMain.
type quarterDir struct {
	format      string
	committedIs func() bool

	once     sync.Once
	dir, tmp string
	err      error
}

// path returns the quarter's folder, generating it the first time.
func (q *quarterDir) path(t *testing.T) string {
	t.Helper()
	q.once.Do(func() {
		if q.committedIs() {
			q.dir = committed
			return
		}
		if q.tmp, q.err = os.MkdirTemp("", "tally-gen-"+q.format+"-"); q.err == nil {
			q.dir = filepath.Join(q.tmp, "quarterly")
			q.err = run(io.Discard, io.Discard, []string{"-out", q.dir, "-format", q.format})
		}
	})
	if q.err != nil {
		t.Fatal(q.err)
	}
	return q.dir
}

// loadEvents returns each session's events in tally's own format
// (tallyDir) in file order, and the file each session's events were in.
func loadEvents(t *testing.T) (map[string][]eventRec, map[string]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(tallyDir(t), "events", "week-*.jsonl"))
	if err != nil || len(files) != Weeks {
		t.Fatalf("%d week files (%v), want %d", len(files), err, Weeks)
	}
	sort.Strings(files)
	events, where := make(map[string][]eventRec), make(map[string]string)
	for _, f := range files {
		last := ""
		eachLine(t, f, func(e eventRec) {
			if e.SessionID != last {
				if _, seen := where[e.SessionID]; seen {
					t.Fatalf("%s: %s's events are not together", f, e.SessionID)
				}
				where[e.SessionID], last = f, e.SessionID
			}
			events[e.SessionID] = append(events[e.SessionID], e)
		})
	}
	return events, where
}

// loadTruth reads the truth of the logs in tally's own format
// (tallyDir).
func loadTruth(t *testing.T) []truthRec {
	t.Helper()
	var out []truthRec
	eachLine(t, filepath.Join(tallyDir(t), "events", "truth.jsonl"), func(x truthRec) { out = append(out, x) })
	return out
}
