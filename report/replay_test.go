package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

const quarterlyReplay = "../examples/quarterly/replay.jsonl"

func TestReplayQuarterly(t *testing.T) {
	pairs, err := LoadReplay(quarterlyReplay, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := AnalyzeReplay(pairs, 0.95, DefaultReplayDrop)
	if err != nil {
		t.Fatal(err)
	}
	// The example README's table: A=157, B=9 lost, C=11 gained, D=23;
	// 160 uncompacted references and 40 accepted traces.
	if rp.Result.Table != (power.Table{A: 157, B: 9, C: 11, D: 23}) {
		t.Errorf("table %v", rp.Result.Table)
	}
	if rp.ReferenceKinds[Uncompacted] != 160 || rp.ReferenceKinds[AcceptedTrace] != 40 {
		t.Errorf("kinds %v", rp.ReferenceKinds)
	}
	if len(rp.ByKind) != 2 || rp.ByKind[0].Kind != Uncompacted || rp.ByKind[0].Table.Pairs()+rp.ByKind[1].Table.Pairs() != 200 {
		t.Errorf("by kind %v", rp.ByKind)
	}
	if len(rp.Discordant) != 20 {
		t.Fatalf("%d discordant", len(rp.Discordant))
	}
	for i, p := range rp.Discordant {
		lost := p.Reference == Success
		if lost != (i < 9) {
			t.Errorf("queue[%d] = %+v: want the 9 lost first, then the 11 gained", i, p)
		}
	}
	exact, _ := rp.Result.Test(power.TestExact)
	// R: binom.test(9, 20)$p.value = 0.8238029.
	if d := exact.PValue - 0.8238029; d > 1e-7 || d < -1e-7 {
		t.Errorf("exact p %v, R says 0.8238029", exact.PValue)
	}
	// −3.6 to +5.6 points rules out the 5-point drop of interest.
	const want = "The difference, +1.0 points (95% newcombe interval −3.6 to +5.6 points), is not evidence of anything, in either direction: " +
		"11 gained against 9 lost is what chance alone often gives (exact McNemar p = 0.824), and the interval rules out a drop of 5.0 points or more: consistent with no change. " +
		"It is reported, not gated; the per-item rows decide the change."
	if rp.Sentence != want || rp.Grade != GradeNoChange || rp.Drop != DefaultReplayDrop {
		t.Errorf("grade %q, sentence:\n%s\nwant\n%s", rp.Grade, rp.Sentence, want)
	}
	if !strings.Contains(rp.Rule, "significant when p < α; otherwise inconclusive when the interval's lower end is below −5.0 points") {
		t.Errorf("rule %q", rp.Rule)
	}
	// The caveats are the replay's own, for the task-success section.
	if len(rp.Warnings) != 2 || !strings.Contains(rp.Warnings[0], "χ² approximation") || !strings.Contains(rp.Warnings[1], "40 of 200 references are accepted traces") {
		t.Errorf("replay warnings %q", rp.Warnings)
	}
}

// TestReplayGrade pins the grading rule's boundaries: significant when
// the exact p is below α (p = α is not); otherwise inconclusive when the
// interval's lower end is below −d (at −d exactly the drop is ruled out);
// otherwise consistent with no change.
func TestReplayGrade(t *testing.T) {
	const d = 0.05
	result := func(p, lower, upper float64, b, c int) power.Result {
		return power.Result{Table: power.Table{A: 150, B: b, C: c, D: 50 - b - c}, Confidence: 0.95, Pairs: 200, Discordant: b + c,
			Difference: float64(c-b) / 200,
			Tests:      []power.Test{{Method: string(power.TestExact), PValue: p}},
			Intervals:  []stats.Interval{{Method: string(power.IntervalNewcombe), Lower: lower, Upper: upper}}}
	}
	tests := []struct {
		reason string
		res    power.Result
		grade  string
		want   string // in the sentence
		not    string // never in the sentence
	}{
		{"p just below α: significant", result(0.0499, -0.09, -0.01, 15, 3), GradeSignificant, "is significant: the exact McNemar test rules out chance alone at the 5% level (p = 0.050)", "in either direction"},
		{"p = α is not significant; the interval reaches below −d", result(0.05, -0.092, 0.001, 15, 6), GradeInconclusive, "a drop of as much as 9.2 points is not ruled out", "chance alone often gives"},
		{"lower end exactly −d: a drop of d is ruled out", result(0.5, -0.05, 0.04, 6, 5), GradeNoChange, "is not evidence of anything, in either direction", "inconclusive"},
		{"lower end just below −d: inconclusive", result(0.5, -0.0501, 0.04, 6, 5), GradeInconclusive, "a drop of as much as 5.0 points is not ruled out, more than the 5.0-point drop of interest", "in either direction"},
		{"the source's case: 15 lost, 6 gained, p = 0.078, −9.2 to +0.1", result(0.078, -0.092, 0.001, 15, 6), GradeInconclusive,
			"is inconclusive: 15 lost against 6 gained could be chance (exact McNemar p = 0.078), but a drop of as much as 9.2 points is not ruled out", "chance alone often gives"},
		{"significant though the interval includes 0: said to be weak", result(0.04, -0.001, 0.06, 2, 9), GradeSignificant, "The interval still includes 0", ""},
		{"no change with the interval leaving out 0", result(0.065, 0.004, 0.135, 2, 9), GradeNoChange, "The interval leaves out 0, but the exact test does not rule out chance", ""},
		{"no discordant pairs, narrow interval", result(1, -0.019, 0.019, 0, 0), GradeNoChange, "The two runs agree on all 200 conversations", "inconclusive"},
		{"no discordant pairs, wide interval", result(1, -0.11, 0.11, 0, 0), GradeInconclusive, "does not rule out a drop of as much as 11.0 points", "in either direction"},
		{"an undefined lower end is not a drop ruled out", result(0.5, math.NaN(), math.NaN(), 3, 3), GradeInconclusive, "inconclusive", ""},
	}
	for _, tt := range tests {
		grade, got := GradeReplay(tt.res, d)
		if grade != tt.grade || !strings.Contains(got, tt.want) || (tt.not != "" && strings.Contains(got, tt.not)) {
			t.Errorf("%s: grade %q (want %q), sentence %q: want %q, never %q", tt.reason, grade, tt.grade, got, tt.want, tt.not)
		}
	}
}

// TestReplaySentence runs the grading on real McNemar results.
func TestReplaySentence(t *testing.T) {
	tests := []struct {
		name  string
		table power.Table
		conf  float64 // 0.95 when 0
		grade string
		want  string
	}{
		{name: "no discordant pairs", table: power.Table{A: 10, D: 2}, grade: GradeInconclusive, want: "The two runs agree on all 12 conversations"},
		{name: "a real drop", table: power.Table{A: 150, B: 30, C: 2, D: 18}, grade: GradeSignificant, want: "is significant: the exact McNemar test rules out chance alone at the 5% level (p < 0.0001), so task success under the candidate is lower"},
		{name: "noise on 200 conversations", table: power.Table{A: 157, B: 9, C: 11, D: 23}, grade: GradeNoChange, want: "is not evidence of anything, in either direction: 11 gained against 9 lost"},
		{name: "15 lost, 6 gained on 200", table: power.Table{A: 151, B: 15, C: 6, D: 28}, grade: GradeInconclusive,
			want: "The difference, −4.5 points (95% newcombe interval −9.2 to +0.1 points), is inconclusive: 15 lost against 6 gained could be chance (exact McNemar p = 0.078), but a drop of as much as 9.2 points is not ruled out"},
		// The exact2x2 vignette's b = 2, c = 9: exact p 0.065 > 0.05, and
		// Newcombe's interval (+0.4, +13.5 points) leaves out 0.
		{name: "interval excludes 0, test does not reject", table: power.Table{A: 50, B: 2, C: 9, D: 39}, grade: GradeNoChange,
			want: "The interval leaves out 0, but the exact test does not rule out chance at the 5% level."},
		// 0 lost and 8 gained in 318: exact p = 2/256 < 0.01, but the 99%
		// Newcombe interval starts just below 0.
		{name: "test rejects, interval includes 0", table: power.Table{A: 10, B: 0, C: 8, D: 300}, conf: 0.99, grade: GradeSignificant,
			want: "The difference, +2.5 points (99% newcombe interval −0.1 to +5.9 points), is significant: the exact McNemar test rules out chance alone at the 1% level (p = 0.008), so task success under the candidate is higher. The interval still includes 0"},
	}
	for _, tt := range tests {
		conf := tt.conf
		if conf == 0 {
			conf = 0.95
		}
		res, err := power.McNemar(tt.table, conf)
		if err != nil {
			t.Fatal(err)
		}
		grade, got := GradeReplay(res, DefaultReplayDrop)
		if grade != tt.grade || !strings.Contains(got, tt.want) {
			t.Errorf("%s: grade %q (want %q), %q does not contain %q", tt.name, grade, tt.grade, got, tt.want)
		}
	}
}

func TestReadReplayProblems(t *testing.T) {
	good := `{"conversation_id":"a","reference":"success","candidate":"failure","reference_kind":"uncompacted"}`
	tests := []struct {
		name, input string
		want        string // the whole error
	}{
		{"malformed", good + "\n{\"conversation_id\":\"b\",\n",
			`p.jsonl:2:24: unexpected end of line: want one JSON object on one line`},
		{"bad value", strings.Replace(good, `"failure"`, `"failed"`, 1),
			`p.jsonl:1:58: candidate: "failed" is not success or failure`},
		{"bad kind", strings.Replace(good, `"uncompacted"`, `"trace"`, 1),
			`p.jsonl:1:85: reference_kind: "trace" is not uncompacted or accepted_trace`},
		{"unknown field", strings.Replace(good, `}`, `,"note":"x"}`, 1),
			`p.jsonl:1:99: note: unknown field (want conversation_id, reference, candidate, reference_kind)`},
		{"missing field", `{"conversation_id":"a","reference":"success","candidate":"failure"}`,
			`p.jsonl:1:1: reference_kind: missing`},
		{"wrong type", strings.Replace(good, `"success"`, `true`, 1),
			`p.jsonl:1:36: reference: want a string, got a boolean`},
		{"repeated field", strings.Replace(good, `}`, `,"candidate":"success"}`, 1),
			`p.jsonl:1:99: candidate: repeated field`},
		{"duplicate conversation", good + "\n\n" + good,
			`p.jsonl:3:20: conversation_id: duplicate conversation_id "a" (first at line 1); each conversation is replayed once`},
		{"empty id", strings.Replace(good, `"a"`, `" "`, 1),
			`p.jsonl:1:20: conversation_id: empty`},
		{"not an object", `["a"]`,
			`p.jsonl:1:1: want a JSON object, got an array`},
		{"trailing data", good + ` {}`,
			`p.jsonl:1:100: more after the JSON object: want one object per line`},
		{"invalid character", `{"conversation_id":x}`,
			`p.jsonl:1:20: invalid character 'x' looking for beginning of value`},
		{"empty file", "\n\n", `p.jsonl: no replay pairs (want one JSON object per line: conversation_id, reference, candidate, reference_kind)`},
		{"column counts characters", `{"conversation_id":"é€","reference":"maybe","candidate":"failure","reference_kind":"uncompacted"}`,
			`p.jsonl:1:37: reference: "maybe" is not success or failure`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReplay(strings.NewReader(tt.input), "p.jsonl")
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestReadReplayManyProblems(t *testing.T) {
	var b strings.Builder
	for range 150 {
		b.WriteString("{}\n")
	}
	_, err := ReadReplay(strings.NewReader(b.String()), "p.jsonl")
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != fixture.MaxListed+1 || lines[fixture.MaxListed] != "p.jsonl: … and 500 more problems" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestReadReplayCRLFAndLongLine(t *testing.T) {
	good := `{"conversation_id":"a","reference":"success","candidate":"failure","reference_kind":"accepted_trace"}`
	pairs, err := ReadReplay(strings.NewReader(good+"\r\n"), "p.jsonl")
	if err != nil || len(pairs) != 1 || pairs[0].ReferenceKind != AcceptedTrace {
		t.Errorf("CRLF: %v %v", pairs, err)
	}
	long := `{"conversation_id":"` + strings.Repeat("x", MaxReplayLine) + `"}`
	_, err = ReadReplay(strings.NewReader(long+"\n"+good+"\n"), "p.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), "p.jsonl:1:1: line longer than") {
		t.Errorf("long line: %v", err)
	}
}

func TestWriteQueueOWASP(t *testing.T) {
	ids := []string{"=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "\x00x", "a,b", "line\nbreak", "plain"}
	var pairs []ReplayPair
	for i, id := range ids {
		ref, cand := Success, Failure
		if i%2 == 1 {
			ref, cand = Failure, Success
		}
		pairs = append(pairs, ReplayPair{ConversationID: id, Reference: ref, Candidate: cand, ReferenceKind: Uncompacted})
	}
	pairs = append(pairs, ReplayPair{ConversationID: "same", Reference: Success, Candidate: Success, ReferenceKind: AcceptedTrace})
	rp, err := AnalyzeReplay(pairs, 0.95, DefaultReplayDrop)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteQueue(&buf, rp); err != nil {
		t.Fatal(err)
	}
	q, ok := bytes.CutPrefix(buf.Bytes(), []byte(jsonscan.BOM))
	if !ok {
		t.Errorf("the queue does not start with a UTF-8 byte order mark (Excel on Windows needs it)")
	}
	rows, err := csv.NewReader(bytes.NewReader(q)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "conversation_id,change,reference,candidate,reference_kind,reviewer,caused_by_compaction,notes" {
		t.Errorf("header %v", rows[0])
	}
	if len(rows) != 1+len(ids) {
		t.Fatalf("%d rows, want %d discordant", len(rows)-1, len(ids))
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		if len(r) != len(QueueHeader) || r[5] != "" || r[6] != "" || r[7] != "" {
			t.Errorf("row %q: want %d columns, the reviewer's empty", r, len(QueueHeader))
		}
		got[r[0]] = r[1]
	}
	// A NUL shows as its escape, as in the workbook: text, no formula.
	for _, want := range []string{"'=HYPERLINK(\"http://x\")", "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\rx", `\x00x`, "a,b", "line\nbreak", "plain"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no cell %q in %q", want, got)
		}
	}
	if got["'=HYPERLINK(\"http://x\")"] != "lost" || got["'+1"] != "gained" {
		t.Errorf("changes %v", got)
	}
}

func FuzzReadReplay(f *testing.F) {
	f.Add([]byte(`{"conversation_id":"a","reference":"success","candidate":"failure","reference_kind":"uncompacted"}` + "\n"))
	f.Add([]byte(`{"conversation_id":"a","reference":"success"` + "\n\r\n{}"))
	f.Add([]byte(`{"conversation_id":"\u00e9","reference":"failure","candidate":"failure","reference_kind":"accepted_trace","x":[1,{"y":2}]}`))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := ReadReplay(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range pairs {
			if (p.Reference != Success && p.Reference != Failure) || (p.Candidate != Success && p.Candidate != Failure) ||
				(p.ReferenceKind != Uncompacted && p.ReferenceKind != AcceptedTrace) || strings.TrimSpace(p.ConversationID) == "" || seen[p.ConversationID] {
				t.Fatalf("accepted %+v", p)
			}
			seen[p.ConversationID] = true
		}
		rp, err := AnalyzeReplay(pairs, 0.95, DefaultReplayDrop)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteQueue(&bytes.Buffer{}, rp); err != nil {
			t.Fatal(err)
		}
	})
}

// TestValueCol: the column of a top-level key's value, found by the
// lexer: an escaped key is found, a nested one of the same name is not
// taken for it (a text search did both wrong). Columns counted by hand.
func TestValueCol(t *testing.T) {
	tests := []struct {
		line, key string
		want      int
	}{
		{`{"a":1, "b" : "x"}`, "b", 15},
		{`{"x":{"b":1},"b":2}`, "b", 18},
		{`{"\u0062":2}`, "b", 11},
		{`{"é":"€","b":3}`, "b", 14},
		{`{"a":1}`, "b", 1},
		{`{"a":`, "b", 1},
	}
	for _, tt := range tests {
		if got := jsonscan.ValueColumn([]byte(tt.line), tt.key); got != tt.want {
			t.Errorf("ValueColumn(%s, %q) = %d, want %d", tt.line, tt.key, got, tt.want)
		}
	}
}
