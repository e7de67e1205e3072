package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/draft"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

// draftQuarterJudge is the key-word judge of the drafted quarters.
const draftQuarterJudge = "testdata/draftquarter/judge.sh"

// The two systems of a drafted quarter: the summariser that ran in the
// session, whose real contexts fixtures draft wrote, and a candidate
// whose contexts are the same with one sentence taken out of each
// summary.
const (
	draftIncumbent = "claude-code-compact"
	draftCandidate = "trimmed-summary"
)

// draftedQuarter is what draftQuarter made.
type draftedQuarter struct {
	dir      string
	fixture  fixture.Fixture
	contexts []fixture.Context // the incumbent's
	removed  string            // the literal whose sentence the candidate lost
	checks   map[string]checkOut
	// verdicts[system][item id] lists the verdict at each compaction
	// checked, in order, as "n:verdict".
	verdicts map[string]map[string][]string
	reportMD string
	headline string
}

// draftQuarter runs the whole path on one session: fixtures draft →
// review under a pseudo-terminal (accept the first accept candidates,
// reject the next one, quit) → check of the incumbent's real contexts and
// of the candidate's with the command judge → report.
func draftQuarter(t *testing.T, session string, accept int) draftedQuarter {
	t.Helper()
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	q := draftedQuarter{dir: t.TempDir(), checks: map[string]checkOut{}, verdicts: map[string]map[string][]string{}}
	drafts := filepath.Join(q.dir, "drafts")

	// 1. fixtures draft.
	out, errOut, code := cli(t, "fixtures", "draft", session, "-o", drafts, "--format", "json")
	if code != exitOK {
		t.Fatalf("fixtures draft: exit %d\n%s", code, errOut)
	}
	var res draftJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Drafted != 1 {
		t.Fatalf("fixtures draft: %d drafted, %v\n%s", res.Drafted, err, out)
	}
	id := res.Sessions[0].ConversationID
	cands := res.Sessions[0].CandidatesFile
	p, err := selection.LoadCandidates(cands, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Candidates) == 0 {
		t.Fatalf("%s: no candidates to review", session)
	}

	// 2. review, keys typed at a pseudo-terminal as a person would.
	fx := filepath.Join(q.dir, "fixtures", id+".json")
	if err := os.MkdirAll(filepath.Dir(fx), 0o755); err != nil {
		t.Fatal(err)
	}
	accept = min(accept, len(p.Candidates))
	r := startPTY(t, tallyProgram(t), "review", cands, "-o", fx)
	for i := 0; i < accept; i++ {
		r.expect(fmt.Sprintf("item %d of %d · %s", i+1, len(p.Candidates), p.Candidates[i].ID))
		r.send("a")
	}
	if accept < len(p.Candidates) {
		r.expect(fmt.Sprintf("item %d of %d", accept+1, len(p.Candidates)))
		r.send("r")
		// A key waits for the screen its last one drew: keys that come
		// together in one read are a paste, which decides nothing.
		r.expect("rejected")
	} else {
		r.expect("Review complete.")
	}
	r.send("q")
	if code := r.exit(); code != 0 {
		t.Fatalf("review: exit %d", code)
	}
	fxs, err := fixture.Load(fx)
	if err != nil {
		t.Fatalf("the reviewed fixture does not load: %v", err)
	}
	q.fixture = fxs[0]
	if len(q.fixture.MustSurvive) != accept {
		t.Fatalf("the fixture holds %d items, want the %d accepted", len(q.fixture.MustSurvive), accept)
	}

	// 3. The candidate's contexts: the incumbent's, with the sentence of
	// one item found verbatim taken out of every summary.
	incumbent := filepath.Join(drafts, "contexts")
	for n := 1; n <= q.fixture.CompactionsExpected; n++ {
		c, err := fixture.LoadContext(filepath.Join(incumbent, id, fmt.Sprint(n)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		q.contexts = append(q.contexts, c)
	}
	q.removed = verbatimLiteral(q.fixture, q.contexts)
	if q.removed == "" {
		t.Fatalf("no accepted item is verbatim in the incumbent's contexts: nothing for the candidate to lose")
	}
	candidate := filepath.Join(q.dir, "candidate-contexts")
	copyTree(t, incumbent, candidate)
	for n := 1; n <= q.fixture.CompactionsExpected; n++ {
		path := filepath.Join(candidate, id, fmt.Sprint(n)+".json")
		var raw map[string]any
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		msgs := raw["messages"].([]any)
		first := msgs[0].(map[string]any)
		first["content"] = removeSentence(first["content"].(string), q.removed)
		data, _ = json.MarshalIndent(raw, "", "  ")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// 4. check, both systems, with the key-word judge.
	table := judgeTable(t, q.dir, q.fixture)
	for sys, contexts := range map[string]string{draftIncumbent: incumbent, draftCandidate: candidate} {
		verdicts := filepath.Join(q.dir, "verdicts", sys+".jsonl")
		out, errOut, code := cli(t, "check", "--fixtures", filepath.Join(q.dir, "fixtures"), "--contexts", contexts,
			"--system", sys, "--judge", "command", "--command", draftQuarterJudge, "--command-arg", table,
			"--cache", "", "-o", verdicts, "--format", "json")
		if code != exitOK {
			t.Fatalf("check %s: exit %d\n%s", sys, code, errOut)
		}
		var got checkOut
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("check %s: %v\n%s", sys, err, out)
		}
		q.checks[sys] = got
		q.verdicts[sys] = readDraftVerdicts(t, verdicts)
	}

	// 5. report.
	config := filepath.Join(q.dir, "report.yaml")
	yaml := fmt.Sprintf(`title: "Fixtures drafted from a real session"
period: drafted
fixtures: fixtures
systems:
  incumbent:
    name: %s
    verdicts: verdicts/%s.jsonl
  candidate:
    name: %s
    verdicts: verdicts/%s.jsonl
gates:
  max_contradictions: 0
# One drafted session is one conversation: no test can see a drop in it,
# so the count rule decides (every lost item is worse).
regression:
  rule: count
`, draftIncumbent, draftIncumbent, draftCandidate, draftCandidate)
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(q.dir, "report")
	out, errOut, code = cli(t, "report", config, "-o", outDir)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	q.headline, _, _ = strings.Cut(out, "\n")
	md, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	q.reportMD = string(md)
	return q
}

// verbatimLiteral is the literal of the first accepted item found
// verbatim in an incumbent context where it is live, constraints first.
func verbatimLiteral(f fixture.Fixture, contexts []fixture.Context) string {
	items := slices.Clone(f.MustSurvive)
	slices.SortStableFunc(items, func(a, b fixture.Item) int {
		return btoi(b.Class == fixture.Constraint) - btoi(a.Class == fixture.Constraint)
	})
	for _, it := range items {
		for _, c := range contexts {
			if it.LiveAt(c) && fixture.IsVerbatim(fixture.Render(c), it.Literal) {
				return it.Literal
			}
		}
	}
	return ""
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// removeSentence takes out of text every sentence holding literal: from
// after the previous ". " or line break to the next ". " or line break.
func removeSentence(text, literal string) string {
	for {
		i := strings.Index(text, literal)
		if i < 0 {
			return text
		}
		start := max(strings.LastIndex(text[:i], ". ")+2, strings.LastIndex(text[:i], "\n")+1)
		rest := text[i+len(literal):]
		end := len(text)
		if j := strings.Index(rest, ". "); j >= 0 {
			end = i + len(literal) + j + 2
		}
		if j := strings.Index(rest, "\n"); j >= 0 && i+len(literal)+j < end {
			end = i + len(literal) + j
		}
		text = text[:start] + text[end:]
	}
}

// judgeStop are words too common to be an item's key word.
var judgeStop = map[string]bool{"will": true, "shall": true, "would": true, "that": true, "this": true, "with": true,
	"from": true, "have": true, "your": true, "into": true, "then": true, "than": true}

// judgeTable writes the key-word judge's table for f's items and returns
// its path.
func judgeTable(t *testing.T, dir string, f fixture.Fixture) string {
	t.Helper()
	var b strings.Builder
	for _, it := range f.MustSurvive {
		var words, all []string
		for _, w := range strings.FieldsFunc(strings.ToLower(it.Literal), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' && r != '/'
		}) {
			w = strings.Trim(w, ".-/")
			if w != "" {
				all = append(all, w)
			}
			if len([]rune(w)) >= 4 && !judgeStop[w] && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		if len(words) == 0 { // "PR #12": its short words, else the literal's one character
			words = all
		}
		if len(words) == 0 {
			words = []string{strings.ToLower(strings.TrimSpace(it.Literal))[:1]}
		}
		expect, _ := json.Marshal(it.Expect)
		probe := strings.ReplaceAll(it.Probe, "\t", " ")
		fmt.Fprintf(&b, "%s\t%s\t%s\n", probe, strings.Join(words, " "), strings.ReplaceAll(string(expect[1:len(expect)-1]), "\t", " "))
	}
	path := filepath.Join(dir, "judge.tsv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readDraftVerdicts reads a verdict file into item id → "n:verdict" in order.
func readDraftVerdicts(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r fixture.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[r.ItemID] = append(out[r.ItemID], fmt.Sprintf("%d:%s", r.Compaction, r.Verdict))
	}
	for id := range out {
		slices.Sort(out[id])
	}
	return out
}

// itemWith returns the id of the fixture item whose literal contains s.
func (q draftedQuarter) itemWith(t *testing.T, s string) string {
	t.Helper()
	for _, it := range q.fixture.MustSurvive {
		if strings.Contains(it.Literal, s) {
			return it.ID
		}
	}
	t.Fatalf("no item of the fixture holds %q: %+v", s, q.fixture.MustSurvive)
	return ""
}

// TestDraftQuarter runs the testdata session (draft/testdata/two.jsonl,
// gzipped; README's example) through draft, review, check and report. The
// session (two compactions: an automatic one inside
// typed turn 2, a manual /compact before turn 5) was written so that each
// verdict below is known by reading it: both summaries keep the ground
// rule and retry.go:88 word for word and drop ticket SYNC-482; the
// pull-request promise comes after the first compaction, and the staging
// URL after it too, so they are checked at the second only.
func TestDraftQuarter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tally review under a pseudo-terminal")
	}
	q := draftQuarter(t, "testdata/draftquarter/session.jsonl.gz", 100)
	inc, cand := q.verdicts[draftIncumbent], q.verdicts[draftCandidate]
	tests := []struct {
		literal string
		want    []string // the incumbent's verdicts at each compaction checked
		reason  string
	}{
		{"never push to main", []string{"1:verbatim", "2:verbatim"}, "in both summaries word for word"},
		{"retry.go:88", []string{"1:verbatim", "2:verbatim"}, "in both summaries word for word"},
		{"SYNC-482", []string{"1:absent", "2:absent"}, "neither summary names the ticket"},
		{"open the pull request", []string{"2:supported"}, "said after the first compaction; the second summary says it in other words"},
		{"staging.example.com", []string{"2:verbatim"}, "said after the first compaction"},
	}
	for _, tt := range tests {
		id := q.itemWith(t, tt.literal)
		if !slices.Equal(inc[id], tt.want) {
			t.Errorf("%s (%q): incumbent %v, want %v (%s)", id, tt.literal, inc[id], tt.want, tt.reason)
		}
	}
	if q.removed != "never push to main without asking me first" {
		t.Errorf("the candidate lost %q, want the ground rule", q.removed)
	}
	if id := q.itemWith(t, "never push to main"); !slices.Equal(cand[id], []string{"1:absent", "2:absent"}) {
		t.Errorf("the candidate's verdicts on the ground rule: %v, want absent at both", cand[id])
	}
	checks := 0
	for _, c := range q.contexts {
		for _, it := range q.fixture.MustSurvive {
			if it.LiveAt(c) {
				checks++
			}
		}
	}
	for sys, c := range q.checks {
		if c.Fixtures != 1 || c.Contexts != 2 || c.Checks != checks || c.class(t, "all").Error != 0 {
			t.Errorf("check %s: %d fixtures, %d contexts, %d checks, %d errors; want 1, 2, %d, 0", sys, c.Fixtures, c.Contexts, c.Checks, c.class(t, "all").Error, checks)
		}
	}
	if !strings.HasPrefix(q.headline, "verdict: blocks") || !strings.Contains(q.headline, "constraint") {
		t.Errorf("report's first line %q: want the candidate blocked on constraints", q.headline)
	}
	for _, want := range []string{draftIncumbent, draftCandidate, "Fixtures drafted from a real session"} {
		if !strings.Contains(q.reportMD, want) {
			t.Errorf("report.md does not show %q", want)
		}
	}
	// A class the fixture has no items of is said, but its row is not
	// gated (gates.retained is not set), so it is not said it cannot pass.
	for _, cl := range fixture.Classes {
		if slices.ContainsFunc(q.fixture.MustSurvive, func(it fixture.Item) bool { return it.Class == cl }) {
			continue
		}
		// Markdown escapes the class's underscore.
		w := strings.ReplaceAll(fmt.Sprintf("has no %s items checked", cl), "_", `\_`)
		if !strings.Contains(q.reportMD, w) {
			t.Errorf("report.md does not say %q", w)
		}
	}
	if strings.Contains(q.reportMD, "cannot pass") {
		t.Errorf("report.md says a row with no gate cannot pass")
	}
}

// TestDraftQuarterReal does the same on a real session of the folder
// TALLY_REAL_LOGS names: the first one (by name) with two compactions or
// more, else one, that the candidate can lose an item in.
func TestDraftQuarterReal(t *testing.T) {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Skip("TALLY_REAL_LOGS is not set: it names the folder of real Claude Code sessions (../shared/real/claude-code)")
	}
	if testing.Short() {
		t.Skip("runs tally review under a pseudo-terminal")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
	slices.Sort(files)
	// The first session with two compactions or more (else one) whose
	// first accepted items hold one found verbatim where it is live: one
	// the candidate can lose.
	const accept = 25
	rules := func(p *agentlog.Session) (selection.Proposal, error) {
		return selection.Propose(p, selection.ProposeOptions{MinConfidence: selection.DefaultMinConfidence}), nil
	}
	var session string
	var s *agentlog.Session
	for _, least := range []int{2, 1} {
		for _, f := range files {
			ss, err := agentlog.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(ss.Compactions) < least {
				continue
			}
			d, err := draft.Build(ss, rules)
			if err != nil {
				continue
			}
			fx := fixture.Fixture{MustSurvive: []fixture.Item{}}
			for _, c := range d.Candidates.Candidates[:min(accept, len(d.Candidates.Candidates))] {
				fx.MustSurvive = append(fx.MustSurvive, c.Item())
			}
			if verbatimLiteral(fx, d.Contexts) != "" {
				session, s = f, ss
				break
			}
		}
		if session != "" {
			break
		}
	}
	if session == "" {
		t.Fatalf("no session in %s has a compaction and a proposed item its summary keeps verbatim", dir)
	}
	t.Logf("session %s", session)
	q := draftQuarter(t, session, accept)
	// The incumbent's contexts are the log's own summaries.
	for n, c := range q.contexts {
		if got := c.Messages[0].Parts[0].Text; got != s.Compactions[n].Summary {
			t.Errorf("context %d does not start with the log's summary %d", n+1, n+1)
		}
	}
	checks := 0
	for _, c := range q.contexts {
		for _, it := range q.fixture.MustSurvive {
			if it.LiveAt(c) {
				checks++
			}
		}
	}
	inc, cand := q.checks[draftIncumbent], q.checks[draftCandidate]
	if inc.Checks != checks || cand.Checks != checks || inc.class(t, "all").Error != 0 || cand.class(t, "all").Error != 0 {
		t.Errorf("checks: incumbent %d, candidate %d (errors %d, %d); want %d each, no error",
			inc.Checks, cand.Checks, inc.class(t, "all").Error, cand.class(t, "all").Error, checks)
	}
	if inc.class(t, "all").Retained <= cand.class(t, "all").Retained {
		t.Errorf("the candidate lost %q but retains %d items against the incumbent's %d", q.removed, cand.class(t, "all").Retained, inc.class(t, "all").Retained)
	}
	if !strings.HasPrefix(q.headline, "verdict: blocks") {
		t.Errorf("report's first line %q: want the candidate blocked", q.headline)
	}
	if !strings.Contains(q.reportMD, draftIncumbent) || !strings.Contains(q.reportMD, draftCandidate) {
		t.Errorf("report.md does not name both systems")
	}
	t.Logf("%d items accepted, %d checks; retained: incumbent %d, candidate %d; removed %q",
		len(q.fixture.MustSurvive), checks, inc.class(t, "all").Retained, cand.class(t, "all").Retained, q.removed)
}
