package selection

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// logBuilder writes a hand-made log in tally's event format.
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

// scanLog scans one log with cfg.
func scanLog(t *testing.T, log string, cfg SignalConfig) ([]Flagged, *SignalReport, error) {
	t.Helper()
	var out []Flagged
	rep, err := Scan(context.Background(), []Input{ReaderInput("log.jsonl", strings.NewReader(log))}, cfg, func(f *Flagged) error {
		out = append(out, *f)
		return nil
	})
	return out, rep, err
}

// turnsOf lists "session:kind@turn(evidence turn,compaction turn)" for
// every signal.
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
// window, on hand-made sessions in tally's event format, whose turn
// numbers are the log's own.
func TestSignalCases(t *testing.T) {
	read := `{"path":"a.go","start_line":1,"end_line":40}`
	tests := []struct {
		reason string
		log    *logBuilder
		window RepeatWindow
		want   string
	}{
		{"repeated call after a compaction, arguments in another key order and spacing",
			new(logBuilder).call("s", 2, "read_file", read).compaction("s", 10).call("s", 12, "read_file", `{ "end_line":40, "path":"a.go", "start_line":1 }`),
			DefaultRepeatWindow, "s:repeated_tool_call@12(2,c10)"},
		{"a repeat at the compaction's own turn comes after it",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 10, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, "s:repeated_tool_call@10(2,c10)"},
		{"exactly window turns after counts",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 15, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, "s:repeated_tool_call@15(2,c10)"},
		{"window+1 turns after does not",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 16, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, ""},
		{"a window of 2 steps: the repeat in the third step after the compaction is out",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).assistant("s", 10, "a").assistant("s", 10, "b").
				call("s", 11, "grep", `{"pattern":"x"}`),
			RepeatWindow{Turns: 5, Steps: 2}, ""},
		{"a window of 3 steps: it is in",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).assistant("s", 10, "a").assistant("s", 10, "b").
				call("s", 11, "grep", `{"pattern":"x"}`),
			RepeatWindow{Turns: 5, Steps: 3}, "s:repeated_tool_call@11(2,c10)"},
		{"look-alike reread_different_args: same tool and path, other lines",
			new(logBuilder).call("s", 2, "read_file", read).compaction("s", 10).call("s", 11, "read_file", `{"path":"a.go","start_line":80,"end_line":120}`),
			DefaultRepeatWindow, ""},
		{"look-alike: same arguments, another tool",
			new(logBuilder).call("s", 2, "read_file", `{"path":"a.go"}`).compaction("s", 10).call("s", 11, "list_dir", `{"path":"a.go"}`),
			DefaultRepeatWindow, ""},
		{"look-alike identical_no_compaction: the same call twice with no compaction between",
			new(logBuilder).call("s", 2, "run_tests", `{"command":"go test ./..."}`).call("s", 4, "run_tests", `{"command":"go test ./..."}`),
			DefaultRepeatWindow, ""},
		{"identical calls both after the compaction: only a call before it is evidence",
			new(logBuilder).compaction("s", 3).call("s", 4, "grep", `{"pattern":"x"}`).call("s", 5, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, ""},
		{"a call before the compaction repeated twice within the window: the second has its result again in the context",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 11, "grep", `{"pattern":"x"}`).call("s", 12, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, "s:repeated_tool_call@11(2,c10)"},
		{"two compactions: evidence is the latest call before the latest one",
			new(logBuilder).call("s", 2, "grep", `{"pattern":"x"}`).compaction("s", 10).call("s", 20, "grep", `{"pattern":"x"}`).compaction("s", 30).call("s", 31, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, "s:repeated_tool_call@31(20,c30)"},
		{"sessions do not mix",
			new(logBuilder).call("a", 2, "grep", `{"pattern":"x"}`).compaction("b", 3).call("b", 4, "grep", `{"pattern":"x"}`),
			DefaultRepeatWindow, ""},
		{"restated instruction after a compaction, with a cue",
			new(logBuilder).user("s", 3, "Before you start: never modify anything under db/migrations.").compaction("s", 20).user("s", 22, "I told you not to touch db/migrations."),
			DefaultRepeatWindow, "s:restated_instruction@22(3,c20)"},
		{"restated near word for word, no cue",
			new(logBuilder).user("s", 3, "Never push the billing service to production on Fridays.").assistant("s", 3, "Understood.").compaction("s", 20).
				user("s", 24, "On Fridays never push billing service to production."),
			DefaultRepeatWindow, "s:restated_instruction@24(3,c20)"},
		{"look-alike restatement_before_compaction",
			new(logBuilder).user("s", 3, "Ground rule: leave fast_export off by default.").user("s", 8, "As I said, fast_export defaults to off.").compaction("s", 20),
			DefaultRepeatWindow, ""},
		{"\"again\" inside a sentence is no cue",
			new(logBuilder).user("s", 3, "Run the queue tests with -race.").compaction("s", 20).user("s", 22, "Run the queue tests again with -v please."),
			DefaultRepeatWindow, ""},
		{"the assistant repeating itself is not the user",
			new(logBuilder).assistant("s", 3, "I'll open the PR against develop, not main.").compaction("s", 20).assistant("s", 22, "As I said, I'll open the PR against develop."),
			DefaultRepeatWindow, ""},
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

// concatLogs joins test logs as `cat` would.
func concatLogs(t *testing.T, paths ...string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestScanClaudeCode: a file of four Claude Code sessions joined with
// cat. Three are flagged, each signal with both calls or both messages
// and the compaction between, placed by turn, step, line and uuid, as
// read by hand from the files (lines: lost_read 1–7, push_again 8–14,
// orientation 15–25, told_you 26–43).
func TestScanClaudeCode(t *testing.T) {
	log := concatLogs(t, "repeats/lost_read.jsonl", "repeats/push_again.jsonl", "repeats/orientation.jsonl", "restate/told_you.jsonl")
	fs, rep, err := scanLog(t, log, DefaultSignalConfig())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 4 || rep.Compacted != 4 || rep.Flagged != 3 || rep.Lines != 43 || rep.Bytes != int64(len(log)) || rep.Formats[agentlog.ClaudeCode] != 4 {
		t.Errorf("report: %d sessions, %d compacted, %d flagged, %d lines, %d bytes, formats %v; want 4, 4, 3, 43, %d, 4 claude-code",
			rep.Sessions, rep.Compacted, rep.Flagged, rep.Lines, rep.Bytes, rep.Formats, len(log))
	}
	if len(fs) != 3 {
		t.Fatalf("flagged %v", turnsOf(fs))
	}
	call := func(id string, turn, step, line int, uuid, result, input, text string) *CallEvidence {
		return &CallEvidence{Tool: map[bool]string{true: "Read", false: "Bash"}[strings.Contains(input, "file_path")], Input: []byte(input),
			ID: id, Turn: turn, Step: step, Line: line, UUID: uuid, ResultUUID: result, Result: text}
	}
	const summary = "This session is being continued from a previous conversation."
	lost := Signal{Kind: RepeatedToolCall, Turn: 1, Step: 2, EvidenceTurn: 1, CompactionTurn: 1, CompactionLine: 4, CompactionUUID: "r4",
		TurnsAfter: 0, StepsAfter: 1, RepeatKind: LostResult, Reason: "read again (lines 20–29, after lines 1–50), unchanged since the first read",
		First: call("tu1", 1, 1, 2, "r2", "r3", `{"file_path":"/repo/parse.go","offset":1,"limit":50}`, "code"),
		Call:  call("tu2", 1, 2, 6, "r6", "r7", `{"file_path":"/repo/./parse.go","offset":20,"limit":10}`, "code"), Summary: summary}
	push := Signal{Kind: RepeatedToolCall, Severe: true, Turn: 1, Step: 2, EvidenceTurn: 1, CompactionTurn: 1, CompactionLine: 11, CompactionUUID: "r4",
		TurnsAfter: 0, StepsAfter: 1, RepeatKind: SideEffect, Reason: "the same external write again with no new commit",
		First: call("tu1", 1, 1, 9, "r2", "r3", `{"command":"git push origin main"}`, "ok"),
		Call:  call("tu2", 1, 2, 13, "r6", "r7", `{"command":"git push origin main"}`, "ok"), Summary: summary}
	for i, want := range []struct {
		id, week string
		sig      Signal
	}{{"lost_read", UnknownWeek, lost}, {"push_again", UnknownWeek, push}} {
		f := fs[i]
		if f.SessionID != want.id || f.Week != want.week || f.File != "log.jsonl" || f.Format != agentlog.ClaudeCode || len(f.Signals) != 1 {
			t.Errorf("flagged %d: %s %s %s %s with %d signals", i, f.SessionID, f.Week, f.File, f.Format, len(f.Signals))
			continue
		}
		if !reflect.DeepEqual(f.Signals[0], want.sig) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", want.id, f.Signals[0], want.sig)
		}
	}
	told := fs[2]
	if told.SessionID != "told_you" || told.Week != "2026-W07" || len(told.Signals) != 3 {
		t.Fatalf("told_you: %+v", told)
	}
	// told (T5, 4 steps before it) restates tabs, said (T6) api, again-colon
	// (T7) deps; the compaction is in T3, after 3 steps.
	for i, w := range []struct {
		uuid, cue          string
		turn, step, line   int
		earlier            string
		eTurn, eStep, eLin int
	}{
		{"told", "I told you", 5, 4, 38, "tabs", 1, 0, 26},
		{"said", "as I said", 6, 5, 40, "api", 2, 1, 28},
		{"again-colon", "again:", 7, 6, 42, "deps", 3, 2, 30},
	} {
		s := told.Signals[i]
		m, e := s.Message, s.Earlier
		if s.Kind != RestatedInstruction || s.Severe || s.Cue != w.cue || m == nil || e == nil ||
			[4]any{m.UUID, m.Turn, m.Step, m.Line} != [4]any{w.uuid, w.turn, w.step, w.line} ||
			[4]any{e.UUID, e.Turn, e.Step, e.Line} != [4]any{w.earlier, w.eTurn, w.eStep, w.eLin} ||
			s.Turn != w.turn || s.EvidenceTurn != w.eTurn || s.CompactionTurn != 3 || s.CompactionLine != 32 || s.CompactionUUID != "told_y-r004" ||
			s.TurnsAfter != w.turn-3 || s.StepsAfter != w.step-3 || s.Similarity <= 0 || len(s.Common) == 0 || m.Text == "" || e.Text == "" {
			t.Errorf("restatement %d: %+v (message %+v, earlier %+v)", i, s, m, e)
		}
	}
	if rep.Kinds[0].Sessions != 2 || rep.Kinds[0].Signals != 2 || rep.Kinds[0].SevereSessions != 1 || rep.Kinds[0].Severe != 1 ||
		rep.Kinds[1].Sessions != 1 || rep.Kinds[1].Signals != 3 {
		t.Errorf("kinds %+v", rep.Kinds)
	}
}

// TestScanSevereFirst: in a session with a lost result and a side
// effect, the side effect comes first, marked severe.
func TestScanSevereFirst(t *testing.T) {
	log := new(logBuilder).call("s", 1, "grep", `{"pattern":"x"}`).call("s", 1, "mcp__github__create_comment", `{"body":"done"}`).
		compaction("s", 2).call("s", 2, "grep", `{"pattern":"x"}`).call("s", 3, "mcp__github__create_comment", `{"body":"done"}`)
	fs, _, err := scanLog(t, log.b.String(), DefaultSignalConfig())
	if err != nil || len(fs) != 1 || len(fs[0].Signals) != 2 {
		t.Fatalf("%v %v", fs, err)
	}
	s := fs[0].Signals
	if !s[0].Severe || s[0].RepeatKind != SideEffect || s[0].Turn != 3 || s[1].Severe || s[1].RepeatKind != LostResult || s[1].Turn != 2 {
		t.Errorf("got %s %v @%d, %s %v @%d; want the side effect (turn 3) first, severe", s[0].RepeatKind, s[0].Severe, s[0].Turn, s[1].RepeatKind, s[1].Severe, s[1].Turn)
	}
}

// TestScanProblems: in tally's format, a session whose events resume
// after another's, a turn that goes back and a malformed line are
// problems; with SkipBad they are skipped, counted and reported, never
// silently dropped.
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
	if rep.Skipped.Count != 4 || rep.Sessions != 3 || rep.Lines != 7 || rep.NotRead[agentlog.MalformedLine] != 4 {
		t.Errorf("skipped %d, sessions %d, lines %d, malformed %d; want 4 skipped (2 resumed lines, 1 turn back, 1 malformed), 3 sessions, 7 lines, 4 malformed",
			rep.Skipped.Count, rep.Sessions, rep.Lines, rep.NotRead[agentlog.MalformedLine])
	}
	want := []string{
		"skipped 4 malformed line(s) (--skip-bad)",
		`skipped log.jsonl:3:1: session_id: the events of session "a" are not together: an earlier run of them ends at line 1`,
		`skipped log.jsonl:4:1: session_id: skipped with the rest of session "a"'s returning events`,
		`skipped log.jsonl:6:1: turn: turn 4 comes after turn 5 of session "c": a session's events must be in turn order`,
		`skipped log.jsonl:7:27: unexpected end of line: the JSON value is not complete`,
	}
	if strings.Join(rep.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(rep.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

// TestScanAcrossInputs: flagged sessions come in input order whatever
// the parallelism; a session read again from a later input (a resumed
// session's log copies its parent's records) is read once, from the
// first: its copy flags nothing and counts in Repeated, not in Sessions,
// with a warning.
func TestScanAcrossInputs(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		var inputs []Input
		for i := range 9 {
			s := fmt.Sprintf("s%d", i)
			log := new(logBuilder).call(s, 1, "grep", `{"i":1}`).compaction(s, 2).call(s, 3, "grep", `{"i":1}`)
			if i == 8 { // s0 again, flagged again
				log.call("s0", 1, "grep", `{"i":1}`).compaction("s0", 2).call("s0", 3, "grep", `{"i":1}`)
			}
			inputs = append(inputs, ReaderInput(fmt.Sprintf("f%d.jsonl", i), strings.NewReader(log.b.String())))
		}
		cfg := DefaultSignalConfig()
		cfg.Workers = workers
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
		want := []string{
			"f8.jsonl:4: session s0 was read from f0.jsonl already; it is read once, from the first file that has it",
			"1 session read again from a later file (the same session id: the same log gathered twice, or a resumed Claude Code session's log, which copies its parent's records) counted once, from the first file",
		}
		if !slices.Equal(rep.Warnings, want) {
			t.Errorf("workers %d: warnings %q", workers, rep.Warnings)
		}
		if rep.Sessions != 9 || rep.Compacted != 9 || rep.Flagged != 9 || rep.Repeated != 1 || rep.Weeks[0].Sessions != 9 {
			t.Errorf("workers %d: sessions %d, compacted %d, flagged %d, repeated %d, week's sessions %d; want 9, 9, 9, 1, 9",
				workers, rep.Sessions, rep.Compacted, rep.Flagged, rep.Repeated, rep.Weeks[0].Sessions)
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

// TestScanFormats: a gzipped log reads as the plain one, counted in
// uncompressed bytes; a format given is used instead of sniffing; a log
// without session ids names its sessions by file and position.
func TestScanFormats(t *testing.T) {
	log := concatLogs(t, "repeats/lost_read.jsonl")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(log))
	zw.Close()
	plain, _, err := scanLog(t, log, DefaultSignalConfig())
	if err != nil {
		t.Fatal(err)
	}
	gz, rep, err := scanLog(t, z.String(), DefaultSignalConfig())
	if err != nil || !reflect.DeepEqual(gz, plain) || rep.Bytes != int64(len(log)) {
		t.Errorf("gzipped: %v, %d bytes (want %d), flagged %v vs %v", err, rep.Bytes, len(log), turnsOf(gz), turnsOf(plain))
	}
	cfg := DefaultSignalConfig()
	cfg.Format = agentlog.Generic
	if _, _, err := scanLog(t, log, cfg); err == nil || !strings.Contains(err.Error(), `log.jsonl:1:1: session has no "messages"`) {
		t.Errorf("read as generic: %v", err)
	}
	cfg.Format = "yaml"
	if _, _, err := scanLog(t, log, cfg); err == nil || !strings.Contains(err.Error(), `the log format must be one of`) {
		t.Errorf("format yaml: %v", err)
	}
	noID := strings.ReplaceAll(log, `"sessionId":"lost_read",`, "")
	fs, _, err := scanLog(t, noID, DefaultSignalConfig())
	if err != nil || len(fs) != 1 || fs[0].SessionID != "log.jsonl#1" {
		t.Errorf("without ids: %v, %v", turnsOf(fs), err)
	}
}

func TestSignalConfigValidate(t *testing.T) {
	for _, c := range []struct {
		change func(*SignalConfig)
		want   string
	}{
		{func(c *SignalConfig) { c.Window.Turns = -1 }, "the window must not be negative, got -1 turns"},
		{func(c *SignalConfig) { c.Window.Steps = -1 }, "the window must not be negative, got -1 steps"},
		{func(c *SignalConfig) { c.Sample = -1 }, "the weekly sample must not be negative, got -1"},
		{func(c *SignalConfig) { c.Workers = -1 }, "workers must not be negative, got -1"},
	} {
		cfg := DefaultSignalConfig()
		c.change(&cfg)
		if err := cfg.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestScanSubAgents: a sub-agent's transcript given beside its parent's
// log is not a session, and is said.
func TestScanSubAgents(t *testing.T) {
	sub := `{"type":"user","sessionId":"p","isSidechain":true,"message":{"role":"user","content":"Find it."}}` + "\n"
	parent := `{"type":"user","sessionId":"p","message":{"role":"user","content":"Fix it."}}` + "\n"
	inputs := []Input{ReaderInput("agent-a1.jsonl", strings.NewReader(sub)), ReaderInput("p.jsonl", strings.NewReader(parent))}
	rep, err := Scan(context.Background(), inputs, DefaultSignalConfig(), func(*Flagged) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 || rep.SubAgents != 1 || rep.Repeated != 0 || len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], "1 sub-agent transcript (files whose records are all isSidechain") {
		t.Errorf("sessions %d, sub-agents %d, repeated %d, warnings %q; want 1, 1, 0 and the note", rep.Sessions, rep.SubAgents, rep.Repeated, rep.Warnings)
	}
}

// TestScanRepeatedLonger: a later copy of a session that is longer than
// the one read (a log that went on after it was copied) is named so,
// with both sizes, and its records count once in NotRead, as a copy's.
func TestScanRepeatedLonger(t *testing.T) {
	short := new(logBuilder).call("s", 1, "grep", `{"i":1}`)
	long := new(logBuilder).call("s", 1, "grep", `{"i":1}`).compaction("s", 2).call("s", 3, "grep", `{"i":1}`)
	inputs := []Input{ReaderInput("early.jsonl", strings.NewReader(short.b.String())), ReaderInput("late.jsonl", strings.NewReader(long.b.String()))}
	rep, err := Scan(context.Background(), inputs, DefaultSignalConfig(), func(*Flagged) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := "late.jsonl:1: session s was read from early.jsonl already; it is read once, from the first file that has it — this copy is longer (3 lines, against 1 there): give this file first to read it instead"
	if len(rep.Warnings) == 0 || rep.Warnings[0] != want || rep.Sessions != 1 || rep.Flagged != 0 || rep.NotRead[RepeatedRecords] != 3 {
		t.Errorf("warnings %q, sessions %d, flagged %d, not read %v", rep.Warnings, rep.Sessions, rep.Flagged, rep.NotRead)
	}
}

// TestScanUnread: with SkipBad, a file none of whose lines is read (a
// Codex history.jsonl beside the rollouts, a new user's trial) is no
// session: its lines are counted as not read, and the note says so.
func TestScanUnread(t *testing.T) {
	history := `{"session_id":"a","ts":1758532443,"text":"Add keys"}` + "\n" + `{"session_id":"a","ts":1758532444,"text":"again"}` + "\n"
	parent := `{"type":"user","sessionId":"p","message":{"role":"user","content":"Fix it."}}` + "\n"
	inputs := []Input{ReaderInput("history.jsonl", strings.NewReader(history)), ReaderInput("p.jsonl", strings.NewReader(parent))}
	cfg := DefaultSignalConfig()
	cfg.SkipBad = true
	rep, err := Scan(context.Background(), inputs, cfg, func(*Flagged) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 || rep.Unread != 1 || rep.NotRead[agentlog.MalformedLine] != 2 || !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, "1 log with no record read") }) {
		t.Errorf("sessions %d, unread %d, not read %v, warnings %q; want 1, 1, 2 malformed and the note", rep.Sessions, rep.Unread, rep.NotRead, rep.Warnings)
	}
}

// TestScanRepeatedMalformed: a malformed line of a session read again
// from a later file stays a malformed line in NotRead, as the skip note
// counts it (a new user's trial found the two counts apart by one).
func TestScanRepeatedMalformed(t *testing.T) {
	first := new(logBuilder).call("s", 1, "grep", `{"i":1}`)
	again := new(logBuilder).call("s", 1, "grep", `{"i":1}`)
	inputs := []Input{ReaderInput("a.jsonl", strings.NewReader(first.b.String())), ReaderInput("b.jsonl", strings.NewReader(again.b.String()+"{\"type\":\n"))}
	cfg := DefaultSignalConfig()
	cfg.SkipBad = true
	rep, err := Scan(context.Background(), inputs, cfg, func(*Flagged) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotRead[agentlog.MalformedLine] != 1 || rep.NotRead[RepeatedRecords] != 1 || rep.Skipped.Count != 1 {
		t.Errorf("not read %v, skipped %d; want 1 malformed, 1 of the copy's records, 1 skipped", rep.NotRead, rep.Skipped.Count)
	}
}
