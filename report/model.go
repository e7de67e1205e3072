package report

import (
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/rule"
	"github.com/tally-eval/tally/stats"
)

// Report is the computed quarterly report: plain values, ready for the
// renderers (Markdown, HTML, XLSX). Renderers never compute a statistic;
// everything they show is here.
type Report struct {
	Title  string
	Period string
	// Generated is the report's one timestamp: SOURCE_DATE_EPOCH when set,
	// else the time of the run (UTC, to the second).
	Generated  time.Time
	Confidence float64
	// Incumbent and Candidate name the two systems.
	Incumbent, Candidate string

	// Classes has one row per item class, in fixture.Classes order.
	Classes []ClassRow
	// Contradictions is the contradiction row (all classes together).
	Contradictions ContradictionRow
	// Prompt is the mean prompt size row.
	Prompt PromptRow
	// Decision is the change's verdict and the rule that produced it.
	Decision Decision
	// ErrorRates is what the rule's error rates are under the measured
	// noise, or why they are unknown.
	ErrorRates *ErrorRates

	// Calibration is the judge measured against the reviewers, and each
	// class's retention corrected for the judge's errors; nil when the
	// configuration names no reviews.
	Calibration *Calibration

	// reviews are the configured reviews this report uses, by key (nil
	// when it names none), for Observations.
	reviews map[reviews.Key]reviews.Review

	// Items has one row per item and compaction checked in either
	// system, in fixture order.
	Items []ItemRow
	// Replay is the paired task-success analysis; nil without replay data.
	Replay *Replay
	// Paper is the on-paper argument computed from the report's own
	// replay; nil without replay data.
	Paper *Paper
	// Selection is the fixture selection summary; nil when not configured.
	Selection *Selection
	// Provenance records what the report was made from.
	Provenance Provenance
	// Warnings are shown by every renderer.
	Warnings []string
}

// GateStatus is the state of one gate for one system.
type GateStatus string

// Gate states. An error verdict makes a row incomplete, never a pass.
const (
	Pass       GateStatus = "pass"
	Fail       GateStatus = "fail"
	Incomplete GateStatus = "incomplete"
	// NoGate marks a row without a gate (a class with no minimum share,
	// a prompt row with no maximum mean): shown, never unmet.
	NoGate GateStatus = "none"
)

// Change says how the candidate's row compares with the incumbent's
// under the regression rule.
type Change string

// Row changes.
const (
	Better Change = "better"
	Same   Change = "same"
	Worse  Change = "worse"
	// Undecided is a row the rule cannot compare because of error
	// verdicts (the judge failed) in either system, unless it is worse
	// even counting every candidate error in the candidate's favour. An
	// undecided row blocks, like a worse one, until the check is re-run.
	Undecided Change = "undecided"
)

// SystemClass is one system's result for one item class.
type SystemClass struct {
	Counts fixture.Counts
	// Retained is the retained share as every renderer states it: a
	// point with its Wilson interval when every verdict is known, else
	// the range from every error absent to every error retained, with no
	// interval.
	Retained Share
	// Share is Counts.Retained()/Counts.Items: NaN with no items, and NaN
	// with an error verdict (Retained holds the range).
	Share float64
	// Wilson is the Wilson interval of Share at the report's confidence;
	// NaN bounds when Share is NaN.
	Wilson stats.Interval
	// Clustered is the retained share with its cluster-robust standard
	// error and design effect, clustering items by conversation; zero
	// (N = 0) when Share is NaN.
	Clustered stats.ClusteredRate
	// Robust is the cluster-robust interval; NaN bounds when Share is NaN.
	Robust stats.Interval
	// Gate is this system's status against the class's minimum share.
	Gate GateStatus
	// Decided is, under gates.use: corrected, the share Gate was decided
	// on: the corrected one, or why there is none; nil when the gate used
	// the judge's share (Share).
	Decided *DecidedShare
}

// ItemKey names one item at one compaction.
type ItemKey struct {
	ConversationID string
	Compaction     int
	ItemID         string
}

// ClassRow is one class of items, both systems side by side.
type ClassRow struct {
	Class fixture.Class
	// MinShare is the gate: the minimum retained share.
	MinShare             float64
	Incumbent, Candidate SystemClass
	Change               Change
	// Lost are the item-compactions the incumbent retained and the
	// candidate did not; Gained the reverse.
	Lost, Gained []ItemKey
	// McNemar is the exact McNemar test on the item-level pairs
	// (retained by incumbent × retained by candidate), shown as context,
	// not used by the rule.
	McNemar power.Test
	// Pairs is the item-level paired table behind McNemar: A both
	// retained, B lost, C gained, D neither, over the item-compactions
	// both systems checked without an error verdict.
	Pairs power.Table
	// OnlyIncumbent and OnlyCandidate are the item-compactions of this
	// class that one system checked and the other did not. The row is
	// decided on the paired item-compactions only; any unpaired one
	// makes it Undecided.
	OnlyIncumbent, OnlyCandidate []ItemKey
	// Rule is the regression rule's test on the row's paired
	// item-compactions, conversation by conversation: its p-value and
	// the level it was held to (for the count rule, the net alone).
	Rule rule.Outcome
	// Clusters are the row's paired item-compactions by conversation
	// (lost and gained in each): the sizes behind the rule's error
	// rates.
	Clusters []power.ClusterCounts
}

// ChangeText words the row's change for a reader: a Same row its rule
// tested (McNemar or non-inferiority, not the count rule) is "fewer
// retained, not significant" when it lost more item-compactions than it
// gained, else "no significant change", since a test that does not reject says the data
// do not show a drop, not that there is none (a new user's trial read
// "same: 8 lost, 0 gained" on three conversations as no change); any
// other change is its name.
func (c ClassRow) ChangeText() string {
	if c.Change == Same && c.Rule.Tested && c.Rule.Level > 0 {
		// A row that lost more than it gained is not "no change" to a
		// reader (a new user's trial: 16 lost, 0 gained over three
		// conversations read "no significant change" beside a green
		// check).
		if c.Rule.Lost > c.Rule.Gained {
			return "fewer retained, not significant"
		}
		return "no significant change"
	}
	return string(c.Change)
}

// ContradictionRow counts contradicted items in each system.
type ContradictionRow struct {
	Max int // the gate: maximum contradictions (default 0)
	// Incumbent and Candidate count each system's contradictions, less
	// those a reviewer found otherwise (report.yaml's reviews:): a judge
	// error is not counted against the gate.
	Incumbent, Candidate int
	IncumbentGate        GateStatus
	CandidateGate        GateStatus
	Change               Change
	// New are the item-compactions both systems checked that the
	// candidate contradicts and the incumbent does not (an incumbent
	// error verdict leaves the item out).
	New []ItemKey
	// Resolved counts the item-compactions both systems checked that the
	// incumbent contradicts and the candidate does not.
	Resolved int
	// OnlyIncumbent and OnlyCandidate count the item-compactions, all
	// classes together, that one system checked and the other did not
	// (the class rows name them); any makes the row Undecided.
	OnlyIncumbent, OnlyCandidate int
	// Overruled are the item-compactions the candidate's judge verdict
	// contradicts and the incumbent's does not, but a reviewer found not
	// contradicted (report.yaml's reviews:): a judge error, not counted
	// in New and not blocking.
	Overruled []ItemKey
	// JudgeErrors counts, for the incumbent and the candidate, every
	// contradiction of theirs a reviewer found otherwise: left out of
	// Incumbent and Candidate and of both gates.
	JudgeErrors [2]int
	// Found are the item-compactions of New that only a reviewer found
	// contradicted (the judge's verdict was another): counted in New, and
	// blocking like any. ReviewerFound counts, for each system, every
	// contradiction a reviewer found where the judge saw none: counted in
	// Incumbent and Candidate and in their gates.
	Found         []ItemKey
	ReviewerFound [2]int
}

// PromptRow is the mean prompt size of each system against its budget.
type PromptRow struct {
	MaxMean              float64 // the gate: maximum mean prompt tokens (0: no gate)
	Incumbent, Candidate PromptStats
	IncumbentGate        GateStatus
	CandidateGate        GateStatus
	// Change is never Worse for prompt size: smaller prompts are the point
	// of compaction; it is reported, and gated only by MaxMean.
	Change Change
}

// PromptStats summarises one system's prompt sizes.
type PromptStats struct {
	Contexts int
	Mean     float64
	Median   float64
	P95      float64
	Max      int
	// Sizes are the prompt sizes of the Contexts contexts, sorted
	// ascending: the distribution the prompt-size chart draws. At 8
	// bytes a context, 300,000 contexts hold 2.4 MB.
	Sizes []int
}

// Decision is the change's verdict: it blocks when any row got worse. Its
// methods (Headline, WorseText, UndecidedText, BacklogText) are the
// verdict's words, the same in every output.
type Decision struct {
	Blocks bool
	// Worse names the rows that got worse (class names, "contradictions").
	Worse []string
	// Backlog names the gates unmet by both systems: a standard not yet
	// met, not a merge decision.
	Backlog []string
	// CandidateUnmet names the gates the candidate does not meet.
	CandidateUnmet []string
	// NewlyUnmet names the gates the incumbent meets and the candidate
	// does not: a standard the change gives up, whether or not its row
	// was shown worse.
	NewlyUnmet []string
	// Undecided names the rows whose change is Undecided (error
	// verdicts); they block too.
	Undecided []string
	// Unpaired counts the item-compactions, all classes together, that
	// one system checked and the other did not; JudgeErrors counts the
	// error verdicts of both systems. They say why rows are Undecided
	// (UndecidedWhy).
	Unpaired, JudgeErrors int
	// Rule states the regression rule in words, exactly as applied.
	Rule string
	// Blind, when the change does not block, is the largest drop of
	// interest the gate would miss more often than it would catch in
	// some class (its error rates, ErrorRates); nil when the rates are
	// unknown or every class would see it.
	Blind *BlindSpot
}

// BlindSpot is a drop in one class's retention that a gate which did
// not block would have caught with probability under one half: the drop
// and, per class, the probability of blocking it.
type BlindSpot struct {
	Drop    float64 // a share: 0.10 is a 10-point drop
	Classes []string
	Power   []float64
}

// ItemRow is one item at one compaction, both systems side by side.
type ItemRow struct {
	ItemKey
	Class   fixture.Class
	Literal string
	Probe   string
	Expect  string
	// Incumbent and Candidate are each system's record ("" verdict when
	// the system has no record for it).
	Incumbent, Candidate fixture.Record
	// Changed is true when the two verdicts differ.
	Changed bool
}

// Replay is the paired task-success analysis: reported, never gated.
type Replay struct {
	Result power.Result
	// Pairs counts conversations by reference kind: "uncompacted" and
	// "accepted_trace".
	ReferenceKinds map[string]int
	// ByKind is the paired table of each reference kind present, in
	// ReferenceKinds order (uncompacted runs, accepted traces).
	ByKind []ReplayKind
	// Discordant is the review queue: the conversations where the two
	// runs disagree, the only ones that carry information.
	Discordant []ReplayPair
	// Sentence says in words what the difference is worth.
	Sentence string
	// Grade is the sentence's grade under Rule: GradeSignificant,
	// GradeInconclusive or GradeNoChange.
	Grade string
	// Drop is d, the drop in task success the grade asks about (a
	// fraction): a result whose interval reaches below −d is
	// inconclusive, not evidence of no change.
	Drop float64
	// Rule states in words how Sentence was graded, printed with it.
	Rule string
	// Warnings are the task-success caveats (the χ² approximation, the
	// accepted traces). Renderers show them in the task-success section
	// at the bottom, never among the report's own warnings.
	Warnings []string
}

// The grades of the task-success sentence (Replay.Grade).
const (
	// GradeSignificant: the exact McNemar p is below α.
	GradeSignificant = "significant"
	// GradeInconclusive: not significant, and the interval's lower end
	// is below −d: a drop of d is not ruled out.
	GradeInconclusive = "inconclusive"
	// GradeNoChange: not significant, and the interval rules out a drop
	// of d or more: consistent with no change.
	GradeNoChange = "no change"
)

// Paper is the seed's "on paper first" argument, computed from the
// report's own inputs: what the replay's aggregate task success can see
// at its own number of conversations and reference success rate.
type Paper struct {
	// Rate is the reference's success rate over the replayed
	// conversations, with its standard error and intervals at the
	// report's confidence.
	Rate stats.RateSummary
	// Plan is `tally plan` at the replay's conversations and reference
	// rate, α = 1 − confidence and power PaperPower; nil when it cannot
	// be computed (Notes say why). Plan.Catastrophic is set when
	// Catastrophic is usable: at least 1, at most the reference's
	// successes.
	Plan *power.PlanResult
	// Catastrophic is the number of fixture conversations in which the
	// candidate lost a constraint item or newly contradicted an item
	// (paired item-compactions): the conversations an item-level failure
	// of the change reaches, were each of them to fail outright.
	Catastrophic int
	// CatastrophicConversations are the first of those conversations,
	// in fixture order (at most MaxNamed).
	CatastrophicConversations []string
	// Notes say what the argument leaves out and why (no catastrophic
	// count, a count larger than the successes).
	Notes []string
}

// PaperPower is the power of the on-paper argument's plan.
const PaperPower = 0.8

// MaxNamed is how many item-compactions or conversations a list in the
// model names at most where it stands for a count (the first few).
const MaxNamed = 5

// ReplayKind is the paired table of the conversations whose reference
// is of one kind.
type ReplayKind struct {
	Kind  string // uncompacted | accepted_trace
	Table power.Table
}

// ReplayPair is one replayed conversation.
type ReplayPair struct {
	ConversationID string
	Reference      string // success | failure
	Candidate      string // success | failure
	ReferenceKind  string // uncompacted | accepted_trace
}

// Selection is the fixture-selection summary, as `tally select --format
// json` writes it.
type Selection struct {
	// Budget is the budget in sessions; 0 when the selection was
	// budgeted in annotation hours (BudgetHours, at MinutesPerFixture
	// minutes a 63-turn conversation).
	Budget                int
	BudgetHours           float64
	MinutesPerFixture     float64
	Seed                  int64
	Incidents             int
	IncidentsExceedBudget bool
	Selected              SelectionTotals
	Random                RandomTotals
	// Compared is false when select made no random comparison
	// (--compare-random 0, or nothing selected): Random is then zero.
	Compared bool
	// PerSession is true when the random samples hold another number of
	// sessions than were selected: Rows are then per session, never
	// totals over samples of different sizes.
	PerSession bool
	// Rows are the measures to show, the selection's beside the random
	// samples' (totals, or per session when PerSession).
	Rows     []SelectionRow
	Sessions []SelectedSession
	Warnings []string
	// ItemsProposed is true when select read agent logs, which list no
	// items: the items and decisions count what the proposer's rules
	// found, unreviewed (selection.Summary.ItemsSource "proposed"). The
	// rows then say so, and a warning does.
	ItemsProposed bool
}

// SelectionRow is one measure of the selected sessions beside the same
// measure over the random samples.
type SelectionRow struct {
	// Measure names it in lower case: "compaction decisions".
	Measure  string
	Selected float64
	Random   Range
	// Hours marks annotation hours (shown to one decimal); the others
	// are counts (whole numbers as totals).
	Hours bool
}

// SelectionTotals sums a set of sessions.
type SelectionTotals struct {
	Sessions, NeverCompact, Compactions, Decisions, Items int
	HoursAt15, HoursAt2                                   float64
}

// Range is a mean with a 95% range over seeded random draws.
type Range struct{ Mean, Low, High float64 }

// RandomTotals sums random samples of Size sessions over Draws draws.
type RandomTotals struct {
	Size, Draws                                           int
	Sessions, NeverCompact, Compactions, Decisions, Items Range
	HoursAt15, HoursAt2                                   Range
}

// SelectedSession is one selected session.
type SelectedSession struct {
	SessionID                            string
	Turns, Compactions, Items, Decisions int
	Incident                             bool
	Reason                               string
}

// Provenance records what the report was made from.
type Provenance struct {
	Version string
	Config  string // the configuration file's text
	Inputs  []Input
}

// Input is one input file with its SHA-256.
type Input struct {
	Role   string // "fixtures", "verdicts (incumbent)", …
	Path   string
	SHA256 string
	Bytes  int64
}
