package selection

// Summary is a selection as JSON: what `tally select --format json`
// writes and `tally report` reads (its field names are a public
// interface). The random comparison's samples hold as many sessions as
// were selected unless --compare-random asked for another size, so its
// totals compare like with like with Selected.
type Summary struct {
	// Budget is the budget in sessions, BudgetHours in annotation hours
	// at MinutesPerFixture minutes per ReferenceTurns-turn conversation:
	// exactly one of them is set (the other is null).
	Budget            *int     `json:"budget"`
	BudgetHours       *float64 `json:"budget_hours"`
	MinutesPerFixture float64  `json:"minutes_per_fixture"`
	// Seed seeded the random comparison; any int64 (JSON numbers beyond
	// 2⁵³ are written and read exactly).
	Seed                  int64         `json:"seed"`
	Read                  int           `json:"read"`
	Incidents             int           `json:"incidents"`
	IncidentsExceedBudget bool          `json:"incidents_exceed_budget"`
	Selected              SummaryTotals `json:"selected"`
	// Random is the random comparison; null without one.
	Random   *SummaryRandom `json:"random"`
	Sessions []Picked       `json:"sessions"`
	Warnings []string       `json:"warnings"`
	// ItemsSource is "proposed" when the items (and so the decisions)
	// were proposed from agent logs rather than listed by session
	// summaries, and absent when they were listed.
	ItemsSource ItemSource `json:"items_source,omitempty"`
	// ProposedItems counts the items proposed over every session read.
	ProposedItems int64 `json:"proposed_items,omitempty"`
	// RepeatedSessions counts sessions read again from a later agent log
	// (the same session id), read once, from the first; SubagentTranscripts
	// the logs of a sub-agent alone, which are not sessions. Absent when
	// none.
	RepeatedSessions    int `json:"repeated_sessions,omitempty"`
	SubagentTranscripts int `json:"subagent_transcripts,omitempty"`
}

// Hours is annotation time, in hours, at the source text's minutes per
// conversation: 15 authoring, 2 confirming proposed items.
type Hours struct {
	At15 float64 `json:"at_15_min"`
	At2  float64 `json:"at_2_min"`
}

// SummaryTotals is Totals as JSON.
type SummaryTotals struct {
	Sessions        int64 `json:"sessions"`
	NeverCompact    int64 `json:"never_compact"`
	Compactions     int64 `json:"compactions"`
	Decisions       int64 `json:"decisions"`
	Items           int64 `json:"items"`
	AnnotationHours Hours `json:"annotation_hours"`
}

// SpreadHours is annotation time over the random draws.
type SpreadHours struct {
	At15 Spread `json:"at_15_min"`
	At2  Spread `json:"at_2_min"`
}

// SummaryRandom is a Comparison as JSON: Size is the sessions in each of
// Draws samples, and each Spread is over the draws' totals.
type SummaryRandom struct {
	Size            int         `json:"size"`
	Draws           int         `json:"draws"`
	Sessions        Spread      `json:"sessions"`
	NeverCompact    Spread      `json:"never_compact"`
	Compactions     Spread      `json:"compactions"`
	Decisions       Spread      `json:"decisions"`
	Items           Spread      `json:"items"`
	AnnotationHours SpreadHours `json:"annotation_hours"`
}

// Summary returns the result as JSON's Summary (empty lists, not null).
func (r *Result) Summary() Summary {
	cfg := r.Config
	s := Summary{MinutesPerFixture: cfg.MinutesPerFixture, Seed: cfg.Seed, Read: r.Read, Incidents: r.Incidents,
		IncidentsExceedBudget: r.IncidentsExceedBudget, Sessions: r.Selected, Warnings: r.Warnings}
	if r.Items == ItemsProposed {
		s.ItemsSource, s.ProposedItems = ItemsProposed, r.ProposedItems
		s.RepeatedSessions, s.SubagentTranscripts = r.Repeated, r.SubAgents
	}
	if cfg.Budget > 0 {
		b := cfg.Budget
		s.Budget = &b
	} else {
		h := cfg.BudgetHours
		s.BudgetHours = &h
	}
	if s.Sessions == nil {
		s.Sessions = []Picked{}
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	t := r.Totals
	s.Selected = SummaryTotals{Sessions: t.Sessions, NeverCompact: t.NeverCompact, Compactions: t.Compactions,
		Decisions: t.Decisions, Items: t.Items, AnnotationHours: Hours{At15: t.HoursAuthoring, At2: t.HoursReview}}
	if c := r.Random; c != nil {
		s.Random = &SummaryRandom{Size: c.Size, Draws: c.Draws, Sessions: c.Sessions, NeverCompact: c.NeverCompact,
			Compactions: c.Compactions, Decisions: c.Decisions, Items: c.Items,
			AnnotationHours: SpreadHours{At15: c.HoursAuthoring, At2: c.HoursReview}}
	}
	return s
}
