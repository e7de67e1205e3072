package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// contextFixtures are three example conversations and their incumbent
// compactions' turns (from the committed contexts): 3, 4 and 2 contexts.
var contextFixtures = []string{"sess_2026_01_30_9291", "sess_2026_02_03_d7e9", "sess_2026_02_11_6a8a"}

// setTurn rewrites the turn of a context file.
func setTurn(t *testing.T, path string, turn int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["turn"] = turn
	b, err = json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	copyBytes(t, path, b)
}

// TestCheckContextsMatchFixtures: every way the contexts can fail to
// match the fixtures is an input error naming the file, the fixture and
// the system; all are reported at once, one line each; nothing is
// written. Before, a fixture without contexts was skipped, a gap passed,
// an extra file was checked and an orphan folder ignored, all with exit 0.
func TestCheckContextsMatchFixtures(t *testing.T) {
	a, b, c := contextFixtures[0], contextFixtures[1], contextFixtures[2]
	type problem struct {
		file string // relative to the contexts folder
		has  string // a piece of the message
		pos  bool   // the line has a :LINE:COL: position
	}
	tests := []struct {
		reason string
		damage func(t *testing.T, ctx string)
		want   []problem
	}{
		{"a missing file (the last)", func(t *testing.T, ctx string) {
			removePath(t, filepath.Join(ctx, a, "3.json"))
		}, []problem{{a + "/3.json", "missing context: compaction 3 of 3 expected", false}}},
		{"a gap in the numbering", func(t *testing.T, ctx string) {
			removePath(t, filepath.Join(ctx, b, "2.json"))
		}, []problem{{b + "/2.json", "missing context: compaction 2 of 4 expected", false}}},
		{"a fixture with no contexts folder", func(t *testing.T, ctx string) {
			removePath(t, filepath.Join(ctx, c))
		}, []problem{
			{c + "/1.json", "missing context: compaction 1 of 2 expected", false},
			{c + "/2.json", "missing context: compaction 2 of 2 expected", false},
		}},
		{"an extra file beyond compactions_expected", func(t *testing.T, ctx string) {
			copyFile(t, filepath.Join(ctx, c, "2.json"), filepath.Join(ctx, c, "3.json"))
		}, []problem{{c + "/3.json", "extra context: compaction 3, but the fixture expects 2", false}}},
		{"an orphan folder", func(t *testing.T, ctx string) {
			copyFile(t, filepath.Join(ctx, c, "1.json"), filepath.Join(ctx, "sess_no_such_fixture", "1.json"))
		}, []problem{{"sess_no_such_fixture", `orphan contexts: no fixture has conversation_id "sess_no_such_fixture"`, false}}},
		{"a turn beyond the fixture's turns", func(t *testing.T, ctx string) {
			setTurn(t, filepath.Join(ctx, c, "2.json"), 56) // sess_2026_02_11_6a8a has 55 turns
		}, []problem{{c + "/2.json", "turn: 56 is outside the fixture's turns 1..55", true}}},
		{"turns out of order", func(t *testing.T, ctx string) {
			setTurn(t, filepath.Join(ctx, a, "2.json"), 21) // the same as compaction 1's
		}, []problem{{a + "/2.json", "turn: 21 is not after compaction 1's turn 21: contexts out of order", true}}},
		{"an unknown role", func(t *testing.T, ctx string) {
			path := filepath.Join(ctx, a, "1.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copyBytes(t, path, []byte(strings.Replace(string(b), `"role": "user"`, `"role": "developer"`, 1)))
		}, []problem{{a + "/1.json", `messages[0].role: "developer" is not a role (want system, user, assistant or tool)`, true}}},
		{"all of them at once, one line each", func(t *testing.T, ctx string) {
			removePath(t, filepath.Join(ctx, a, "3.json"))
			setTurn(t, filepath.Join(ctx, a, "2.json"), 21)
			removePath(t, filepath.Join(ctx, b, "2.json"))
			copyFile(t, filepath.Join(ctx, c, "2.json"), filepath.Join(ctx, c, "3.json"))
			setTurn(t, filepath.Join(ctx, c, "1.json"), 0)
			copyFile(t, filepath.Join(ctx, c, "1.json"), filepath.Join(ctx, "sess_no_such_fixture", "1.json"))
		}, []problem{
			{a + "/2.json", "contexts out of order", true},
			{a + "/3.json", "missing context", false},
			{b + "/2.json", "missing context", false},
			{c + "/1.json", "turn: must be at least 1", true},
			{c + "/3.json", "extra context", false},
			{"sess_no_such_fixture", "orphan contexts", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			fixtures, contexts := copyDataset(t, contextFixtures)
			tt.damage(t, contexts)
			outDir := t.TempDir()
			out := filepath.Join(outDir, "v.jsonl")
			const previous = "previous verdicts, not to be touched\n"
			copyBytes(t, out, []byte(previous))
			stdout, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
				"--judge", "recorded", "--recorded", quarterly+"/judge/recorded.jsonl", "-o", out)
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("%d lines on stderr, want %d:\n%s", len(lines), len(tt.want), stderr)
			}
			for i, w := range tt.want {
				file := filepath.Join(contexts, filepath.FromSlash(w.file))
				prefix := "tally: " + file + ": "
				if w.pos {
					prefix = "tally: " + file + ":"
				}
				l := lines[i]
				// A problem of the file's own format (LoadContext's) names
				// the file, line, column and field, not the fixture.
				format := strings.Contains(w.has, "role") || strings.Contains(w.has, "must be at least 1")
				if !strings.HasPrefix(l, prefix) || !strings.Contains(l, w.has) || !format && !strings.Contains(l, `system "incumbent"`) {
					t.Errorf("line %d:\n%s\nwant it to start %q, name the system and say %q", i+1, l, prefix, w.has)
				}
				if id := strings.Split(w.file, "/")[0]; w.file != "sess_no_such_fixture" && !format && !strings.Contains(l, `fixture "`+id+`"`) {
					t.Errorf("line %d does not name fixture %s: %s", i+1, id, l)
				}
			}
			if got, err := os.ReadFile(out); err != nil || string(got) != previous {
				t.Errorf("the output file holds %q (err %v), want it untouched", got, err)
			}
			if names := folderNames(t, outDir); len(names) != 1 {
				t.Errorf("the output folder holds %q, want only v.jsonl", names)
			}
		})
	}
}

// TestCheckAllowMissing: with --allow-missing a missing context's items
// are error verdicts — "no context" when certainly live, "no context
// (liveness unknown)" when perhaps — written, counted, exit 4; the
// summary counts the contexts read and missing apart, the note says the
// errors are the missing contexts' (not the judge's, no re-run, no
// cache); and the other defects stay input errors.
func TestCheckAllowMissing(t *testing.T) {
	a, c := contextFixtures[0], contextFixtures[2]
	fixtures, contexts := copyDataset(t, contextFixtures)
	removePath(t, filepath.Join(contexts, a, "2.json"))
	out := filepath.Join(t.TempDir(), "v.jsonl")
	args := []string{"check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "recorded", "--recorded", quarterly + "/judge/recorded.jsonl", "--allow-missing", "-o", out}
	stdout, stderr, code := cli(t, args...)
	if code != 4 {
		t.Fatalf("exit %d, want 4 (incomplete): %s", code, stderr)
	}
	recs := readVerdicts(t, out, "incumbent")
	// The items of sess_2026_01_30_9291 at its missing compaction 2,
	// which served a turn in 22..48 (compaction 1 is at turn 21,
	// compaction 3 at 49): certainly live if stated before 22, perhaps if
	// before 48, not at all from 48 on (the old rule recorded every item
	// before 48 as certainly live).
	f, err := fixture.Load(filepath.Join(fixtures, a+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var wantIDs []string
	certain, unknown := 0, 0
	for _, it := range f[0].MustSurvive {
		switch {
		case it.Turn < 22:
			wantIDs = append(wantIDs, it.ID+" no context")
			certain++
		case it.Turn < 48:
			wantIDs = append(wantIDs, it.ID+" no context (liveness unknown)")
			unknown++
		}
	}
	var gotIDs []string
	for _, r := range recs {
		if r.ConversationID == a && r.Compaction == 2 {
			if r.Verdict != fixture.Error {
				t.Errorf("record %+v, want error", r)
			}
			gotIDs = append(gotIDs, r.ItemID+" "+r.Reason)
		}
	}
	if certain == 0 || unknown == 0 || strings.Join(gotIDs, ", ") != strings.Join(wantIDs, ", ") {
		t.Errorf("compaction 2's records are\n%v, want\n%v", gotIDs, wantIDs)
	}
	for _, want := range []string{
		"3 fixtures, 8 compacted contexts, 1 missing (--allow-missing), ",
		fmt.Sprintf("\nnote: %d error verdicts for items of missing contexts (--allow-missing), not counted as absent; %d of them \"no context (liveness unknown)\"", certain+unknown, unknown),
		"— add the missing contexts and re-run to check them\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	_, notes, _ := strings.Cut(stdout, "\nnote:")
	for _, wrong := range []string{"the judge failed", "re-run to retry", "cache"} {
		if strings.Contains(notes, wrong) {
			t.Errorf("stdout says %q of errors that are the missing context's:\n%s", wrong, stdout)
		}
	}
	if !strings.Contains(stderr, `× "no context"`) {
		t.Errorf("stderr %q", stderr)
	}
	// In JSON, the contexts read and the contexts missing.
	jsonOut, _, _ := cli(t, append(args, "--format", "json")...)
	var sum struct {
		Contexts int `json:"contexts"`
		Missing  int `json:"missing_contexts"`
		Checks   int `json:"checks"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &sum); err != nil || sum.Contexts != 8 || sum.Missing != 1 || sum.Checks != len(recs) {
		t.Errorf("JSON %+v (%v), want 8 contexts, 1 missing, %d checks", sum, err, len(recs))
	}
	// Tolerated errors: exit 0.
	if _, stderr, code := cli(t, append(args, "--max-errors", "1000")...); code != 0 {
		t.Errorf("--max-errors 1000: exit %d: %s", code, stderr)
	}
	// --allow-missing does not excuse an extra file.
	copyFile(t, filepath.Join(contexts, c, "2.json"), filepath.Join(contexts, c, "3.json"))
	if _, stderr, code := cli(t, args...); code != 1 || !strings.Contains(stderr, "extra context") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("an extra file with --allow-missing: exit %d, stderr %q; want 1 and one line", code, stderr)
	}
}

func removePath(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

// TestCheckErrorNotes: the judge's error verdicts and those of missing
// contexts get a note each; only the judge's suggest a re-run, and the
// cache only when there is one.
func TestCheckErrorNotes(t *testing.T) {
	script := writeScript(t, "cat >/dev/null\necho 'model server unreachable' >&2\nexit 1\n")
	fixtures, contexts := copyDataset(t, contextFixtures)
	removePath(t, filepath.Join(contexts, contextFixtures[0], "2.json"))
	for _, tt := range []struct {
		reason, cache string
		want, notWant string
	}{
		{"no cache: a re-run retries, nothing comes from a cache", "",
			"(the judge failed); they are not counted as absent — re-run to retry them\n", "cache)"},
		{"a cache: the completed calls come from it", filepath.Join(t.TempDir(), "cache"),
			"(the judge failed); they are not counted as absent — re-run to retry them (completed calls come from the cache)\n", ""},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			stdout, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
				"--judge", "command", "--command", script, "--cache", tt.cache, "--allow-missing", "--breaker", "0",
				"-o", filepath.Join(t.TempDir(), "v.jsonl"))
			if code != 4 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			_, notes, _ := strings.Cut(stdout, "\nnote:")
			if !strings.Contains(notes, tt.want) || (tt.notWant != "" && strings.Contains(notes, tt.notWant)) {
				t.Errorf("notes want %q, not %q:\n%s", tt.want, tt.notWant, notes)
			}
			if !strings.Contains(notes, "for items of missing contexts (--allow-missing), not counted as absent") {
				t.Errorf("no note for the missing context's errors:\n%s", notes)
			}
		})
	}
}

// TestCheckSkipOrphans: a folder drafted for more sessions than were
// reviewed holds contexts no fixture names. They are an error (the
// orphan case above) unless --skip-orphans, which leaves them unchecked
// and says how many: the check of the reviewed fixtures is the check
// without those folders, record for record.
func TestCheckSkipOrphans(t *testing.T) {
	fixtures, contexts := copyDataset(t, contextFixtures)
	plain := filepath.Join(t.TempDir(), "plain.jsonl")
	args := []string{"check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "recorded", "--recorded", quarterly + "/judge/recorded.jsonl"}
	if _, stderr, code := cli(t, append(args, "-o", plain)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, id := range []string{"sess_unreviewed_1", "sess_unreviewed_2"} {
		copyBytes(t, filepath.Join(contexts, id, "1.json"), []byte(`{"conversation_id":"`+id+`","compaction":1,"turn":2,"messages":[]}`))
	}
	out := filepath.Join(t.TempDir(), "v.jsonl")
	if _, stderr, code := cli(t, append(args, "-o", out)...); code != 1 || strings.Count(stderr, "orphan contexts") != 2 {
		t.Errorf("without --skip-orphans: exit %d, stderr %q; want 1 and both folders named", code, stderr)
	}
	stdout, stderr, code := cli(t, append(args, "-o", out, "--skip-orphans")...)
	if code != 0 {
		t.Fatalf("--skip-orphans: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, ", 2 conversations without a fixture not checked (--skip-orphans)") {
		t.Errorf("the output does not say what was left:\n%s", stdout)
	}
	a, _ := os.ReadFile(plain)
	b, _ := os.ReadFile(out)
	if string(a) != string(b) || len(a) == 0 {
		t.Errorf("the records differ from a check without the extra folders")
	}
	stdout, _, _ = cli(t, append(args, "-o", out, "--skip-orphans", "--format", "json")...)
	if !strings.Contains(stdout, `"orphans_skipped": 2`) {
		t.Errorf("JSON lacks orphans_skipped: %s", stdout)
	}
}
