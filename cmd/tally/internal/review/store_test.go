package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

// sample is a small candidates file as `tally propose` writes it:
// selection's test sample, which the review tests start from.
var sample = func() string {
	b, err := os.ReadFile("../../../../selection/testdata/candidates.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestStore(t *testing.T) {
	dir := t.TempDir()
	s := Store{Candidates: filepath.Join(dir, "c.json"), Fixture: filepath.Join(dir, "f.json")}
	p, _ := selection.ParseCandidates("c.json", []byte(sample))
	p.Candidates[1].Status = selection.ReviewAccepted
	p.Candidates[1].Expect = "develop <not main> & \"quoted\""
	p.Position = 2
	if err := s.Save(&p); err != nil {
		t.Fatal(err)
	}
	back, err := selection.LoadCandidates(s.Candidates, input.Limits{})
	if err != nil || !equalJSON(t, p, back) {
		t.Fatalf("candidates file does not read back: %v", err)
	}
	fxs, err := fixture.Load(s.Fixture)
	if err != nil || len(fxs) != 1 || len(fxs[0].MustSurvive) != 1 || fxs[0].MustSurvive[0].Expect != p.Candidates[1].Expect {
		t.Fatalf("fixture: %+v %v", fxs, err)
	}
	data, _ := os.ReadFile(s.Fixture)
	if !strings.Contains(string(data), `develop <not main> & \"quoted\"`) {
		t.Errorf("HTML characters escaped in %s", data)
	}
	// An invalid proposal is refused and leaves both files as they were.
	before, _ := os.ReadFile(s.Candidates)
	p.Candidates[0].Literal = ""
	if err := s.Save(&p); err == nil {
		t.Fatal("saved an invalid proposal")
	}
	after, _ := os.ReadFile(s.Candidates)
	if string(before) != string(after) {
		t.Error("a refused save changed the candidates file")
	}

	// The two files are one set: when the fixture cannot be written (a
	// folder stands at its path), the candidates file is not replaced
	// either, so the two never disagree.
	p.Candidates[0].Literal = "restored"
	p.Candidates[2].Status = selection.ReviewAccepted
	blocked := Store{Candidates: s.Candidates, Fixture: filepath.Join(dir, "blocked")}
	if err := os.Mkdir(blocked.Fixture, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := blocked.Save(&p); err == nil {
		t.Fatal("saved over a folder")
	}
	if after, _ := os.ReadFile(s.Candidates); string(after) != string(before) {
		t.Error("the candidates file moved on without its fixture")
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
