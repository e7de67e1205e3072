package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// The shape of the synthetic quarter.
const (
	NumSessions = 20_000 // sessions in sessions.jsonl
	Weeks       = 13     // the quarter

	// CompactionThreshold is the context budget: a compaction runs at the
	// start of the first turn whose context has reached it.
	CompactionThreshold = 160_000
	// ModelWindow is the most the model accepts: a session whose
	// uncompacted transcript exceeds it cannot be replayed without
	// compaction, so its replay reference is an accepted trace.
	ModelWindow = 500_000

	baseTokens   = 6_500 // system prompt and tool definitions
	maxTurns     = 420
	medianTurns  = 12.0
	turnsSigma   = 1.0
	medianRate   = 6_700.0 // a session's median tokens per turn
	rateSigma    = 0.55
	perTurnSigma = 0.7
	maxTurnCost  = 40_000
)

// QuarterStart is the Monday the synthetic quarter begins (00:00 UTC).
var QuarterStart = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

// SessionItem is one item a session summary reports: its class and the
// turn it was stated at.
type SessionItem struct {
	Class fixture.Class
	Turn  int
}

// Session is one session of the quarter, as sessions.jsonl reports it,
// with what the generator knows besides.
type Session struct {
	ID          string
	Turns       int
	Started     time.Time
	Incident    bool
	Compactions []int // the turns at which a compaction ran, ascending
	Items       []SessionItem
	// Unannotated are items the summary lists besides Items that no
	// annotation kept: only fixture sessions have them (see
	// addUnannotated), and only sessions.jsonl shows them.
	Unannotated []SessionItem
	// CountsOnly marks a session whose summary reports only the number
	// of compactions and items (an older client), not their turns.
	CountsOnly bool

	TotalTokens int  // the uncompacted transcript's size
	Logged      bool // its full event log is in events/
	Fixture     bool // one of the 40 fixture conversations
}

// Week is the week of the quarter the session started in, 1..Weeks.
func (s *Session) Week() int {
	w := int(s.Started.Sub(QuarterStart).Hours()/(24*7)) + 1
	return min(max(w, 1), Weeks)
}

// listed is every item the session's summary lists, annotated or not, in
// turn order.
func (s *Session) listed() []SessionItem {
	if len(s.Unannotated) == 0 {
		return s.Items
	}
	all := append(append([]SessionItem{}, s.Items...), s.Unannotated...)
	sortItems(all)
	return all
}

// nextCompaction is the first compaction turn after turn t, or Turns+1.
func (s *Session) nextCompaction(t int) int {
	for _, c := range s.Compactions {
		if c > t {
			return c
		}
	}
	return s.Turns + 1
}

// lastCompactionAtOrBefore is the latest compaction turn ≤ t, or 0.
func (s *Session) lastCompactionAtOrBefore(t int) int {
	last := 0
	for _, c := range s.Compactions {
		if c <= t {
			last = c
		}
	}
	return last
}

// drawSessions draws the quarter's sessions, sorted by start time, with
// unique ids of the form sess_YYYY_MM_DD_xxxx.
func drawSessions(seed uint64) []*Session {
	r := stream(seed, "sessions")
	ss := make([]*Session, NumSessions)
	for i := range ss {
		ss[i] = drawSession(r)
	}
	slices.SortStableFunc(ss, func(a, b *Session) int { return a.Started.Compare(b.Started) })
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		for {
			id := fmt.Sprintf("sess_%s_%04x", s.Started.Format("2006_01_02"), r.IntN(1<<16))
			if !seen[id] {
				seen[id] = true
				s.ID = id
				break
			}
		}
	}
	return ss
}

// drawSession draws one session: a heavy-tailed length, compactions
// driven by the tokens each turn adds against the context budget, and
// items whose density and class mix vary by session.
func drawSession(r *rand.Rand) *Session {
	s := &Session{}
	s.Turns = min(max(int(math.Round(logNormal(r, medianTurns, turnsSigma))), 1), maxTurns)
	s.Started = drawStart(r)

	// Tokens: each session has its own rate (file-heavy sessions read a
	// lot), and each turn varies around it.
	rate := logNormal(r, medianRate, rateSigma)
	ctx, total := baseTokens, baseTokens
	for t := 1; t <= s.Turns; t++ {
		if ctx >= CompactionThreshold {
			s.Compactions = append(s.Compactions, t)
			ctx = between(r, 9_000, 19_000) // the compacted context
		}
		cost := min(max(int(logNormal(r, rate, perTurnSigma)), 200), maxTurnCost)
		ctx += cost
		total += cost
	}
	s.TotalTokens = total

	s.Items = drawItems(r, s.Turns)
	return s
}

// classWeights is the quarter's average class mix of items.
var classWeights = map[fixture.Class]float64{
	fixture.Constraint: 0.30, fixture.Commitment: 0.20, fixture.OpenQuestion: 0.30, fixture.Reference: 0.20,
}

// drawItems draws a session's items: a density per turn and a class mix
// of the session's own, constraints stated early, at distinct turns ≥ 2
// (turn 1 states the task).
func drawItems(r *rand.Rand, turns int) []SessionItem {
	if turns < 2 {
		return nil
	}
	density := logNormal(r, 0.07, 0.6)
	n := min(poisson(r, density*float64(turns)), turns-1, 40)
	w := make([]float64, len(fixture.Classes))
	for i, c := range fixture.Classes {
		w[i] = classWeights[c] * logNormal(r, 1, 0.6)
	}
	used := make(map[int]bool, n)
	var items []SessionItem
	for len(items) < n {
		c := fixture.Classes[weighted(r, w)]
		u := r.Float64()
		if c == fixture.Constraint {
			u *= u // constraints come early
		}
		t := 2 + int(u*float64(turns-1))
		if t > turns || used[t] {
			continue
		}
		used[t] = true
		items = append(items, SessionItem{c, t})
	}
	sortItems(items)
	return items
}

func sortItems(items []SessionItem) {
	slices.SortFunc(items, func(a, b SessionItem) int { return a.Turn - b.Turn })
}

// drawStart draws a start time in the quarter: weekdays busier than
// weekends, working hours (UTC) busier than nights.
func drawStart(r *rand.Rand) time.Time {
	var day int
	for {
		day = r.IntN(Weeks * 7)
		if wd := QuarterStart.AddDate(0, 0, day).Weekday(); wd != time.Saturday && wd != time.Sunday || chance(r, 0.35) {
			break
		}
	}
	hour := 14 + 3.5*r.NormFloat64()
	for hour < 0 || hour >= 24 {
		hour = 14 + 3.5*r.NormFloat64()
	}
	sec := int(hour * 3600)
	return QuarterStart.AddDate(0, 0, day).Add(time.Duration(sec) * time.Second)
}

// sessionLine is one line of sessions.jsonl. Compactions and Items are
// either a list of {"turn"} / {"class","turn"} or a count.
type sessionLine struct {
	SessionID   string `json:"session_id"`
	Turns       int    `json:"turns"`
	Started     string `json:"started,omitempty"`
	Incident    bool   `json:"incident,omitempty"`
	Compactions any    `json:"compactions"`
	Items       any    `json:"items"`
}

type turnJSON struct {
	Turn int `json:"turn"`
}

type itemJSON struct {
	Class fixture.Class `json:"class"`
	Turn  int           `json:"turn"`
}

// sessionsJSONL renders sessions.jsonl.
func sessionsJSONL(ss []*Session) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, s := range ss {
		l := sessionLine{SessionID: s.ID, Turns: s.Turns, Started: s.Started.Format(time.RFC3339), Incident: s.Incident}
		if s.CountsOnly {
			l.Compactions, l.Items = len(s.Compactions), len(s.listed())
		} else {
			cs := make([]turnJSON, len(s.Compactions))
			for i, c := range s.Compactions {
				cs[i] = turnJSON{c}
			}
			all := s.listed()
			is := make([]itemJSON, len(all))
			for i, it := range all {
				is[i] = itemJSON(it)
			}
			l.Compactions, l.Items = cs, is
		}
		if err := enc.Encode(l); err != nil {
			return nil, fmt.Errorf("sessions.jsonl: %s: %w", s.ID, err)
		}
	}
	return buf.Bytes(), nil
}
