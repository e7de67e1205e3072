package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// Options are Build's inputs that are not in the configuration.
type Options struct {
	// Generated is the report's one timestamp; see GeneratedTime.
	Generated time.Time
	// Version is tally's version, recorded in the provenance.
	Version string
	// Limits bounds every input the configuration names: only regular
	// files (a named pipe or a device is refused without blocking), a
	// JSONL line or a JSON file read whole of at most Limits.MaxLine
	// bytes, a file of at most Limits.MaxFile (zero fields: package
	// input's defaults).
	Limits input.Limits
	// Progress, when not nil, is told each stage as Build begins it
	// ("reading the candidate's verdicts"), for a long build to show where
	// it is; it must not block.
	Progress func(stage string)
}

// GeneratedTime returns the report's timestamp: sourceDateEpoch (the
// value of SOURCE_DATE_EPOCH, whole seconds since 1970-01-01 UTC) when it
// is not empty, else now; in UTC, to the second.
func GeneratedTime(sourceDateEpoch string, now time.Time) (time.Time, error) {
	if sourceDateEpoch == "" {
		return now.UTC().Truncate(time.Second), nil
	}
	s, err := strconv.ParseInt(strings.TrimSpace(sourceDateEpoch), 10, 64)
	if err != nil || s < 0 || s > 253402300799 { // 9999-12-31T23:59:59Z
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want whole seconds since 1970-01-01 UTC", sourceDateEpoch)
	}
	return time.Unix(s, 0).UTC(), nil
}

// Build reads every input the configuration names and computes the
// report: per class and system the verdict counts, the retained share
// with its Wilson and cluster-robust intervals, the gates, the change
// under the regression rule with the items lost and gained; the
// contradiction and prompt-size rows; the decision; the replay analysis
// and the selection summary when configured; and the provenance.
//
// Verdict files are streamed, in any order; each must be consistent with
// the fixtures (every conversation and item id known, the class the
// fixture's, the system's name, no item-compaction twice). Every problem
// of every input file is reported, as fixture.Problems naming file,
// line, column and field.
func Build(cfg *Config, opts Options) (*Report, error) {
	if err := cfg.MissingInputs(); err != nil {
		return nil, err
	}
	b := &builder{cfg: cfg, lim: opts.Limits, conv: map[string]int32{}, item: map[itemRef]int32{}, judges: map[string]string{}}
	r := &Report{
		Title:      cfg.Title,
		Period:     cfg.Period,
		Generated:  opts.Generated,
		Confidence: cfg.Confidence,
		Incumbent:  cfg.Incumbent.Name,
		Candidate:  cfg.Candidate.Name,
		Provenance: Provenance{Version: opts.Version, Config: string(cfg.Text)},
	}
	if r.Title == "" {
		r.Title = "Compaction change report"
	}
	b.r = r
	stage := func(s string) {
		if opts.Progress != nil {
			opts.Progress(s)
		}
	}
	r.Provenance.Inputs = append(r.Provenance.Inputs, Input{Role: RoleConfig, Path: baseName(cfg.File), SHA256: sha256Hex(cfg.Text), Bytes: int64(len(cfg.Text))})
	stage("reading the fixtures")
	if err := b.loadFixtures(); err != nil {
		return nil, err
	}
	// One row per item-compaction: about as many as the longer verdict
	// file has lines. Allocating them once keeps the peak heap near the
	// rows' own size.
	rows := 0
	for _, sc := range []SystemConfig{cfg.Incumbent, cfg.Candidate} {
		rows = max(rows, countLines(cfg.Resolve(sc.Verdicts), b.lim))
	}
	r.Items = make([]ItemRow, 0, rows)
	b.rowItem = make([]int32, 0, rows)
	b.lines = [2][]int32{make([]int32, 0, rows), make([]int32, 0, rows)}
	b.rows.init(b.slots, rows)
	var probs []error
	for s, sc := range []SystemConfig{cfg.Incumbent, cfg.Candidate} {
		stage("reading the verdicts of " + [2]string{"the incumbent", "the candidate"}[s])
		if err := b.readVerdicts(s, sc); err != nil {
			var ps fixture.Problems
			if !errors.As(err, &ps) {
				return nil, err
			}
			probs = append(probs, err)
		}
	}
	b.warnJudges()
	if err := b.readPromptSizes(); err != nil {
		var ps fixture.Problems
		if !errors.As(err, &ps) {
			return nil, err
		}
		probs = append(probs, err)
	}
	if len(probs) > 0 {
		return nil, errors.Join(probs...)
	}
	stage("computing the shares, tests and error rates")
	b.sortRows()
	b.coverageWarnings()
	if err := b.readReviews(); err != nil {
		return nil, err
	}
	if err := b.compute(); err != nil {
		return nil, err
	}
	if err := b.calibrate(); err != nil {
		return nil, err
	}
	if err := b.errorRates(); err != nil {
		return nil, err
	}
	r.Decision.Blind = blindSpot(r.ErrorRates)
	if cfg.Replay != "" {
		stage("reading the replay")
		if err := b.replay(); err != nil {
			return nil, err
		}
	}
	if cfg.Selection != "" {
		if err := b.selection(); err != nil {
			return nil, err
		}
	}
	if r.Replay != nil {
		p, err := NewPaper(r, cfg.Confidence)
		if err != nil {
			return nil, err
		}
		r.Paper = p
	}
	if cfg.Notebook != "" {
		in, err := hashFile(RoleNotebook, cfg.Notebook, cfg.Resolve(cfg.Notebook), b.lim)
		if err != nil {
			return nil, fmt.Errorf("notebook: %w", err)
		}
		r.Provenance.Inputs = append(r.Provenance.Inputs, in)
	}
	return r, nil
}

// countLines counts the lines of the file at path, 0 when it cannot be
// read (reading it properly reports why).
func countLines(path string, lim input.Limits) int {
	f, err := input.Open(path, lim)
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}

// itemRef names an item of a fixture.
type itemRef struct{ conv, id string }

// rowKey names an item at a compaction: the item's global index (in
// fixture order) and the compaction.
type rowKey struct{ item, compaction int32 }

type builder struct {
	cfg      *Config
	lim      input.Limits
	r        *Report
	fixtures []fixture.Fixture
	conv     map[string]int32 // conversation id → fixture index
	// firstItem is each fixture's first global item index; item finds
	// the items of fixtures with more than scanItems (the others are
	// found by a scan, faster than hashing two strings).
	firstItem []int32
	item      map[itemRef]int32
	itemFix   []int32 // global item index → fixture index
	itemPos   []int32 // global item index → index in its fixture
	// slotBase is each item's first slot in rows (global item index →
	// the items before it × their fixtures' compactions_expected), slots
	// the total.
	slotBase []int64
	slots    int64
	rows     rowIndex
	rowItem  []int32    // row → global item index
	lines    [2][]int32 // row → line of each system's record (0: none)
	judges   map[string]string
	// judgedBy counts each system's judged records by judge name.
	judgedBy [2]map[string]int
	prompts  [2][]int // each system's prompt sizes
	// tokenizers named by the prompt-size lines read
	tokenizers map[string]bool
	// prints are the items' fingerprints (by global item index), computed
	// as records name them; unprinted counts each system's records
	// without one.
	prints    []string
	unprinted [2]int
	// reviews are the reviewers' verdicts (report.yaml's reviews:), by
	// key; nil without them.
	reviews map[reviews.Key]reviews.Review
}

func (b *builder) loadFixtures() error {
	path := b.cfg.Resolve(b.cfg.Fixtures)
	err := fixture.Loader{Limits: b.lim}.Walk(func(f fixture.Fixture) error {
		fi := int32(len(b.fixtures))
		if int(fi) != len(b.fixtures) || len(b.itemFix)+len(f.MustSurvive) > math.MaxInt32 {
			return errors.New("too many fixtures or items")
		}
		b.conv[f.ConversationID] = fi
		b.firstItem = append(b.firstItem, int32(len(b.itemFix)))
		for i := range f.MustSurvive {
			it := &f.MustSurvive[i]
			if len(f.MustSurvive) > scanItems {
				b.item[itemRef{f.ConversationID, it.ID}] = int32(len(b.itemFix))
			}
			b.itemFix = append(b.itemFix, fi)
			b.itemPos = append(b.itemPos, int32(i))
			b.slotBase = append(b.slotBase, b.slots)
			b.slots += int64(max(f.CompactionsExpected, 0))
		}
		b.fixtures = append(b.fixtures, f)
		return nil
	}, path)
	if err != nil {
		return err
	}
	in, err := hashFixtures(b.cfg.Fixtures, path, b.lim)
	if err != nil {
		return fmt.Errorf("hashing fixtures: %w", err)
	}
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	return nil
}

// scanItems is the most items a fixture's items are found by a scan
// rather than a map look-up.
const scanItems = 16

// itemIn returns the global index of the item with id in fixture fi.
func (b *builder) itemIn(fi int32, id string) (int32, bool) {
	f := &b.fixtures[fi]
	if len(f.MustSurvive) > scanItems {
		g, ok := b.item[itemRef{f.ConversationID, id}]
		return g, ok
	}
	for i := range f.MustSurvive {
		if f.MustSurvive[i].ID == id {
			return b.firstItem[fi] + int32(i), true
		}
	}
	return 0, false
}

// itemOf returns the fixture item of global index g.
func (b *builder) itemOf(g int32) *fixture.Item {
	return &b.fixtures[b.itemFix[g]].MustSurvive[b.itemPos[g]]
}

// sortRows puts the rows in fixture order — fixture, compaction, item —
// unless they already are, permuting them in place.
func (b *builder) sortRows() {
	items := b.r.Items
	less := func(i, j int32) int {
		gi, gj := b.rowItem[i], b.rowItem[j]
		if c := cmp.Compare(b.itemFix[gi], b.itemFix[gj]); c != 0 {
			return c
		}
		if c := cmp.Compare(items[i].Compaction, items[j].Compaction); c != 0 {
			return c
		}
		return cmp.Compare(gi, gj)
	}
	sorted := true
	for i := 1; i < len(items) && sorted; i++ {
		sorted = less(int32(i-1), int32(i)) < 0
	}
	b.rows, b.lines = rowIndex{}, [2][]int32{} // no longer needed
	if sorted {
		return
	}
	perm := make([]int32, len(items)) // perm[new] = old
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, less)
	// Apply the permutation cycle by cycle, moving each row once.
	done := make([]bool, len(items))
	for i := range items {
		if done[i] {
			continue
		}
		tmpRow, tmpItem := items[i], b.rowItem[i]
		j := i
		for {
			done[j] = true
			k := int(perm[j])
			if k == i {
				items[j], b.rowItem[j] = tmpRow, tmpItem
				break
			}
			items[j], b.rowItem[j] = items[k], b.rowItem[k]
			j = k
		}
	}
}

// classIndex is the index of cl in fixture.Classes.
func classIndex(cl fixture.Class) int { return slices.Index(fixture.Classes, cl) }

// compute fills in the rows, the decision and the warnings.
func (b *builder) compute() error {
	r, cfg := b.r, b.cfg
	nc := len(fixture.Classes)
	var (
		counts   = make([][2]fixture.Counts, nc)
		clusters = make([][2][]stats.Cluster, nc)
		cur      = make([][2]stats.Cluster, nc)
		tables   = make([]power.Table, nc)
		lost     = make([][]ItemKey, nc)
		gained   = make([][]ItemKey, nc)
		only     = make([][2][]ItemKey, nc)
		errPairs = make([]pairedErrors, nc)
		totals   [2]fixture.Counts
		// judgeErrors counts each system's contradictions a reviewer
		// found otherwise, reviewerFound the contradictions a reviewer
		// found where the judge saw none.
		judgeErrors, reviewerFound [2]int
		contr                      contradictionPairs
		// The rule's paired counts by conversation: as checked, and in
		// the candidate's favour (every error pair that could be a gain
		// and every unpaired item-compaction counted as a gain).
		pairCur, favCur = make([]power.ClusterCounts, nc), make([]power.ClusterCounts, nc)
		pairs, favs     = make([][]power.ClusterCounts, nc), make([][]power.ClusterCounts, nc)
	)
	flush := func() {
		for ci := range pairCur {
			if pairCur[ci].N > 0 {
				pairs[ci] = append(pairs[ci], pairCur[ci])
			}
			if favCur[ci].N > 0 {
				favs[ci] = append(favs[ci], favCur[ci])
			}
			pairCur[ci], favCur[ci] = power.ClusterCounts{}, power.ClusterCounts{}
		}
		for ci := range cur {
			for s := range 2 {
				if cur[ci][s].N > 0 {
					clusters[ci][s] = append(clusters[ci][s], cur[ci][s])
				}
				cur[ci][s] = stats.Cluster{}
			}
		}
	}
	lastFix := int32(-1)
	for i := range r.Items {
		row := &r.Items[i]
		if fi := b.itemFix[b.rowItem[i]]; fi != lastFix {
			flush()
			lastFix = fi
		}
		ci := classIndex(row.Class)
		recs := [2]*fixture.Record{&row.Incumbent, &row.Candidate}
		for s, rec := range recs {
			if rec.Verdict == "" {
				continue
			}
			counts[ci][s].Add(rec.Verdict)
			totals[s].Add(rec.Verdict)
			switch rv := b.reviewed(s, row, rec.Verdict); {
			case rec.Verdict == fixture.Contradicted && rv != fixture.Contradicted:
				judgeErrors[s]++
			case rec.Verdict != fixture.Contradicted && rv == fixture.Contradicted:
				reviewerFound[s]++
			}
			cur[ci][s].N++
			if rec.Verdict.Retained() {
				cur[ci][s].K++
			}
		}
		iv, cv := row.Incumbent.Verdict, row.Candidate.Verdict
		row.Changed = iv != cv
		switch {
		case iv == "":
			only[ci][1] = append(only[ci][1], row.ItemKey)
			favCur[ci].N++
			favCur[ci].Gained++
		case cv == "":
			only[ci][0] = append(only[ci][0], row.ItemKey)
			favCur[ci].N++
			favCur[ci].Gained++
		case iv == fixture.Error || cv == fixture.Error:
			// Unknown outcome: left out of the item-level pairs, and
			// counted for the rule's best case for the candidate.
			gains := errPairs[ci].gains
			errPairs[ci].add(iv, cv)
			contr.addError(iv, cv)
			favCur[ci].N++
			if errPairs[ci].gains > gains {
				favCur[ci].Gained++
			}
		default:
			t := &tables[ci]
			pairCur[ci].N++
			favCur[ci].N++
			switch ir, cr := iv.Retained(), cv.Retained(); {
			case ir && cr:
				t.A++
			case ir:
				t.B++
				pairCur[ci].Lost++
				favCur[ci].Lost++
				lost[ci] = append(lost[ci], row.ItemKey)
			case cr:
				t.C++
				pairCur[ci].Gained++
				favCur[ci].Gained++
				gained[ci] = append(gained[ci], row.ItemKey)
			default:
				t.D++
			}
		}
		if iv != "" && cv != "" && iv != fixture.Error && cv != fixture.Error {
			// A reviewer's verdict counts over the judge's, both ways:
			// an overruled contradiction is a judge error, not an
			// inversion; one a reviewer found is an inversion.
			ie, ce := b.reviewed(0, row, iv), b.reviewed(1, row, cv)
			if cv == fixture.Contradicted && ce != fixture.Contradicted && ie != fixture.Contradicted {
				contr.overruled = append(contr.overruled, row.ItemKey)
			}
			if ce == fixture.Contradicted && ie != fixture.Contradicted && cv != fixture.Contradicted {
				contr.found = append(contr.found, row.ItemKey)
			}
			contr.add(row.ItemKey, ie, ce)
		}
	}
	flush()

	reg := cfg.Regression
	changes, outcomes, err := decideClasses(reg.Rule, pairs, favs, errPairs, only)
	if err != nil {
		return err
	}
	for ci, cl := range fixture.Classes {
		min, gated := cfg.Gates.Retained[cl]
		row := ClassRow{Class: cl, MinShare: min, Lost: lost[ci], Gained: gained[ci], Pairs: tables[ci],
			OnlyIncumbent: only[ci][0], OnlyCandidate: only[ci][1]}
		for s, sc := range []*SystemClass{&row.Incumbent, &row.Candidate} {
			c := counts[ci][s]
			var err error
			if *sc, err = NewSystemClass(c, clusters[ci][s], cfg.Confidence); err != nil {
				return err
			}
			sc.Gate = ShareGate(c, min, gated)
		}
		row.Change, row.Rule, row.Clusters = changes[ci], outcomes[ci], pairs[ci]
		if reg.Rule.Clustered && row.Rule.Tested {
			if d := discordantConversations(pairs[ci]); d > 0 && d < fewDiscordantClusters {
				r.Warnings = append(r.Warnings, fmt.Sprintf(
					"%s: the clustered test rests on %d %s with a lost or gained item; below about %d its large-sample approximation is rough and its actual level may differ from α (this report's error rates of the rule, and tally plan fixtures, give the false-block rate at this size)",
					cl, d, format.Plural(d, "conversation", "conversations"), fewDiscordantClusters))
			}
		}
		row.McNemar = power.Test{Method: string(power.TestExact), PValue: 1}
		if tables[ci].Pairs() > 0 {
			res, err := power.McNemar(tables[ci], cfg.Confidence)
			if err != nil {
				return fmt.Errorf("%s: %w", cl, err)
			}
			row.McNemar, _ = res.Test(power.TestExact)
		}
		r.Classes = append(r.Classes, row)
		if !gated {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: no retained-share gate (gates.retained.%s is not set)", cl, cl))
		}
		for s, name := range []string{r.Incumbent, r.Candidate} {
			if counts[ci][s].Items == 0 {
				// Only a gated row can fail for want of items; an
				// ungated one just has nothing to show.
				w := fmt.Sprintf("%s: %s has no %s items checked", cl, name, cl)
				if gated {
					w += "; its row cannot pass"
				}
				r.Warnings = append(r.Warnings, w)
			}
		}
	}

	max := cfg.Gates.MaxContradictions
	var onlyInc, onlyCand int
	for ci := range only {
		onlyInc += len(only[ci][0])
		onlyCand += len(only[ci][1])
	}
	// The contradictions a reviewer found otherwise are judge errors,
	// counted against neither system's gate; those a reviewer found where
	// the judge saw none count against it.
	reviewed := totals
	for s := range reviewed {
		reviewed[s].Contradicted += reviewerFound[s] - judgeErrors[s]
	}
	r.Contradictions = ContradictionRow{
		Max:       max,
		Incumbent: reviewed[0].Contradicted, Candidate: reviewed[1].Contradicted,
		IncumbentGate: contradictionGate(reviewed[0], max), CandidateGate: contradictionGate(reviewed[1], max),
		Change:        contradictionChange(contr, onlyInc+onlyCand, reg.Rule),
		New:           contr.new,
		Overruled:     contr.overruled,
		JudgeErrors:   judgeErrors,
		Found:         contr.found,
		ReviewerFound: reviewerFound,
		Resolved:      contr.resolved,
		OnlyIncumbent: onlyInc, OnlyCandidate: onlyCand,
	}

	r.Prompt = PromptRow{MaxMean: cfg.Gates.MaxMeanPromptTokens,
		Incumbent: NewPromptStats(b.prompts[0]), Candidate: NewPromptStats(b.prompts[1])}
	r.Prompt.IncumbentGate = promptGate(r.Prompt.Incumbent, r.Prompt.MaxMean)
	r.Prompt.CandidateGate = promptGate(r.Prompt.Candidate, r.Prompt.MaxMean)
	r.Prompt.Change = promptChange(r.Prompt.Incumbent, r.Prompt.Candidate)
	b.prompts = [2][]int{}

	r.Decision = decide(r, reg)

	for s, name := range []string{r.Incumbent, r.Candidate} {
		if e := totals[s].Errors; e > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"%s: %d error %s (the judge failed, or its context was missing); a row with one is incomplete, never a pass, and never counted as absent: re-run tally check (a judge failure is asked again; a missing context needs its file)",
				name, e, format.Plural(e, "verdict", "verdicts")))
		}
	}
	// The clusters are the conversations with at least one verdict.
	if n := b.checkedConversations(); n > 0 && n < fewClusters {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"the cluster-robust intervals rest on %d %s; with fewer than about %d clusters they run too narrow (Cameron & Miller 2015), so read the Wilson intervals beside them",
			n, format.Plural(n, "conversation", "conversations"), fewClusters))
	}
	if onlyInc > 0 || onlyCand > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"the systems checked different item-compactions: %d only by %s, %d only by %s; each row is decided on the item-compactions both checked, and a row with one checked by one system only is undecided until both have checked it, unless it is worse even were every such one in the candidate's favour",
			onlyInc, r.Incumbent, onlyCand, r.Candidate))
	}
	return nil
}

// replay reads and analyses the replay pairs.
func (b *builder) replay() error {
	path := b.cfg.Resolve(b.cfg.Replay)
	f, err := input.Open(path, b.lim)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	hr := newHashReader(f)
	pairs, err := readReplay(hr, path, b.lim.Line())
	if err != nil {
		return err
	}
	rp, err := AnalyzeReplay(pairs, b.cfg.Confidence, b.cfg.ReplayDrop)
	if err != nil {
		return err
	}
	in, err := hr.input(RoleReplay, b.cfg.Replay)
	if err != nil {
		return err
	}
	b.r.Replay = rp
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	return nil
}
