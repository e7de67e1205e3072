package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/reviews"
)

// unreviewedConfig returns a configuration of the example quarter without
// its reviews file, in a folder of links to the example's files: the
// queue then has nothing reviewed to skip.
func unreviewedConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(quarterly)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "report.yaml" {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(quarterly, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, e.Name())); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	text, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	text = regexp.MustCompile(`(?m)^reviews:.*$`).ReplaceAll(text, nil)
	text = regexp.MustCompile(`(?m)^(\s*use:\s*)corrected`).ReplaceAll(text, []byte("${1}judge"))
	path := filepath.Join(dir, "report.yaml")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runQueue runs tally calibrate queue with --format json and returns the
// plan printed and the queue's bytes.
func runQueue(t *testing.T, config, out string, extra ...string) (reviewQueueJSON, []byte) {
	t.Helper()
	stdout, errOut, code := cli(t, append([]string{"calibrate", "queue", "--config", config, "-o", out, "--format", "json"}, extra...)...)
	if code != 0 {
		t.Fatalf("calibrate queue: exit %d: %s", code, errOut)
	}
	var plan reviewQueueJSON
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return plan, withoutBOM(t, b)
}

// withoutBOM is a CSV tally wrote for reviewers after its UTF-8 byte
// order mark, which Excel on Windows needs to read it as UTF-8 (Go's
// encoding/csv keeps it in the first cell).
func withoutBOM(t *testing.T, b []byte) []byte {
	t.Helper()
	rest, ok := bytes.CutPrefix(b, []byte("\ufeff"))
	if !ok {
		t.Errorf("the CSV does not start with a UTF-8 byte order mark: %.40q", b)
	}
	return rest
}

// queueCol is the index of each of the queue's columns.
func queueCol(t *testing.T, header string) int {
	t.Helper()
	i := slices.Index(reviews.QueueHeader, header)
	if i < 0 {
		t.Fatalf("no column %q", header)
	}
	return i
}

// TestCalibrateQueue: on the example quarter without reviews the queue is
// the same bytes for a seed and other bytes for another, its rows are
// sorted, every item the verdict files call contradicted is on it as a
// census of its system, each row shows the verdict files' verdicts, and
// the rows drawn per class, system and judge's verdict are the plan's.
func TestCalibrateQueue(t *testing.T) {
	config := unreviewedConfig(t)
	dir := t.TempDir()
	plan, first := runQueue(t, config, filepath.Join(dir, "a.csv"))
	_, again := runQueue(t, config, filepath.Join(dir, "b.csv"), "--seed", "1")
	_, other := runQueue(t, config, filepath.Join(dir, "c.csv"), "--seed", "2")
	if !bytes.Equal(first, again) {
		t.Error("the same seed gave another queue")
	}
	if bytes.Equal(first, other) {
		t.Error("another seed gave the same queue")
	}
	recs, err := csv.NewReader(bytes.NewReader(first)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], reviews.QueueHeader) {
		t.Fatalf("header %q", recs[0])
	}
	rows := recs[1:]
	names := [2]string{"incumbent", "candidate"}
	verdictCol := [2]int{queueCol(t, reviews.HeaderIncumbentVerdict), queueCol(t, reviews.HeaderCandidateVerdict)}
	sampleCol := [2]int{queueCol(t, reviews.HeaderIncumbentSample), queueCol(t, reviews.HeaderCandidateSample)}
	recsByKey := exampleRecords(t)
	type stratum struct{ class, system, judge, sample string }
	drawn := map[stratum]int{}
	onQueue := map[string]string{} // recKey → sample
	for i, r := range rows {
		if i > 0 {
			p := rows[i-1]
			pc, _ := strconv.Atoi(p[1])
			c, _ := strconv.Atoi(r[1])
			if p[0] > r[0] || p[0] == r[0] && (pc > c || pc == c && p[2] >= r[2]) {
				t.Errorf("rows %d and %d out of order: %q, %q", i+1, i+2, p[:3], r[:3])
			}
		}
		comp, _ := strconv.Atoi(r[1])
		for s, sys := range names {
			rec, ok := recsByKey[recKey(r[0], comp, r[2], sys)]
			want := string(rec.Verdict)
			if !ok {
				want = "not checked"
			}
			if r[verdictCol[s]] != want {
				t.Errorf("line %d: %s verdict %q, the verdict file says %q", i+2, sys, r[verdictCol[s]], want)
			}
			if r[sampleCol[s]] != "" {
				drawn[stratum{r[3], sys, want, r[sampleCol[s]]}]++
				onQueue[recKey(r[0], comp, r[2], sys)] = r[sampleCol[s]]
			}
		}
	}
	contradictions := 0
	for k, rec := range recsByKey {
		if rec.Verdict == fixture.Contradicted {
			contradictions++
			if onQueue[k] != reviews.SampleCensus {
				t.Errorf("contradiction %s %s %d %s: on the queue as %q, want census", rec.System, rec.ConversationID, rec.Compaction, rec.ItemID, onQueue[k])
			}
		}
	}
	if contradictions == 0 {
		t.Fatal("the example has no contradiction: the census is not tested")
	}
	total := 0
	for _, c := range plan.Classes {
		for _, s := range c.Strata {
			k := stratum{c.Class, c.System, s.Judge, s.Sample}
			if drawn[k] != s.Drawn {
				t.Errorf("%+v: %d rows drawn, the plan says %d", k, drawn[k], s.Drawn)
			}
			delete(drawn, k)
			total += s.Drawn
			if s.Reviewed != 0 || s.Wanted != s.Drawn {
				t.Errorf("%+v: reviewed %d, wanted %d, drawn %d: without reviews every wanted item is drawn", k, s.Reviewed, s.Wanted, s.Drawn)
			}
		}
	}
	for k, n := range drawn {
		t.Errorf("%+v: %d rows drawn, in no stratum of the plan", k, n)
	}
	if total != plan.Drawn || plan.Census+plan.Random != plan.Drawn || plan.Census != contradictions || plan.Rows != len(rows) {
		t.Errorf("plan drawn %d (census %d, random %d), rows %d; strata drawn %d, %d contradictions, %d rows",
			plan.Drawn, plan.Census, plan.Random, plan.Rows, total, contradictions, len(rows))
	}
}

// TestCalibrateQueueSkipsReviewed: with the example's reviews file, no
// item-compaction and system it reviews is drawn again, and each stratum
// counts them.
func TestCalibrateQueueSkipsReviewed(t *testing.T) {
	cfg, err := report.LoadConfig(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Reviews == "" {
		t.Skip("the example configures no reviews")
	}
	done, err := reviews.Load(cfg.Resolve(cfg.Reviews), input.Limits{})
	if err != nil || len(done) == 0 {
		t.Fatalf("reviews %d, %v", len(done), err)
	}
	plan, q := runQueue(t, exampleConfig, filepath.Join(t.TempDir(), "q.csv"))
	recs, err := csv.NewReader(bytes.NewReader(q)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	reviewed := map[reviews.Key]bool{}
	for _, r := range done {
		reviewed[r.Key()] = true
	}
	sampleCol := [2]int{queueCol(t, reviews.HeaderIncumbentSample), queueCol(t, reviews.HeaderCandidateSample)}
	for i, r := range recs[1:] {
		comp, _ := strconv.Atoi(r[1])
		for s, sys := range []string{"incumbent", "candidate"} {
			if r[sampleCol[s]] != "" && reviewed[reviews.Key{ConversationID: r[0], Compaction: comp, ItemID: r[2], System: sys}] {
				t.Errorf("line %d: %s drawn again, already reviewed", i+2, sys)
			}
		}
	}
	counted := 0
	for _, c := range plan.Classes {
		for _, s := range c.Strata {
			counted += s.Reviewed
		}
	}
	if counted == 0 || counted > len(done) {
		t.Errorf("the strata count %d reviewed of the %d reviews", counted, len(done))
	}
}

// TestCalibrateQueueRoundTrip: a reviewer fills the queue (the judge's
// verdict as the reviewer's, verbatim as supported, a formula as a note),
// tally calibrate reads it into the reviews file, each review marked
// with the sample its row was drawn by; an unknown sample value is an
// error naming the file, line and column, and nothing is written.
func TestCalibrateQueueRoundTrip(t *testing.T) {
	config := unreviewedConfig(t)
	dir := t.TempDir()
	queue := filepath.Join(dir, "queue.csv")
	plan, q := runQueue(t, config, queue)
	recs, err := csv.NewReader(bytes.NewReader(q)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	verdictCol := [2]int{queueCol(t, reviews.HeaderIncumbentVerdict), queueCol(t, reviews.HeaderCandidateVerdict)}
	sampleCol := [2]int{queueCol(t, reviews.HeaderIncumbentSample), queueCol(t, reviews.HeaderCandidateSample)}
	reviewCol := [2]int{queueCol(t, reviews.HeaderIncumbentReview), queueCol(t, reviews.HeaderCandidateReview)}
	hostile := `=HYPERLINK("x")`
	want := map[reviews.Key]string{} // sample
	for i, r := range recs[1:] {
		comp, _ := strconv.Atoi(r[1])
		for s, sys := range []string{"incumbent", "candidate"} {
			if r[sampleCol[s]] == "" {
				continue
			}
			v := r[verdictCol[s]]
			if v == string(fixture.Verbatim) {
				v = string(fixture.Supported)
			}
			r[reviewCol[s]] = v
			want[reviews.Key{ConversationID: r[0], Compaction: comp, ItemID: r[2], System: sys}] = r[sampleCol[s]]
		}
		r[queueCol(t, reviews.HeaderReviewer)] = "ana"
		if i == 0 {
			r[queueCol(t, reviews.HeaderNote)] = hostile
		}
	}
	if len(want) != plan.Drawn {
		t.Fatalf("%d filled, %d drawn", len(want), plan.Drawn)
	}
	write := func(path string) {
		var b bytes.Buffer
		if err := csv.NewWriter(&b).WriteAll(recs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filled := filepath.Join(dir, "filled.csv")
	write(filled)
	out := filepath.Join(dir, "reviews.jsonl")
	if _, errOut, code := cli(t, "calibrate", filled, "-o", out, "--config", config); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errOut)
	}
	got, err := reviews.Load(out, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d reviews, want %d", len(got), len(want))
	}
	notes := 0
	for _, r := range got {
		if s, ok := want[r.Key()]; !ok || r.Sample != s || !r.Agrees() || r.Reviewer != "ana" {
			t.Errorf("review %+v: want sample %q (on the queue: %v), the judge's verdict, reviewer ana", r, s, ok)
		}
		if r.Note == hostile {
			notes++
		}
	}
	if notes == 0 {
		t.Errorf("the note %s is not recorded as typed", hostile)
	}

	// An unknown sample value on the third row: an error at its cell.
	line := 4
	r := recs[line-1]
	s := 0
	if r[sampleCol[0]] == "" {
		s = 1
	}
	r[sampleCol[s]] = "sometimes"
	bad := filepath.Join(dir, "bad.csv")
	write(bad)
	before, _ := os.ReadFile(out)
	_, errOut, code := cli(t, "calibrate", bad, "-o", out, "--config", config)
	wantErr := bad + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(sampleCol[s]+1) + ": " + reviews.QueueHeader[sampleCol[s]] +
		`: "sometimes" is not how a review queue draws (want census or random, or leave it empty)`
	if code != exitInput || !strings.Contains(errOut, wantErr) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and\n%s", code, errOut, wantErr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("the reviews file changed")
	}
}

// TestCalibrateQueueText: the text output names each class and system,
// the total drawn with the seed, and the queue file.
func TestCalibrateQueueText(t *testing.T) {
	config := unreviewedConfig(t)
	out := filepath.Join(t.TempDir(), "q.csv")
	plan, _ := runQueue(t, config, out, "--seed", "7")
	stdout, errOut, code := cli(t, "calibrate", "queue", "--config", config, "-o", out, "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	last := "drawn: " + strconv.Itoa(plan.Drawn) + " item-compactions and systems (" + strconv.Itoa(plan.Census) + " census, " +
		strconv.Itoa(plan.Random) + " random) on " + strconv.Itoa(plan.Rows) + " rows, seed 7 → " + out + "\n"
	if !strings.HasSuffix(stdout, last) {
		t.Errorf("output ends:\n%s\nwant\n%s", stdout[max(0, len(stdout)-200):], last)
	}
	for _, c := range plan.Classes {
		if !regexp.MustCompile(`(?m)^` + c.Class + ` +` + c.System + ` +` + strconv.Itoa(c.Items) + ` +` + strconv.Itoa(c.Judged) + ` `).MatchString(stdout) {
			t.Errorf("no line for %s, %s with %d items, %d judged:\n%s", c.Class, c.System, c.Items, c.Judged, stdout)
		}
	}
}

// TestCalibrateQueueUsage: bad flags exit 2, a bad configuration 1.
func TestCalibrateQueueUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "q.csv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-o", out}, exitUsage, "--config must name the report's configuration"},
		{[]string{"--config", exampleConfig}, exitUsage, "-o QUEUE.csv must name the queue file"},
		{[]string{"--config", exampleConfig, "-o", out, "--half-width", "0"}, exitUsage, "--half-width 0: want a share strictly between 0 and 1"},
		{[]string{"--config", exampleConfig, "-o", out, "--agreement", "1"}, exitUsage, "--agreement 1: want a share strictly between 0 and 1"},
		{[]string{"--config", exampleConfig, "-o", out, "--confidence", "1.5"}, exitUsage, "--confidence:"},
		{[]string{"--config", exampleConfig, "-o", out, "extra"}, exitUsage, "unknown command"},
		{[]string{"--config", filepath.Join(t.TempDir(), "none.yaml"), "-o", out}, exitInput, "none.yaml"},
	} {
		_, errOut, code := cli(t, append([]string{"calibrate", "queue"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %s; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run wrote the queue")
	}
}
