package judge

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// contextPlan is what the first reading of a fixture's contexts leaves
// for the check: the set, and, when the contexts were searched then
// (found is not nil), which live items each present context holds
// verbatim: found[(n−1)·len(items) + k] for item k at compaction n.
type contextPlan struct {
	set   fixture.ContextSet
	found []bool
}

// planContexts walks the fixture set once and checks every fixture's
// contexts against it (fixture.CheckContexts), and the contexts folder
// for folders no fixture owns. It returns each fixture's plan, having
// counted the fixtures, the contexts present and (when cfg.AllowMissing)
// the contexts missing, or every problem found, all at once. With search
// set it also searches each context for its fixture's live items as it
// checks it (fixture.Loader.CheckContextsEach), so that a check whose
// judge needs no context text reads every context once.
func planContexts(cfg CheckConfig, search bool, nFixtures, nContexts, nMissing *int) (map[string]contextPlan, error) {
	sets := map[string]contextPlan{}
	var probs fixture.Problems
	present, missing, others := 0, 0, 0
	if info, err := os.Stat(cfg.Contexts); err == nil && !info.IsDir() {
		// A file, a named pipe or a device: named, never opened.
		return nil, fmt.Errorf("%s: is not a folder (want the folder of the compacted contexts, <conversation_id>/<n>.json)", cfg.Contexts)
	}
	loader := fixture.Loader{Limits: cfg.Limits}
	walkErr := loader.Walk(func(f fixture.Fixture) error {
		var plan contextPlan
		var each func(fixture.Context, []byte)
		if search && len(f.MustSurvive) > 0 {
			plan.found = make([]bool, max(f.CompactionsExpected, 0)*len(f.MustSurvive))
			lits := literalsOf(f)
			each = func(c fixture.Context, rendered []byte) {
				k := len(f.MustSurvive)
				if c.Compaction < 1 || c.Compaction*k > len(plan.found) {
					return // refused by CheckContexts all the same
				}
				searchContext(lits, f, c, rendered, plan.found[(c.Compaction-1)*k:c.Compaction*k])
			}
		}
		set, miss, err := loader.CheckContextsEach(cfg.Contexts, cfg.System, f, each)
		plan.set = set
		ps := fixture.AsProblems(err)
		if ps == nil && err != nil {
			return err
		}
		others += len(ps)
		if !cfg.AllowMissing {
			ps = append(ps, miss...)
			slices.SortStableFunc(ps, func(a, b fixture.Problem) int {
				return cmp.Compare(compactionOf(a.File), compactionOf(b.File))
			})
		}
		probs = append(probs, ps...)
		sets[f.ConversationID] = plan
		missing += len(miss)
		present += len(set.Files) - len(set.Missing)
		*nFixtures++
		return nil
	}, cfg.Fixtures)
	if walkErr != nil {
		// The fixtures themselves are wrong: their problems alone, since
		// without the whole set the contexts cannot be matched to it.
		return nil, walkErr
	}
	if present == 0 && others == 0 {
		return nil, fmt.Errorf("%s: no compacted contexts for any of the %d fixtures (want %s)", cfg.Contexts, *nFixtures,
			filepath.Join(cfg.Contexts, "<conversation_id>", "<n>.json"))
	}
	orphans, err := fixture.OrphanContexts(cfg.Contexts, cfg.System, func(id string) bool {
		_, ok := sets[id]
		return ok
	})
	if err != nil {
		return nil, err
	}
	probs = append(probs, orphans...)
	if len(probs) > 0 {
		return nil, probs
	}
	*nContexts = present
	if cfg.AllowMissing {
		*nMissing = missing
	}
	return sets, nil
}

// compactionOf is the n of a context file's name <n>.json, or 0.
func compactionOf(path string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".json"))
	if err != nil {
		return 0
	}
	return n
}

// turnBounds returns the earliest and the latest turn that missing
// compaction n (1-based) of set can have served. Turns increase strictly
// with the compaction and lie within 1..f.Turns, so with the nearest
// present compactions p < n < q (turns Tp and Tq) the turn T of n is in
// Tp + (n−p) ≤ T ≤ Tq − (q−n); without a present p, Tp is 0 (p = 0);
// without a present q, Tq − (q−n) is f.Turns − (compactions − n).
func turnBounds(set fixture.ContextSet, f fixture.Fixture, n int) (lo, hi int) {
	lo = n
	for p := n - 1; p >= 1; p-- {
		if t := set.Turns[p-1]; t > 0 {
			lo = t + (n - p)
			break
		}
	}
	hi = f.Turns - (len(set.Files) - n)
	for q := n + 1; q <= len(set.Turns); q++ {
		if t := set.Turns[q-1]; t > 0 {
			hi = t - (q - n)
			break
		}
	}
	return lo, max(hi, lo)
}

// missingRecords are the error records of compaction n of f, whose
// context is missing (see CheckConfig.AllowMissing): with lo and hi the
// earliest and latest turn it can have served, an item stated before lo
// is certainly live — error ReasonNoContext; one stated in lo..hi−1 may
// be — error ReasonLivenessUnknown; one stated at hi or later cannot be
// and has no record.
func missingRecords(system string, f fixture.Fixture, set fixture.ContextSet, n int) []fixture.Record {
	lo, hi := turnBounds(set, f, n)
	var recs []fixture.Record
	for _, it := range f.MustSurvive {
		reason := ReasonNoContext
		switch {
		case it.LiveAt(fixture.Context{Turn: lo}):
		case it.LiveAt(fixture.Context{Turn: hi}):
			reason = ReasonLivenessUnknown
		default:
			continue
		}
		recs = append(recs, fixture.Record{
			System: system, ConversationID: f.ConversationID, Compaction: n,
			ItemID: it.ID, Class: it.Class, Verdict: fixture.Error, Reason: reason, Item: it.Fingerprint(),
		})
	}
	return recs
}
