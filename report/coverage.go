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
// item-compactions of the others that must have been checked and were
// not, and the records too old to carry their item's fingerprint. None of
// these is checked, so each is said.
//
// An item is live at a compaction when it was stated before the
// compaction's turn, which the verdicts do not record; but an item with a
// verdict at compaction c was stated before c's turn, and the turns of
// later compactions are later still. So at compaction c, every item
// stated no later than an item with a verdict at c or before was live:
// those item-compactions must have a verdict. A later item may have been
// stated after compaction c, and is not asked for.
func (b *builder) coverageWarnings() {
	type fc struct {
		fi   int32
		comp int
	}
	checked := make([]bool, len(b.itemFix))
	has := map[rowKey]bool{}
	bound := map[fc]int{} // the latest turn of an item with a verdict at that compaction
	for ri, g := range b.rowItem {
		checked[g] = true
		comp := b.r.Items[ri].Compaction
		has[rowKey{g, int32(comp)}] = true
		fi := b.itemFix[g]
		k := fc{fi, comp}
		bound[k] = max(bound[k], b.fixtures[fi].MustSurvive[b.itemPos[g]].Turn)
	}
	var noFixture, noItem []string
	g := int32(0)
	for fi := range b.fixtures {
		fx := &b.fixtures[fi]
		any := false
		for i := range fx.MustSurvive {
			any = any || checked[int(g)+i]
		}
		switch {
		case fx.CompactionsExpected == 0 || len(fx.MustSurvive) == 0:
		case !any:
			noFixture = append(noFixture, fx.ConversationID)
		default:
			live := 0
			for c := 1; c <= fx.CompactionsExpected; c++ {
				live = max(live, bound[fc{int32(fi), c}])
				for i := range fx.MustSurvive {
					if fx.MustSurvive[i].Turn <= live && !has[rowKey{g + int32(i), int32(c)}] {
						noItem = append(noItem, fmt.Sprintf("%s/%s at compaction %d", fx.ConversationID, fx.MustSurvive[i].ID, c))
					}
				}
			}
		}
		g += int32(len(fx.MustSurvive))
	}
	if len(noFixture) > 0 {
		b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
			"%d %s no verdict in either system (%s): added after tally check ran? %s in no row; re-run tally check for both systems",
			len(noFixture), format.Plural(len(noFixture), "fixture has", "fixtures have"), firstFew(noFixture),
			format.Plural(len(noFixture), "Its items are", "Their items are")))
	}
	if len(noItem) > 0 {
		b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
			"%d %s no verdict in either system though the item was live there, stated no later than an item with a verdict at that compaction or before (%s): added after tally check ran, or a verdict file cut short? Re-run tally check for both systems",
			len(noItem), format.Plural(len(noItem), "item-compaction has", "item-compactions have"), firstFew(noItem)))
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
