package selection

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tally-eval/tally/internal/input"
)

// Defaults of a selection, as `tally select` uses them.
const (
	DefaultMinutesPerFixture = ReviewMinutes
	DefaultCompareRandom     = SameSize
	DefaultDraws             = 1000
)

// SameSize as Config.CompareRandom draws random samples of as many
// sessions as were selected, so that every total of the comparison is
// set against totals of the same number of sessions.
const SameSize = -1

// maxSampled bounds the sessions the random comparison keeps in its
// reservoirs (draws × sample size; random.go).
const maxSampled = 1 << 22

// Config says how to select.
type Config struct {
	// Budget is the most sessions to select; BudgetHours the most
	// annotation hours, by the model of AnnotationMinutes at
	// MinutesPerFixture. Exactly one of them is positive.
	Budget            int
	BudgetHours       float64
	MinutesPerFixture float64
	// CompareRandom is the size of the random samples the selection is
	// compared with (SameSize: as many as were selected; 0: no
	// comparison), and Draws how many are drawn.
	CompareRandom int
	Draws         int
	// Seed seeds the draws (its bits: -1 and 2⁶⁴−1 are one seed).
	Seed int64
	// SkipBad makes Select skip a malformed line (counting it and
	// reporting it as a warning) instead of failing at it.
	SkipBad bool
	// Limits.MaxLine bounds each line (0: MaxLineBytes); a longer one is
	// a malformed line. Limits.MaxFile is for the caller that opens the
	// file (input.Open): Select reads a stream.
	Limits input.Limits
	// Incidents names sessions to take as incidents besides those a
	// summary marks (ReadIncidents: the sessions `tally signals`
	// flagged). A name no session read has is said in the warnings.
	Incidents map[string]bool
}

// DefaultConfig is `tally select`'s configuration for a budget of n
// sessions.
func DefaultConfig(n int) Config {
	return Config{Budget: n, MinutesPerFixture: DefaultMinutesPerFixture,
		CompareRandom: DefaultCompareRandom, Draws: DefaultDraws, Seed: 1}
}

// Validate reports a configuration that cannot select.
func (c Config) Validate() error {
	switch {
	case c.Budget < 0 || c.BudgetHours < 0 || math.IsNaN(c.BudgetHours) || math.IsInf(c.BudgetHours, 0):
		return fmt.Errorf("the budget must be positive, got %d sessions, %v hours", c.Budget, c.BudgetHours)
	case (c.Budget > 0) == (c.BudgetHours > 0):
		return errors.New("give exactly one budget: in sessions or in hours")
	case !(c.MinutesPerFixture > 0) || math.IsInf(c.MinutesPerFixture, 0):
		return fmt.Errorf("minutes per fixture must be positive, got %v", c.MinutesPerFixture)
	case c.CompareRandom < SameSize:
		return fmt.Errorf("the random comparison size must not be negative, got %d", c.CompareRandom)
	case c.CompareRandom != 0 && c.Draws < 1:
		return fmt.Errorf("the random comparison needs at least one draw, got %d", c.Draws)
	case c.CompareRandom > 0 && c.CompareRandom*c.Draws > maxSampled:
		return fmt.Errorf("random comparison of %d draws of %d: too large (at most %d sessions in all)", c.Draws, c.CompareRandom, maxSampled)
	}
	return nil
}

// reservoirSize is the number of sessions each draw of the random
// comparison keeps once the input outgrows the store: CompareRandom, or
// under SameSize the most sessions the budget can select (an hours
// budget: at least m/2 minutes a session), within maxSampled in all.
func (c Config) reservoirSize() int {
	if c.CompareRandom > 0 {
		return c.CompareRandom
	}
	most := float64(c.Budget)
	if c.Budget == 0 {
		most = math.Floor(c.BudgetHours * 60 / (c.MinutesPerFixture / 2))
	}
	return int(max(1, min(most, float64(maxSampled/c.Draws), StoredSessions)))
}

// Reason says why a session was selected.
type Reason string

// The reasons.
const (
	// ReasonIncident: every incident is selected, and this is one.
	ReasonIncident Reason = "incident"
	// ReasonIncidentMostDecisions: incidents alone exceeded the budget,
	// and this is one of those with the most decisions.
	ReasonIncidentMostDecisions Reason = "incident_most_decisions"
	// ReasonDecisions: filled the budget by decisions.
	ReasonDecisions Reason = "decisions"
	// ReasonDecisionsPerMinute: filled an hours budget by decisions per
	// annotation minute.
	ReasonDecisionsPerMinute Reason = "decisions_per_minute"
)

// Picked is one selected session. Its JSON is the line `tally select -o`
// writes.
type Picked struct {
	ID          string `json:"session_id"`
	Turns       int    `json:"turns"`
	Compactions int    `json:"compactions"`
	Items       int    `json:"items"`
	Decisions   int64  `json:"decisions"`
	Incident    bool   `json:"incident"`
	Reason      Reason `json:"reason"`
	// Minutes is the session's annotation time at the configuration's
	// minutes per fixture.
	Minutes float64 `json:"-"`
}

// Totals sums a set of sessions: how many, how many never compact, their
// compactions, decisions and items, and the annotation hours the model
// gives them at AuthoringMinutes and at ReviewMinutes.
type Totals struct {
	Sessions, NeverCompact, Compactions, Items int64
	Decisions                                  int64
	HoursAuthoring, HoursReview                float64
}

func (t *Totals) addSummary(s summary) {
	t.Sessions++
	if s.compactions == 0 {
		t.NeverCompact++
	}
	t.Compactions += int64(s.compactions)
	t.Items += int64(s.items)
	t.Decisions += s.decisions
	t.HoursAuthoring += AnnotationMinutes(int(s.turns), AuthoringMinutes) / 60
	t.HoursReview += AnnotationMinutes(int(s.turns), ReviewMinutes) / 60
}

// Result is a selection and its comparison with random samples.
type Result struct {
	Config Config
	// Read counts the sessions read, Incidents those marked as incidents
	// and NeverCompact those without a compaction.
	Read, Incidents, NeverCompact int
	// IncidentsExceedBudget reports that the incidents alone did not fit
	// the budget, so only those with the most decisions were selected.
	IncidentsExceedBudget bool
	// Selected is the selection in rank order: incidents first, then by
	// decisions (or decisions per minute), ties by session_id.
	Selected []Picked
	Totals   Totals
	// Random is the random baseline, nil when CompareRandom is 0 or
	// nothing was selected to compare.
	Random *Comparison
	// Items says where the sessions' items came from: listed by the
	// summaries, or proposed from agent logs (SelectLogs), and
	// ProposedItems how many were proposed.
	Items         ItemSource
	ProposedItems int64
	// Repeated and SubAgents are SignalReport's, for agent logs
	// (SelectLogs): sessions read again from a later file, read once from
	// the first, and sub-agent transcripts, which are not sessions;
	// Unread the logs with no record read, which are not either.
	Repeated, SubAgents, Unread int
	// NotEnglish counts the sessions of agent logs whose typed text does
	// not read as English (ReadsEnglish): the rules propose little but
	// their references, so their decisions are undercounted.
	NotEnglish int
	// Skipped are the malformed lines skipped under SkipBad.
	Skipped BadLines
	// Bytes is the size of the input read by Select.
	Bytes    int64
	Warnings []string
}

// Selector selects sessions from a stream: Add each session, then take
// the Result. It keeps the budget's worth of candidates and the random
// comparison's store and reservoirs (at most about 30 MB; random.go),
// nothing else in proportion to the input.
type Selector struct {
	cfg          Config
	read         int
	incidents    int
	neverCompact int
	inc, rest    pool
	pooled       map[string]int // session_id → line, for sessions in a pool
	res          *reservoirs
	cur          candidate // the session being added (a field: no allocation per session)
	// named holds the sessions of cfg.Incidents read so far.
	named map[string]bool
	// counted is how many sessions that compact gave their compactions
	// or items as counts (Session.CountsOnly).
	counted int
}

// NewSelector returns a selector for cfg.
func NewSelector(cfg Config) (*Selector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Selector{cfg: cfg, pooled: make(map[string]int), named: map[string]bool{}}
	s.inc.primary, s.inc.rank = decisionsFirst, byDecisions
	s.rest.primary, s.rest.rank = decisionsFirst, byDecisions
	if cfg.Budget > 0 {
		s.inc.maxLen, s.rest.maxLen = cfg.Budget, cfg.Budget
	} else {
		s.rest.primary, s.rest.rank = rateFirst, byRate
		s.inc.maxMinutes = cfg.BudgetHours * 60
		s.rest.maxMinutes = cfg.BudgetHours * 60
	}
	if cfg.CompareRandom != 0 {
		s.res = newReservoirs(cfg.reservoirSize(), cfg.Draws, uint64(cfg.Seed))
	}
	return s, nil
}

// RepeatedError reports a session_id that was read twice. It is found
// when both copies are among the candidates for selection (checking
// every id would take memory in proportion to the input).
type RepeatedError struct {
	ID        string
	FirstLine int
}

// Error says which session_id repeats which line.
func (e *RepeatedError) Error() string {
	return fmt.Sprintf("session_id %q repeats the session at line %d", e.ID, e.FirstLine)
}

// Add offers one session (which it does not retain) to the selection.
// Sessions are numbered from 1 in the order added, as lines are.
func (s *Selector) Add(sess *Session) error { return s.add(sess, nil, s.read+1) }

// add offers sess, read at line; its session_id is id when sess.ID is
// empty (the reader leaves it as bytes, so that only a session that makes
// the cut costs a string).
func (s *Selector) add(sess *Session, id []byte, line int) error {
	if id == nil {
		id = []byte(sess.ID)
	}
	s.cur = candidate{id: sess.ID, turns: sess.Turns, compactions: sess.CompactionCount, items: sess.ItemCount,
		decisions: sess.Decisions(), incident: sess.Incident, line: line,
		minutes: AnnotationMinutes(sess.Turns, s.cfg.MinutesPerFixture)}
	if s.cfg.Incidents[string(id)] {
		s.cur.incident = true
		s.named[string(id)] = true
	}
	c := &s.cur
	p := &s.rest
	if c.incident {
		p = &s.inc
	}
	keep := (c.incident || c.decisions > 0) && p.wouldKeep(c, id)
	if keep {
		if first, ok := s.pooled[string(id)]; ok {
			return &RepeatedError{ID: string(id), FirstLine: first}
		}
		if c.id == "" {
			c.id = string(id)
		}
	}
	s.read++
	if c.incident {
		s.incidents++
	}
	if c.compactions == 0 {
		s.neverCompact++
	} else if sess.CountsOnly {
		s.counted++
	}
	if s.res != nil {
		s.res.add(summary{turns: int32(c.turns), compactions: int32(c.compactions), items: int32(c.items), decisions: c.decisions})
	}
	if keep {
		s.pooled[c.id] = line
		p.push(*c, s.evicted)
	}
	return nil
}

// unreadIncidents says which sessions cfg.Incidents names that no
// session read has ("" when every one was read): an incident missed is
// never a silent one.
func (s *Selector) unreadIncidents() string {
	var missing []string
	for id := range s.cfg.Incidents {
		if !s.named[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	slices.Sort(missing)
	shown := missing[:min(len(missing), 5)]
	more := ""
	if len(missing) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	verb := "were"
	if len(missing) == 1 {
		verb = "was"
	}
	return fmt.Sprintf("%d of the %d sessions named as incidents %s not among the sessions read, so not selected: %s%s",
		len(missing), len(s.cfg.Incidents), verb, strings.Join(shown, ", "), more)
}

// evicted forgets a candidate that left its pool.
func (s *Selector) evicted(c *candidate) { delete(s.pooled, c.id) }

// Result returns the selection of the sessions added so far.
func (s *Selector) Result() *Result {
	r := &Result{Config: s.cfg, Read: s.read, Incidents: s.incidents, NeverCompact: s.neverCompact}
	if s.counted > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"%d of the %d sessions that compact gave their compactions or items as counts, not listed with their turns: their decisions take every item to be live at every compaction (compactions × max(1, items)), more than a session whose items came late exercises",
			s.counted, s.read-s.neverCompact))
	}
	if w := s.unreadIncidents(); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	inc := sorted(s.inc.h, byDecisions)
	rest := sorted(s.rest.h, s.rest.rank)
	m := s.cfg.MinutesPerFixture
	pick := func(c *candidate, why Reason) {
		r.Selected = append(r.Selected, Picked{ID: c.id, Turns: c.turns, Compactions: c.compactions, Items: c.items,
			Decisions: c.decisions, Incident: c.incident, Reason: why, Minutes: c.minutes})
		r.Totals.addSummary(summary{turns: int32(c.turns), compactions: int32(c.compactions), items: int32(c.items), decisions: c.decisions})
	}
	if s.cfg.Budget > 0 {
		if s.incidents > s.cfg.Budget {
			r.IncidentsExceedBudget = true
			for i := range inc {
				pick(&inc[i], ReasonIncidentMostDecisions)
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"incidents alone exceed the budget: %d incidents for %d sessions; selected the %d incidents with the most decisions (ties by session_id) and no other session",
				s.incidents, s.cfg.Budget, len(inc)))
		} else {
			for i := range inc {
				pick(&inc[i], ReasonIncident)
			}
			for i := 0; i < len(rest) && len(r.Selected) < s.cfg.Budget; i++ {
				pick(&rest[i], ReasonDecisions)
			}
		}
		if len(r.Selected) < s.cfg.Budget && s.read > len(r.Selected) {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"selected %d sessions, fewer than the budget of %d: the other %d sessions never compact, so they exercise no compaction decision",
				len(r.Selected), s.cfg.Budget, s.read-len(r.Selected)))
		}
	} else {
		budget := s.cfg.BudgetHours * 60
		var used, all float64
		for i := range inc {
			all += inc[i].minutes
		}
		if all > budget {
			r.IncidentsExceedBudget = true
		}
		for i := range inc {
			if used+inc[i].minutes > budget {
				break
			}
			used += inc[i].minutes
			why := ReasonIncident
			if r.IncidentsExceedBudget {
				why = ReasonIncidentMostDecisions
			}
			pick(&inc[i], why)
		}
		if r.IncidentsExceedBudget {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"incidents alone exceed the budget: %d incidents need %.1f annotation hours at %v minutes per %d-turn conversation, the budget is %v; selected the %d incidents with the most decisions that fit (ties by session_id) and no other session",
				s.incidents, all/60, m, ReferenceTurns, s.cfg.BudgetHours, len(r.Selected)))
		} else {
			for i := range rest {
				if used+rest[i].minutes > budget {
					break
				}
				used += rest[i].minutes
				pick(&rest[i], ReasonDecisionsPerMinute)
			}
		}
	}
	size := s.cfg.CompareRandom
	if size == SameSize {
		size = len(r.Selected)
		if size == 0 && s.res != nil {
			r.Warnings = append(r.Warnings, "no session selected, so no random comparison")
		}
	}
	if s.res != nil && size > 0 {
		r.Random = s.res.comparison(size)
		switch {
		case s.res.switched && size > s.res.k:
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"the random samples hold %d sessions, not %d: past %d sessions the comparison keeps at most %d a draw; compare per session",
				s.res.k, size, StoredSessions, s.res.k))
		case s.read < size:
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"only %d sessions, fewer than the random comparison's %d: every draw is the whole input", s.read, size))
		}
	}
	return r
}

// sorted returns the candidates in rank order.
func sorted(h []candidate, rank func(a, b *candidate) int) []candidate {
	out := slices.Clone(h)
	slices.SortFunc(out, func(a, b candidate) int { return rank(&a, &b) })
	return out
}

// Select reads session summaries from r (named name in problems), one
// pass, and selects by cfg: every incident (or, when the incidents alone
// exceed the budget, the incidents with the most decisions, ties by
// session_id), then the sessions with the most decisions — per annotation
// minute under an hours budget — ties by session_id, never more than the
// budget. Sessions that never compact are never chosen to fill the
// budget: they exercise no decision.
//
// Memory is bounded by the budget and the random comparison, not the
// input. A malformed line is an error naming file, line, column and
// field, or with cfg.SkipBad is skipped, counted and reported in the
// result's warnings. The result depends on cfg and the input; its random
// comparison also on the order of the lines.
func Select(r io.Reader, name string, cfg Config) (*Result, error) {
	sel, err := NewSelector(cfg)
	if err != nil {
		return nil, err
	}
	sr := NewSessionReaderSize(r, name, cfg.Limits.MaxLine)
	sr.bufs.rawID = true
	var bad BadLines
	for {
		s, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			if e := sel.add(&s, sr.bufs.id, sr.Line()); e != nil {
				var rep *RepeatedError
				if !errors.As(e, &rep) {
					return nil, e
				}
				err = problem(name, sr.Line(), "session_id", rep.Error())
			}
		}
		if err != nil {
			if cfg.SkipBad && isProblem(err) {
				bad.add(asProblem(err))
				continue
			}
			return nil, err
		}
	}
	res := sel.Result()
	res.Items = ItemsListed
	res.Bytes = sr.Bytes()
	res.Skipped = bad
	res.Warnings = append(res.Warnings, bad.Warnings()...)
	return res, nil
}

// Versus compares a selection with the random baseline by decisions.
type Versus struct {
	// Selected is the selection's decisions; RandomMean, RandomLow and
	// RandomHigh the random samples' mean and 95% range (samples of as
	// many sessions as were selected, unless configured otherwise).
	Selected                          int64
	RandomMean, RandomLow, RandomHigh float64
	// SelectedPerSession is the selection's decisions per session;
	// RandomPerSession, RandomPerSessionLow and RandomPerSessionHigh the
	// random samples' mean and 95% range of it: like with like whatever
	// the samples' size.
	SelectedPerSession, RandomPerSession      float64
	RandomPerSessionLow, RandomPerSessionHigh float64
	// SameSize: the random samples hold as many sessions as the
	// selection, so totals compare like with like too.
	SameSize bool
	// Above: more decisions per session than 97.5% of the random
	// samples; Below: fewer than 97.5% of them. Neither: inside their 95%
	// range. (With samples of the selection's size, the same as comparing
	// totals.)
	Above, Below bool
	// PerHourSelected and PerHourRandom are decisions per annotation hour
	// at MinutesPerFixture (the random figure from the means).
	PerHourSelected, PerHourRandom float64
}

// VersusRandom compares the selection with the random baseline; ok is
// false without one.
func (r *Result) VersusRandom() (v Versus, ok bool) {
	if r.Random == nil {
		return Versus{}, false
	}
	d := r.Random.Decisions
	v = Versus{Selected: r.Totals.Decisions, RandomMean: d.Mean, RandomLow: d.Low, RandomHigh: d.High}
	n := r.Random.Sessions.Mean // every draw holds as many
	v.SameSize = n == float64(r.Totals.Sessions)
	if v.SameSize {
		v.Above = float64(v.Selected) > d.High
		v.Below = float64(v.Selected) < d.Low
	}
	if r.Totals.Sessions > 0 {
		v.SelectedPerSession = float64(v.Selected) / float64(r.Totals.Sessions)
	}
	if n > 0 {
		v.RandomPerSession, v.RandomPerSessionLow, v.RandomPerSessionHigh = d.Mean/n, d.Low/n, d.High/n
		if !v.SameSize {
			v.Above = v.SelectedPerSession > v.RandomPerSessionHigh
			v.Below = v.SelectedPerSession < v.RandomPerSessionLow
		}
	}
	m := r.Config.MinutesPerFixture
	if h := r.Totals.HoursReview * m / ReviewMinutes; h > 0 {
		v.PerHourSelected = float64(v.Selected) / h
	}
	if h := r.Random.HoursReview.Mean * m / ReviewMinutes; h > 0 {
		v.PerHourRandom = d.Mean / h
	}
	return v, true
}
