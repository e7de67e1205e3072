package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/tally-eval/tally/fixture"
)

// Quarter is a generated quarter: what the generator knows, and the
// files it writes (paths relative to the output folder).
type Quarter struct {
	Seed uint64
	// ClaudeCode: the event logs are written in Claude Code's session
	// format (claudecode.go), not in tally's own event format.
	ClaudeCode bool
	ccLogs     map[string]*ccSession // the logs as written, by session (ClaudeCode only)
	Sessions   []*Session
	Fixtures   []*conv // sorted by conversation id
	Logs       []*sessionLog
	Built      map[string][]*builtContext // by system
	Rerun      rerunFit                   // what the rerun's calibration solved (rerun.go)
	Replay     []replayLine
	Incidents  int
	Tied       string // an incident tied with the weakest fixture, left out by the tie-break ("" if none)
	Files      []File
}

// Generate builds the whole quarter from one seed, its event logs in the
// committed data's format (DefaultFormat).
func Generate(seed uint64) (*Quarter, error) {
	return generate(seed, DefaultFormat == FormatClaudeCode)
}

// generate builds the whole quarter from one seed, its event logs in
// Claude Code's format when cc is set.
func generate(seed uint64, cc bool) (*Quarter, error) {
	q := &Quarter{Seed: seed, ClaudeCode: cc, Built: make(map[string][]*builtContext)}
	ss := drawSessions(seed)
	q.Sessions = ss
	fixtures, err := designFixtures(seed, ss)
	if err != nil {
		return nil, err
	}
	q.Incidents, q.Tied = chooseIncidents(seed, ss, fixtures)
	// The fixture sessions' unannotated items, after the incidents are
	// chosen: they only add decisions to fixtures, except to the fixture
	// the tied incident ties with, which keeps its decisions.
	keep := ""
	if q.Tied != "" {
		dmin := math.MaxInt
		for _, f := range fixtures {
			dmin = min(dmin, Decisions(f))
		}
		for _, f := range fixtures {
			if Decisions(f) == dmin && f.ID > keep {
				keep = f.ID
			}
		}
	}
	addUnannotated(seed, fixtures, keep)
	for _, f := range fixtures {
		if err := checkUnannotated(f); err != nil {
			return nil, err
		}
	}
	top := RankForFixtures(ss, FixtureBudget+1)
	for i, s := range top[:FixtureBudget] {
		if !s.Fixture {
			return nil, fmt.Errorf("the ranking's #%d, %s, is not a designed fixture", i+1, s.ID)
		}
	}
	if q.Tied != "" && (top[FixtureBudget].ID != q.Tied || Decisions(top[FixtureBudget]) != Decisions(top[FixtureBudget-1])) {
		return nil, fmt.Errorf("the ranking's #%d is %s, not the tied incident %s", FixtureBudget+1, top[FixtureBudget].ID, q.Tied)
	}

	// Full logs for every incident and a uniform sample of the rest;
	// counts-only summaries for a tenth of the sessions without logs.
	r := stream(seed, "logged")
	var rest []*Session
	n := 0
	for _, s := range ss {
		if s.Incident {
			s.Logged = true
			n++
		} else {
			rest = append(rest, s)
		}
	}
	r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	for _, s := range rest[:NumLogged-n] {
		s.Logged = true
	}
	r = stream(seed, "counts-only")
	for _, s := range ss {
		if !s.Logged && !s.Incident && chance(r, 0.1) {
			s.CountsOnly = true
		}
	}

	// Item texts and event logs.
	fixtureLiterals := make(map[string]bool)
	maxRecent := 0
	for _, sm := range summarisers {
		maxRecent = max(maxRecent, sm.Recent)
	}
	avoid := make(map[string]func(int) bool)
	for _, s := range ss {
		if !s.Logged {
			continue
		}
		th := newTheme(stream(seed, "theme/"+s.ID))
		var used map[string]bool
		if s.Fixture {
			used = fixtureLiterals
			s := s
			avoid[s.ID] = func(t int) bool {
				for _, c := range s.Compactions {
					if t >= c-maxRecent && t < c {
						return true
					}
				}
				return false
			}
		}
		items := drawTexts(seed, s, th, used)
		q.Logs = append(q.Logs, newSessionLog(seed, s, items, th, cc))
	}
	injectSignals(seed, q.Logs, avoid)
	injectWorkRepeats(seed, q.Logs)

	// Fixtures.
	for _, l := range q.Logs {
		if !l.s.Fixture {
			continue
		}
		cv := &conv{s: l.s, log: l, items: l.items}
		cv.fx = fixture.Fixture{ConversationID: l.s.ID, Turns: l.s.Turns, CompactionsExpected: len(l.s.Compactions)}
		for i, it := range l.items {
			cv.fx.MustSurvive = append(cv.fx.MustSurvive, fixture.Item{ID: fmt.Sprintf("c%d", i+1), Class: it.Class,
				Turn: l.s.Items[i].Turn, Literal: it.Literal, Probe: it.Probe, Expect: it.Expect})
		}
		if err := cv.fx.Validate(); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", l.s.ID, err)
		}
		q.Fixtures = append(q.Fixtures, cv)
	}
	slices.SortFunc(q.Fixtures, func(a, b *conv) int { return cmp.Compare(a.s.ID, b.s.ID) })

	// Compacted contexts: the two systems', then the incumbent's rerun,
	// drawn from the incumbent's outcomes (rerun.go).
	chains := make(map[string][]*chain)
	for _, sm := range summarisers {
		chains[sm.Name], err = assignOutcomes(seed, sm, q.Fixtures)
		if err != nil {
			return nil, err
		}
	}
	chains[SystemRerun], q.Rerun, err = assignRerun(seed, chains[SystemIncumbent])
	if err != nil {
		return nil, err
	}
	for _, sm := range append(summarisers, rerunSummariser()) {
		built, err := buildContexts(seed, sm, q.Fixtures, chains[sm.Name])
		if err != nil {
			return nil, err
		}
		q.Built[sm.Name] = built
	}
	q.Replay = replayPairs(seed, ss)
	if err := q.files(); err != nil {
		return nil, err
	}
	return q, nil
}

// drawTexts draws the texts of a session's items: no two of one session
// on the same topic when it can be helped, never the same literal twice,
// and, with used, no literal any other fixture has.
func drawTexts(seed uint64, s *Session, th *theme, used map[string]bool) []itemText {
	r := stream(seed, "items/"+s.ID)
	topics := make(map[string]bool)
	literals := make(map[string]bool)
	var out []itemText
	for _, it := range s.Items {
		var t itemText
		for attempt := 0; ; attempt++ {
			t = drawItem(r, th, it.Class)
			if literals[t.Literal] || used[t.Literal] || topics[topic(t)] && attempt < 200 {
				continue
			}
			break
		}
		topics[topic(t)], literals[t.Literal] = true, true
		if used != nil {
			used[t.Literal] = true
		}
		out = append(out, t)
	}
	return out
}

// topic is the template-level part of an item's topic ("forbidden" of
// "forbidden:/migrations"), so one conversation does not ask two
// questions from one template.
func topic(t itemText) string {
	before, _, _ := strings.Cut(t.Topic, ":")
	return before
}

// files renders every output file.
func (q *Quarter) files() error {
	add := func(p string, data []byte, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		q.Files = append(q.Files, File{p, data})
		return nil
	}
	data, err := sessionsJSONL(q.Sessions)
	if err := add("sessions.jsonl", data, err); err != nil {
		return err
	}
	weeks := make([][]byte, Weeks+1)
	if q.ClaudeCode {
		logs, ws, err := q.claudeCodeLogs()
		if err != nil {
			return err
		}
		if err := q.locateTruth(logs); err != nil {
			return err
		}
		q.ccLogs, weeks = logs, ws
	} else {
		bufs := make([]bytes.Buffer, Weeks+1)
		for _, l := range q.Logs {
			if err := l.writeEvents(q.Seed, &bufs[l.s.Week()]); err != nil {
				return err
			}
		}
		for w := 1; w <= Weeks; w++ {
			weeks[w] = bufs[w].Bytes()
		}
	}
	if q.ClaudeCode { // the weeks compressed side by side
		errs := make([]error, Weeks+1)
		var wg sync.WaitGroup
		for w := 1; w <= Weeks; w++ {
			wg.Go(func() { weeks[w], errs[w] = gzipBytes(weeks[w]) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	for w := 1; w <= Weeks; w++ {
		q.Files = append(q.Files, File{q.WeekFile(w), weeks[w]})
	}
	data, err = truthJSONL(q.Logs)
	if err := add("events/truth.jsonl", data, err); err != nil {
		return err
	}
	for _, cv := range q.Fixtures {
		data, err := fixtureJSON(cv.fx)
		if err := add("fixtures/"+cv.s.ID+".json", data, err); err != nil {
			return err
		}
	}
	var sizes []promptSize
	for _, sys := range Systems {
		for _, bc := range q.Built[sys] {
			data, err := contextJSON(bc.JSON)
			if err := add(path.Join("contexts", sys, bc.Conv.s.ID, fmt.Sprintf("%d.json", bc.J)), data, err); err != nil {
				return err
			}
			sizes = append(sizes, promptSize{sys, bc.Conv.s.ID, bc.J, EstimateTokens(bc.Rendered)})
		}
	}
	var recs bytes.Buffer
	w := fixture.NewRecordWriter(&recs)
	for _, sys := range Systems {
		for _, rec := range records(q.Built[sys]) {
			if err := w.Write(rec); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	q.Files = append(q.Files, File{"judge/recorded.jsonl", recs.Bytes()})
	data, err = q.reviewsJSONL()
	if err := add("reviews.jsonl", data, err); err != nil {
		return err
	}
	data, err = jsonl(q.Replay)
	if err := add("replay.jsonl", data, err); err != nil {
		return err
	}
	data, err = jsonl(sizes)
	if err := add("prompt_sizes.jsonl", data, err); err != nil {
		return err
	}
	readme, err := q.readme(sizes)
	if err := add("README.md", readme, err); err != nil {
		return err
	}
	slices.SortFunc(q.Files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return nil
}

// promptSize is one line of prompt_sizes.jsonl.
type promptSize struct {
	System         string `json:"system"`
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	PromptTokens   int    `json:"prompt_tokens"`
}

// WeekFile is the path of week w's event log under the output folder:
// events/week-NN.jsonl in tally's own format; events/week-NN.jsonl.gz in
// Claude Code's, gzipped, since its records are some six times the size
// and the committed data stays under 30 MB (tally reads either the same
// way: the gzip magic bytes decide, not the name).
func (q *Quarter) WeekFile(w int) string {
	if q.ClaudeCode {
		return fmt.Sprintf("events/week-%02d.jsonl.gz", w)
	}
	return fmt.Sprintf("events/week-%02d.jsonl", w)
}

// gzipBytes compresses data with a header that names no file and no
// time, so the same data gives the same bytes.
func gzipBytes(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
