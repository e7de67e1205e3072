package judge

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

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
// the contexts missing, and (when cfg.SkipOrphans) the folders of
// conversations no fixture names, left unchecked, or every problem found,
// all at once. With search
// set it also searches each context for its fixture's live items as it
// checks it (fixture.Loader.CheckContextsEach), so that a check whose
// judge needs no context text reads every context once.
func planContexts(cfg CheckConfig, search bool, n *setCounts) (map[string]contextPlan, error) {
	sets := map[string]contextPlan{}
	var probs fixture.Problems
	present, missing, others := 0, 0, 0
	if info, err := os.Stat(cfg.Contexts); err == nil && !info.IsDir() {
		// A file, a named pipe or a device: named, never opened.
		return nil, fmt.Errorf("%s: is not a folder (want the folder of the compacted contexts, <conversation_id>/<n>.json)", cfg.Contexts)
	}
	// The fixtures' contexts are read by workers, a fixture each at a
	// time, and their results taken in the fixtures' order.
	loader := fixture.Loader{Limits: cfg.Limits}
	type job struct {
		f   fixture.Fixture
		out *planned
	}
	jobs := make(chan job, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				*j.out = planFixture(loader, cfg, search, j.f)
			}
		}()
	}
	var results []*planned
	walkErr := loader.Walk(func(f fixture.Fixture) error {
		out := &planned{conv: f.ConversationID}
		results = append(results, out)
		jobs <- job{f, out}
		return nil
	}, cfg.Fixtures)
	close(jobs)
	wg.Wait()
	for _, r := range results {
		if walkErr != nil {
			break
		}
		if r.err != nil {
			return nil, r.err
		}
		others += len(r.probs)
		ps := r.probs
		if !cfg.AllowMissing {
			ps = append(ps, r.miss...)
			slices.SortStableFunc(ps, func(a, b fixture.Problem) int {
				return cmp.Compare(compactionOf(a.File), compactionOf(b.File))
			})
		}
		probs = append(probs, ps...)
		sets[r.conv] = r.plan
		missing += len(r.miss)
		present += len(r.plan.set.Files) - len(r.plan.set.Missing)
		n.fixtures++
	}
	if walkErr != nil {
		// The fixtures themselves are wrong: their problems alone, since
		// without the whole set the contexts cannot be matched to it.
		return nil, walkErr
	}
	if present == 0 && others == 0 {
		return nil, fmt.Errorf("%s: no compacted contexts for any of the %d fixtures (want %s)", cfg.Contexts, n.fixtures,
			filepath.Join(cfg.Contexts, "<conversation_id>", "<n>.json"))
	}
	orphans, err := fixture.OrphanContexts(cfg.Contexts, cfg.System, func(id string) bool {
		_, ok := sets[id]
		return ok
	})
	if err != nil {
		return nil, err
	}
	if cfg.SkipOrphans {
		n.orphans = len(orphans)
	} else {
		probs = append(probs, orphans...)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	n.contexts = present
	if cfg.AllowMissing {
		n.missing = missing
	}
	return sets, nil
}

// planned is what planFixture found of one fixture's contexts.
type planned struct {
	conv        string
	plan        contextPlan
	probs, miss fixture.Problems
	err         error // not a problem of the input: an I/O error
}

// planFixture checks f's contexts (fixture.Loader.CheckContextsEach),
// searching them for f's live items when search is set.
func planFixture(loader fixture.Loader, cfg CheckConfig, search bool, f fixture.Fixture) planned {
	out := planned{conv: f.ConversationID}
	var each func(fixture.Context, []byte)
	if search && len(f.MustSurvive) > 0 {
		k := len(f.MustSurvive)
		out.plan.found = make([]bool, max(f.CompactionsExpected, 0)*k)
		lits := literalsOf(f)
		each = func(c fixture.Context, rendered []byte) {
			if c.Compaction < 1 || c.Compaction*k > len(out.plan.found) {
				return // refused by CheckContexts all the same
			}
			searchContext(lits, f, c, rendered, out.plan.found[(c.Compaction-1)*k:c.Compaction*k])
		}
	}
	set, miss, err := loader.CheckContextsEach(cfg.Contexts, cfg.System, f, each)
	out.plan.set, out.miss = set, miss
	out.probs = fixture.AsProblems(err)
	if out.probs == nil && err != nil {
		out.err = err
	}
	return out
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
