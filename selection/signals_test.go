package selection

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// logBuilder writes a hand-made event log.
type logBuilder struct {
	b strings.Builder
}

func (l *logBuilder) call(s string, turn int, tool, args string) *logBuilder {
	fmt.Fprintf(&l.b, `{"session_id":%q,"turn":%d,"kind":"tool_call","tool":%q,"args":%s}`+"\n", s, turn, tool, args)
	return l
}

func (l *logBuilder) compaction(s string, turn int) *logBuilder {
	fmt.Fprintf(&l.b, `{"session_id":%q,"turn":%d,"kind":"compaction"}`+"\n", s, turn)
	return l
}

func (l *logBuilder) user(s string, turn int, text string) *logBuilder {
	fmt.Fprintf(&l.b, `{"session_id":%q,"turn":%d,"ts":"2026-01-06T10:00:00Z","kind":"message","role":"user","text":%q}`+"\n", s, turn, text)
	return l
}

func (l *logBuilder) assistant(s string, turn int, text string) *logBuilder {
	fmt.Fprintf(&l.b, `{"session_id":%q,"turn":%d,"kind":"message","role":"assistant","text":%q}`+"\n", s, turn, text)
	return l
}

// scanLog scans one log with the default configuration.
func scanLog(t *testing.T, log string, cfg SignalConfig) ([]Flagged, *SignalReport, error) {
	t.Helper()
	var out []Flagged
	rep, err := Scan(context.Background(), []Input{ReaderInput("log.jsonl", strings.NewReader(log))}, cfg, func(f *Flagged) error {
		out = append(out, *f)
		return nil
	})
	return out, rep, err
}

// turnsOf lists "kind@turn(evidence)" for every signal.
func turnsOf(fs []Flagged) []string {
	var out []string
	for _, f := range fs {
		for _, s := range f.Signals {
			out = append(out, fmt.Sprintf("%s:%s@%d(%d,c%d)", f.SessionID, s.Kind, s.Turn, s.EvidenceTurn, s.CompactionTurn))
		}
	}
	return out
}

// TestSignalCases: each signal, each look-alike and the edges of the
// window, on hand-made sessions.
func TestSignalCases(t *testing.T) {
	read := `{"path":"a.go","start_line":1,"end_line":40}`
	tests := []struct {
		reason string
		log    *logBuilder
		window int
		want   string
	}{
		{"repeated call after a compaction, arguments in another key order and spacing",
			new(logBuilder).call("s", 2, "read_file", read).compaction("s", 10).call("s", 12, "read_file", `{ "end_line":40, "path":"a.go", "start_line":1 }`),
			5, "s:repeated_tool_call@12(2,c10)"},
		{"a repeat at the compaction's own turn comes after it",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 10, "grep", `{"pattern":"x"}`),
			5, "s:repeated_tool_call@10(2,c10)"},
		{"exactly window turns after counts",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 15, "grep", `{"pattern":"x"}`),
			5, "s:repeated_tool_call@15(2,c10)"},
		{"window+1 turns after does not",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 16, "grep", `{"pattern":"x"}`),
			5, ""},
		{"look-alike reread_different_args: same tool and path, other lines",
			new(logBuilder).call("s", 2, "read_file", read).compaction("s", 10).call("s", 11, "read_file", `{"path":"a.go","start_line":80,"end_line":120}`),
			5, ""},
		{"look-alike: same arguments, another tool",
			new(logBuilder).call("s", 2, "read_file", `{"path":"a.go"}`).compaction("s", 10).call("s", 11, "list_dir", `{"path":"a.go"}`),
			5, ""},
		{"look-alike identical_no_compaction: the same call twice with no compaction between",
			new(logBuilder).call("s", 2, "run_tests", `{"command":"go test ./..."}`).call("s", 4, "run_tests", `{"command":"go test ./..."}`),
			5, ""},
		{"identical calls both after the compaction: only a call before it is evidence",
			new(logBuilder).compaction("s", 3).call("s", 4, "grep", `{"pattern":"x"}`).call("s", 5, "grep", `{"pattern":"x"}`),
			5, ""},
		{"a call before the compaction repeated twice within the window: both flagged, evidence the call before it",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 11, "grep", `{"pattern":"x"}`).call("s", 12, "grep", `{"pattern":"x"}`),
			5, "s:repeated_tool_call@11(2,c10) s:repeated_tool_call@12(2,c10)"},
		{"two compactions: evidence is the latest call before the latest one",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 20, "grep", `{"pattern":"x"}`).compaction("s", 30).call("s", 31, "grep", `{"pattern":"x"}`),
			5, "s:repeated_tool_call@31(20,c30)"},
		{"sessions do not mix",
			new(logBuilder).call("a", 2, "grep", `{"pattern":"x"}`).compaction("b", 3).call("b", 4, "grep", `{"pattern":"x"}`),
			5, ""},
		{"restated instruction after a compaction, in other words",
			new(logBuilder).user("s", 3, "Before you start: never modify anything under db/migrations.").compaction("s", 20).user("s", 22, "I said don't touch migrations."),
			5, "s:restated_instruction@22(3,c20)"},
		{"restated without a cue phrase but as an instruction, near word for word",
			new(logBuilder).user("s", 3, "Don't deploy to prod without asking me.").compaction("s", 20).user("s", 24, "Do not deploy to prod without asking me!"),
			5, "s:restated_instruction@24(3,c20)"},
		{"look-alike restatement_before_compaction",
			new(logBuilder).user("s", 3, "Ground rule: leave fast_export off by default.").user("s", 8, "Again: fast_export defaults to off.").compaction("s", 20),
			5, ""},
		{"a chat line repeated after a compaction is not an instruction",
			new(logBuilder).user("s", 3, "Looks right to me.").compaction("s", 20).user("s", 22, "Looks right to me."),
			5, ""},
		{"a repeated request that merely has a negation inside is not an instruction",
			new(logBuilder).user("s", 3, "Hm, not what I expected. Dig into a.go.").compaction("s", 20).user("s", 22, "Hm, not what I expected. Dig into a.go."),
			5, ""},
		{"a cue with nothing in common restates nothing",
			new(logBuilder).user("s", 3, "Never force-push to main.").compaction("s", 20).user("s", 22, "Again: why is TestQueue failing?"),
			5, ""},
		{"\"again\" inside a sentence is no cue",
			new(logBuilder).user("s", 3, "Run the queue tests with -race.").compaction("s", 20).user("s", 22, "Run the queue tests again with -v please."),
			5, ""},
		{"the assistant repeating itself is not the user",
			new(logBuilder).assistant("s", 3, "I'll open the PR against develop, not main.").compaction("s", 20).assistant("s", 22, "As I said, I'll open the PR against develop."),
			5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			cfg := DefaultSignalConfig()
			cfg.Window = tt.window
			fs, _, err := scanLog(t, tt.log.b.String(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(turnsOf(fs), " "); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestSignalEvidence: a flagged session carries its week and the
// evidence of each signal.
func TestSignalEvidence(t *testing.T) {
	log := new(logBuilder).user("s", 1, "Before you start: never modify anything under db/migrations.").
		call("s", 2, "grep", `{"path":".","pattern":"TODO"}`).compaction("s", 5).
		call("s", 6, "grep", `{"pattern":"TODO","path":"."}`).user("s", 7, "As I told you, db/migrations is off-limits.")
	fs, rep, err := scanLog(t, log.b.String(), DefaultSignalConfig())
	if err != nil || len(fs) != 1 {
		t.Fatalf("%v, %v", fs, err)
	}
	f := fs[0]
	if f.Week != "2026-W02" || len(f.Signals) != 2 {
		t.Fatalf("%+v", f)
	}
	rep0, rep1 := f.Signals[0], f.Signals[1]
	if rep0.Tool != "grep" || string(rep0.Args) != `{"path":".","pattern":"TODO"}` || rep0.EvidenceTurn != 2 || rep0.CompactionTurn != 5 {
		t.Errorf("repeat evidence %+v (args %s)", rep0, rep0.Args)
	}
	if rep1.Text != "As I told you, db/migrations is off-limits." || rep1.EvidenceText != "Before you start: never modify anything under db/migrations." ||
		rep1.Score < DefaultRestateThreshold || rep1.Similarity <= 0 {
		t.Errorf("restatement evidence %+v", rep1)
	}
	if rep.Sessions != 1 || rep.Compacted != 1 || rep.Flagged != 1 || rep.Kinds[0].Signals != 1 || rep.Kinds[1].Signals != 1 {
		t.Errorf("report %+v", rep)
	}
}

// TestScanProblems: a session whose events resume after another's, a
// turn that goes back and a malformed line are problems; with SkipBad
// they are skipped, counted and reported, never silently dropped.
func TestScanProblems(t *testing.T) {
	log := new(logBuilder).call("a", 1, "grep", `{}`).call("b", 1, "grep", `{}`).call("a", 2, "grep", `{}`).call("a", 3, "grep", `{}`).
		call("c", 5, "grep", `{}`).call("c", 4, "grep", `{}`)
	log.b.WriteString(`{"session_id":"c","turn":6` + "\n")
	text := log.b.String()

	_, _, err := scanLog(t, text, DefaultSignalConfig())
	if err == nil || err.Error() != `log.jsonl:3:1: session_id: the events of session "a" are not together: an earlier run of them ends at line 1` {
		t.Errorf("err = %v", err)
	}
	cfg := DefaultSignalConfig()
	cfg.SkipBad = true
	_, rep, err := scanLog(t, text, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped.Count != 4 || rep.Sessions != 3 || rep.Events != 3 {
		t.Errorf("skipped %d, sessions %d, events %d; want 4 skipped (2 resumed lines, 1 turn back, 1 malformed), 3 sessions, 3 events",
			rep.Skipped.Count, rep.Sessions, rep.Events)
	}
	want := []string{
		"skipped 4 malformed line(s) (--skip-bad)",
		`skipped log.jsonl:3:1: session_id: the events of session "a" are not together: an earlier run of them ends at line 1`,
		`skipped log.jsonl:6:1: turn: turn 4 comes after turn 5 of session "c": a session's events must be in turn order`,
		`skipped log.jsonl:7:27: unexpected end of line: the JSON value is not complete`,
		`… and 1 more skipped line(s) not listed`, // line 4: the rest of the resumed session
	}
	if strings.Join(rep.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(rep.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

// TestScanAcrossInputs: flagged sessions come in input order whatever
// the parallelism; a session with events in two inputs is warned about.
func TestScanAcrossInputs(t *testing.T) {
	var inputs []Input
	for i := range 9 {
		s := fmt.Sprintf("s%d", i)
		log := new(logBuilder).call(s, 1, "grep", `{"i":1}`).compaction(s, 2).call(s, 3, "grep", `{"i":1}`)
		if i == 8 {
			log.call("s0", 1, "grep", `{}`)
		}
		inputs = append(inputs, ReaderInput(fmt.Sprintf("f%d.jsonl", i), strings.NewReader(log.b.String())))
	}
	for _, workers := range []int{1, 3, 16} {
		cfg := DefaultSignalConfig()
		cfg.Workers = workers
		for i := range inputs { // fresh readers
			s := fmt.Sprintf("s%d", i)
			log := new(logBuilder).call(s, 1, "grep", `{"i":1}`).compaction(s, 2).call(s, 3, "grep", `{"i":1}`)
			if i == 8 {
				log.call("s0", 1, "grep", `{}`)
			}
			inputs[i] = ReaderInput(fmt.Sprintf("f%d.jsonl", i), strings.NewReader(log.b.String()))
		}
		var got []string
		rep, err := Scan(context.Background(), inputs, cfg, func(f *Flagged) error {
			got = append(got, f.SessionID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != "s0 s1 s2 s3 s4 s5 s6 s7 s8" {
			t.Errorf("workers %d: order %v", workers, got)
		}
		if len(rep.Warnings) != 1 || rep.Warnings[0] != "f8.jsonl:4: this session also has events in f0.jsonl; each file's part was checked alone" {
			t.Errorf("workers %d: warnings %q", workers, rep.Warnings)
		}
	}
}

// TestScanEmitError: an error from emit stops the scan and is returned.
func TestScanEmitError(t *testing.T) {
	var inputs []Input
	for i := range 20 {
		s := fmt.Sprintf("s%d", i)
		log := new(logBuilder).call(s, 1, "grep", `{}`).compaction(s, 2).call(s, 3, "grep", `{}`)
		inputs = append(inputs, ReaderInput(s, strings.NewReader(log.b.String())))
	}
	stop := fmt.Errorf("disk full")
	n := 0
	_, err := Scan(context.Background(), inputs, DefaultSignalConfig(), func(*Flagged) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Errorf("err %v after %d", err, n)
	}
}

// TestNormalise pins the normalisation the restatement score uses.
func TestNormalise(t *testing.T) {
	var n normaliser
	var w words
	tests := []struct {
		text              string
		content           []string
		restate, instruct bool
	}{
		{"Before you start: never modify anything under /migrations.", []string{"start", "modify", "anything", "under", "migrations"}, false, true},
		{"I said don't touch migrations.", []string{"touch", "migrations"}, true, true},
		{"Like I said earlier, dual_write_orders defaults to off.", []string{"dual_write_orders", "defaults", "off"}, true, false},
		{"Again: PR goes to develop.", []string{"pr", "develop"}, true, false},
		{"Run the tests again with -race.", []string{"run", "tests", "race"}, false, false},
		{"Don't add new dependencies to go.mod", []string{"add", "new", "dependencies", "go.mod"}, false, true},
		{"Hm, not what I expected. Dig into a.go.", []string{"hm", "expected", "dig", "a.go"}, false, false},
		{"Please remember, tests must not hit the network.", []string{"tests", "hit", "network"}, true, true},
	}
	for _, tt := range tests {
		n.normalise(tt.text, &w)
		var want []uint64
		for _, c := range tt.content {
			want = append(want, hashWord(stem([]byte(c))))
		}
		var got words
		got.content = append(got.content, want...)
		sortedUnique(&got.content)
		if !equalUint64(w.content, got.content) || w.restateCue != tt.restate || w.instructCue != tt.instruct {
			t.Errorf("%q: %d words (want %d: %v), restate %v (want %v), instruction %v (want %v)",
				tt.text, len(w.content), len(got.content), tt.content, w.restateCue, tt.restate, w.instructCue, tt.instruct)
		}
	}
	for _, p := range [][2]string{{"defaults", "default"}, {"changes", "change"}, {"testing", "tests"}, {"dependencies", "dependency"}, {"go.mod", "go.mod"}} {
		if a, b := string(stem([]byte(p[0]))), string(stem([]byte(p[1]))); a != b {
			t.Errorf("stem(%s) = %s, stem(%s) = %s", p[0], a, p[1], b)
		}
	}
}

func sortedUnique(xs *[]uint64) {
	s := *xs
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	*xs = out
}

func equalUint64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
