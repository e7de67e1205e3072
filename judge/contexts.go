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

// planContexts walks the fixture set once and checks every fixture's
// contexts against it (fixture.CheckContexts), and the contexts folder
// for folders no fixture owns. It returns each fixture's set, having
// counted the fixtures and the contexts (present files, and missing ones
// when cfg.AllowMissing), or every problem found, all at once.
func planContexts(cfg CheckConfig, nFixtures, nContexts *int) (map[string]fixture.ContextSet, error) {
	sets := map[string]fixture.ContextSet{}
	var probs fixture.Problems
	present, missing, others := 0, 0, 0
	if info, err := os.Stat(cfg.Contexts); err == nil && !info.IsDir() {
		// A file, a named pipe or a device: named, never opened.
		return nil, fmt.Errorf("%s: is not a folder (want the folder of the compacted contexts, <conversation_id>/<n>.json)", cfg.Contexts)
	}
	loader := fixture.Loader{Limits: cfg.Limits}
	walkErr := loader.Walk(func(f fixture.Fixture) error {
		set, miss, err := loader.CheckContexts(cfg.Contexts, cfg.System, f)
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
		sets[f.ConversationID] = set
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
		*nContexts += missing
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

// missingRecords are the error records of compaction n of f, whose
// context is missing: one per item stated before maxTurn, the latest turn
// the context could have served.
func missingRecords(system string, f fixture.Fixture, n, maxTurn int) []fixture.Record {
	var recs []fixture.Record
	for _, it := range f.MustSurvive {
		if !it.LiveAt(fixture.Context{Turn: maxTurn}) {
			continue
		}
		recs = append(recs, fixture.Record{
			System: system, ConversationID: f.ConversationID, Compaction: n,
			ItemID: it.ID, Class: it.Class, Verdict: fixture.Error, Reason: ReasonNoContext,
		})
	}
	return recs
}
