package report

import (
	"fmt"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/reviews"
)

// readReviews reads the reviewers' verdicts the configuration names
// (reviews:), keeps those of this report's two systems on its
// item-compactions, and says what it could not use: reviews of another
// system, of no item-compaction of this report, of an item edited since
// (its fingerprint differs from the verdict record's), or of another
// verdict than the record's (judge_verdict differs: the verdicts were
// checked again, by another judge or run, since the review). A review
// overrules only the verdict its reviewer saw; used on another, it had
// turned an incumbent's contradiction into no contradiction, and an
// unchanged candidate into "worse" (a new user's trial).
func (b *builder) readReviews() error {
	cfg := b.cfg
	if cfg.Reviews == "" {
		return nil
	}
	path := cfg.Resolve(cfg.Reviews)
	// A configured file must exist: reviews.Load reads a missing one as
	// no reviews, which a report must not do in silence.
	f, err := input.Open(path, b.lim)
	if err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	f.Close()
	all, err := reviews.Load(path, b.lim)
	if err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	in, err := hashFile(RoleReviews, cfg.Reviews, path, b.lim)
	if err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	rows := map[reviews.Key]*ItemRow{}
	for i := range b.r.Items {
		row := &b.r.Items[i]
		for s, name := range []string{b.r.Incumbent, b.r.Candidate} {
			rec := []*fixture.Record{&row.Incumbent, &row.Candidate}[s]
			if rec.Verdict != "" {
				rows[reviews.Key{ConversationID: row.ConversationID, Compaction: row.Compaction, ItemID: row.ItemID, System: name}] = row
			}
		}
	}
	b.reviews = map[reviews.Key]reviews.Review{}
	var other, unmatched, stale, otherVerdict int
	for _, rv := range all {
		k := rv.Key()
		row, ok := rows[k]
		switch {
		case rv.System != b.r.Incumbent && rv.System != b.r.Candidate:
			other++
		case !ok:
			unmatched++
		default:
			rec := row.Incumbent
			if rv.System == b.r.Candidate {
				rec = row.Candidate
			}
			if rv.Item != "" && rec.Item != "" && rv.Item != rec.Item {
				stale++
				continue
			}
			if rv.JudgeVerdict != "" && rv.JudgeVerdict != rec.Verdict {
				otherVerdict++
				continue
			}
			b.reviews[k] = rv
		}
	}
	b.r.reviews = b.reviews
	if n := other + unmatched + stale + otherVerdict; n > 0 {
		b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
			"reviews: %d of %d %s not used: %d of another system than %q and %q, %d of no item-compaction either system checked, %d of an item edited since it was reviewed, %d of another verdict than the judge's now (the verdicts were checked again since)",
			n, len(all), format.Plural(len(all), "review", "reviews"), other, b.r.Incumbent, b.r.Candidate, unmatched, stale, otherVerdict))
	}
	return nil
}

// reviewed is the verdict of system s (0 incumbent, 1 candidate) on row
// for the contradiction row: the judge's verdict v, except where a
// reviewer saw that verdict and answered otherwise, when it is the
// reviewer's — both ways: a contradiction the reviewer found otherwise is
// a judge error and counts as no contradiction, and a contradiction the
// reviewer found where the judge saw none counts as one (a new user's
// trial confirmed four inversions the judge had missed, and the report
// said the candidate contradicted nothing). An error verdict is not
// overruled: the item was not judged.
func (b *builder) reviewed(s int, row *ItemRow, v fixture.Verdict) fixture.Verdict {
	if b.reviews == nil || v == fixture.Error || v == "" {
		return v
	}
	name := []string{b.r.Incumbent, b.r.Candidate}[s]
	rv, ok := b.reviews[reviews.Key{ConversationID: row.ConversationID, Compaction: row.Compaction, ItemID: row.ItemID, System: name}]
	if !ok || (v == fixture.Contradicted) == (rv.Verdict == fixture.Contradicted) {
		return v
	}
	return rv.Verdict
}

// Reviewed is the verdict a reviewer gave system's record of the
// item-compaction k, among the reviews this report uses (report.yaml's
// reviews:); ok is false when there is none. The class rows count the
// judge's verdicts (gates.use), so a renderer that lists an item shows a
// reviewer's other verdict beside the judge's.
func (r *Report) Reviewed(k ItemKey, system string) (v fixture.Verdict, ok bool) {
	rv, ok := r.reviews[reviews.Key{ConversationID: k.ConversationID, Compaction: k.Compaction, ItemID: k.ItemID, System: system}]
	return rv.Verdict, ok
}
