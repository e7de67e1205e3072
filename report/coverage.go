package report

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report/internal/format"
)

// fingerprint returns global item g's fingerprint, computed once.
func (b *builder) fingerprint(g int32, it *fixture.Item) string {
	if b.prints == nil {
		b.prints = make([]string, len(b.itemFix))
	}
	if b.prints[g] == "" {
		b.prints[g] = it.Fingerprint()
	}
	return b.prints[g]
}

// coverageWarnings says what the verdicts leave out of the fixtures: a
// fixture no system has a verdict for (added after the check ran?), the
// items of the others that must have been checked and were not, and the
// records too old to carry their item's fingerprint. None of these is
// checked, so each is said.
//
// An item is live at a compaction when it was stated before the
// compaction's turn, which the verdicts do not record; but an item with a
// verdict at a fixture's last compaction was stated before that turn, so
// every item stated no later than it was live there too. Those are the
// items that must have a verdict; a later one may have been stated after
// the last compaction, and is never live.
func (b *builder) coverageWarnings() {
	checked := make([]bool, len(b.itemFix))
	// lastTurn[fi] is the latest turn of an item with a verdict at
	// fixture fi's last compaction (0: none).
	lastTurn := make([]int, len(b.fixtures))
	for ri, g := range b.rowItem {
		checked[g] = true
		fi := b.itemFix[g]
		fx := &b.fixtures[fi]
		if b.r.Items[ri].Compaction == fx.CompactionsExpected {
			lastTurn[fi] = max(lastTurn[fi], fx.MustSurvive[b.itemPos[g]].Turn)
		}
	}
	var noFixture, noItem []string
	g := 0
	for fi := range b.fixtures {
		fx := &b.fixtures[fi]
		any := false
		for i := range fx.MustSurvive {
			any = any || checked[g+i]
		}
		switch {
		case fx.CompactionsExpected == 0 || len(fx.MustSurvive) == 0:
		case !any:
			noFixture = append(noFixture, fx.ConversationID)
		default:
			for i := range fx.MustSurvive {
				if !checked[g+i] && fx.MustSurvive[i].Turn <= lastTurn[fi] {
					noItem = append(noItem, fx.ConversationID+"/"+fx.MustSurvive[i].ID)
				}
			}
		}
		g += len(fx.MustSurvive)
	}
	if len(noFixture) > 0 {
		b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
			"%d %s no verdict in either system (%s): added after tally check ran? Their items are in no row; re-run tally check for both systems",
			len(noFixture), format.Plural(len(noFixture), "fixture has", "fixtures have"), firstFew(noFixture)))
	}
	if len(noItem) > 0 {
		b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
			"%d %s no verdict in either system though stated before an item that has one at the conversation's last compaction, so live there (%s): added after tally check ran? Re-run it for both systems",
			len(noItem), format.Plural(len(noItem), "item has", "items have"), firstFew(noItem)))
	}
	for s, n := range b.unprinted {
		if n > 0 {
			name := []string{b.cfg.Incumbent.Name, b.cfg.Candidate.Name}[s]
			b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
				"%s: %d verdict %s no item fingerprint (written by an older tally), so an edit to %s fixture item since cannot be detected; re-run tally check",
				name, n, format.Plural(n, "record carries", "records carry"), format.Plural(n, "its", "their")))
		}
	}
}

// firstFew lists up to five names, and how many more there are.
func firstFew(names []string) string {
	shown := names[:min(len(names), 5)]
	s := strings.Join(shown, ", ")
	if n := len(names) - len(shown); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}
