package selection

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/tally-eval/tally/internal/input"
)

// Defaults of `tally signals`.
const (
	DefaultWindow = 5
	DefaultSample = 20
)

// SignalConfig says how to look for signals.
type SignalConfig struct {
	// Window: a repeated call counts when issued at most Window turns
	// after the compaction (turn − compaction turn ≤ Window; a call in the
	// compaction's own turn comes after it).
	Window int
	// RestateThreshold is the score a restatement must reach
	// (DefaultRestateThreshold; restate.go).
	RestateThreshold float64
	// Sample is the number of flagged sessions sampled per ISO week, and
	// Seed seeds the sample.
	Sample int
	Seed   uint64
	// SkipBad skips a malformed line (counted, and reported as a
	// warning) instead of failing at it.
	SkipBad bool
	// Workers is the number of files read at once (0: GOMAXPROCS).
	Workers int
	// Limits bounds each line read (Limits.MaxLine) and each file
	// ScanFiles opens (only regular files, of at most Limits.MaxFile);
	// zero fields are package input's defaults.
	Limits input.Limits
}

// DefaultSignalConfig is `tally signals`' configuration.
func DefaultSignalConfig() SignalConfig {
	return SignalConfig{Window: DefaultWindow, RestateThreshold: DefaultRestateThreshold, Sample: DefaultSample, Seed: 1}
}

// Validate reports a configuration that cannot be used.
func (c SignalConfig) Validate() error {
	switch {
	case c.Window < 0:
		return fmt.Errorf("the window must not be negative, got %d", c.Window)
	case !(c.RestateThreshold > 0) || c.RestateThreshold > 10:
		return fmt.Errorf("the restate threshold must be above 0 (and at most 10), got %v", c.RestateThreshold)
	case c.Sample < 0:
		return fmt.Errorf("the weekly sample must not be negative, got %d", c.Sample)
	case c.Workers < 0:
		return fmt.Errorf("workers must not be negative, got %d", c.Workers)
	}
	return nil
}

// KindCount counts one signal: the sessions showing it and its
// occurrences.
type KindCount struct {
	Kind     SignalKind
	Sessions int
	Signals  int
}

// Week is one ISO week of the logs: its sessions (by their first
// timestamp), those flagged, per signal, and the week's sample.
type Week struct {
	Week     string
	Sessions int
	Flagged  int
	Kinds    []KindCount // in SignalKinds order
	// Sample is up to Config.Sample flagged sessions of the week, drawn by
	// a seeded hash of the session_id (so the same whatever the order or
	// parallelism of reading) and spread across both signals: the sample
	// takes in turn the next session showing repeated_tool_call and the
	// next showing restated_instruction, by hash, until it is full.
	// Sorted by session_id.
	Sample []Flagged
}

// SignalReport is what a scan of event logs found.
type SignalReport struct {
	Config                       SignalConfig
	Files                        int
	Events                       int64
	Bytes                        int64
	Sessions, Compacted, Flagged int
	Kinds                        []KindCount // in SignalKinds order
	Weeks                        []Week      // by week; UnknownWeek last
	Skipped                      BadLines
	Warnings                     []string
}

// Input is one event log to scan: its name in problems and how to open
// it.
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// FileInput is the event log at path, opened under lim: a path that is
// no regular file (a named pipe, a device, a folder) is refused without
// blocking, and reading past lim.MaxFile bytes fails.
func FileInput(path string, lim input.Limits) Input {
	return Input{Name: path, Open: func() (io.ReadCloser, error) { return input.Open(path, lim) }}
}

// ReaderInput is an event log already open.
func ReaderInput(name string, r io.Reader) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

// fileResult is what the scan of one input found, beside its flagged
// sessions.
type fileResult struct {
	events    int64
	bytes     int64
	sessions  int
	compacted int
	weeks     map[string]int // sessions per week
	ends      map[uint64]int // hash of a session_id → the line its events end at
	bad       BadLines
	warnings  []string
	err       error
}

// Scan reads event logs and finds the signals of every session,
// calling emit with each flagged session: in the order of inputs, and
// within an input in the order its sessions end. The inputs are read in
// parallel (Config.Workers at once); each is streamed one line at a
// time, and what is held is one session's distinct tool calls and user
// messages (capped by MaxSessionCalls and MaxSessionUserMessages), a
// 12-byte entry per session to check that each session's events are
// together, and the weekly samples.
//
// A session's events must be together in one input and in turn order; a
// malformed line, a session whose events resume after another's, or a
// turn that goes back is a problem naming file, line, column and field:
// the scan stops at it, or with Config.SkipBad skips the line (or the
// resumed events) and reports it as a warning. A session with events in
// two inputs is checked in each alone, with a warning. An error from
// emit stops the scan and is returned.
func Scan(ctx context.Context, inputs []Input, cfg SignalConfig, emit func(*Flagged) error) (*SignalReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chans := make([]chan *Flagged, len(inputs))
	results := make([]fileResult, len(inputs))
	for i := range chans {
		chans[i] = make(chan *Flagged, 256)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // starts the workers in input order, so the input being consumed always has one
		defer wg.Done()
		sem := make(chan struct{}, workers)
		for i := range inputs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				for j := i; j < len(inputs); j++ {
					results[j].err = ctx.Err()
					close(chans[j])
				}
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				results[i] = scanInput(ctx, inputs[i], cfg, chans[i])
				close(chans[i])
			}()
		}
	}()
	rep, err := consume(inputs, cfg, chans, results, emit)
	cancel()
	wg.Wait()
	return rep, err
}

// consume takes the flagged sessions of each input in order, and the
// input's result when its channel closes.
func consume(inputs []Input, cfg SignalConfig, chans []chan *Flagged, results []fileResult, emit func(*Flagged) error) (*SignalReport, error) {
	rep := &SignalReport{Config: cfg, Files: len(inputs)}
	kinds := make([]KindCount, len(SignalKinds))
	for i, k := range SignalKinds {
		kinds[i].Kind = k
	}
	weeks := map[string]*weekAcc{}
	week := func(w string) *weekAcc {
		a := weeks[w]
		if a == nil {
			a = &weekAcc{kinds: make([]KindCount, len(SignalKinds))}
			for i, k := range SignalKinds {
				a.kinds[i].Kind = k
				a.pools[i].k = cfg.Sample
			}
			weeks[w] = a
		}
		return a
	}
	owner := map[uint64]int{} // session_id hash → input, across inputs
	for i := range inputs {
		for f := range chans[i] {
			if err := emit(f); err != nil {
				return nil, err
			}
			rep.Flagged++
			a := week(f.Week)
			a.flagged++
			key := splitmix(cfg.Seed ^ hashWord([]byte(f.SessionID)))
			for j, k := range SignalKinds {
				n := 0
				for _, s := range f.Signals {
					if s.Kind == k {
						n++
					}
				}
				if n > 0 {
					kinds[j].Sessions++
					kinds[j].Signals += n
					a.kinds[j].Sessions++
					a.kinds[j].Signals += n
					a.pools[j].offer(key, f)
				}
			}
		}
		r := &results[i]
		if r.err != nil {
			return nil, r.err
		}
		rep.Events += r.events
		rep.Bytes += r.bytes
		rep.Sessions += r.sessions
		rep.Compacted += r.compacted
		rep.Skipped.merge(r.bad)
		rep.Warnings = append(rep.Warnings, r.warnings...)
		for w, n := range r.weeks {
			week(w).sessions += n
		}
		split := 0
		for h := range r.ends {
			if j, ok := owner[h]; ok {
				if split++; split <= MaxReported {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s:%d: this session also has events in %s; each file's part was checked alone",
						inputs[i].Name, r.ends[h], inputs[j].Name))
				}
				continue
			}
			owner[h] = i
		}
		if split > MaxReported {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d more sessions also have events in an earlier file", inputs[i].Name, split-MaxReported))
		}
		results[i] = fileResult{} // free its maps
	}
	rep.Kinds = kinds
	names := make([]string, 0, len(weeks))
	for w := range weeks {
		names = append(names, w)
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == UnknownWeek) != (b == UnknownWeek) {
			if a == UnknownWeek {
				return 1
			}
			return -1
		}
		return compareStrings(a, b)
	})
	for _, w := range names {
		a := weeks[w]
		rep.Weeks = append(rep.Weeks, Week{Week: w, Sessions: a.sessions, Flagged: a.flagged, Kinds: a.kinds, Sample: a.sample(cfg.Sample)})
	}
	rep.Warnings = append(rep.Warnings, rep.Skipped.Warnings()...)
	return rep, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scanInput scans one input, sending its flagged sessions to out.
func scanInput(ctx context.Context, in Input, cfg SignalConfig, out chan<- *Flagged) (res fileResult) {
	res.weeks = map[string]int{}
	res.ends = map[uint64]int{}
	rc, err := in.Open()
	if err != nil {
		res.err = fmt.Errorf("reading events: %w", err)
		return res
	}
	defer rc.Close()
	er := NewEventReaderSize(rc, in.Name, cfg.Limits.MaxLine)
	det := newDetector(cfg.Window, cfg.RestateThreshold)
	inSession := false
	lastLine := 0
	skipping := "" // a resumed session whose events are skipped
	finish := func() bool {
		if !inSession {
			return true
		}
		inSession = false
		res.sessions++
		if det.epoch > 0 {
			res.compacted++
		}
		res.weeks[det.week]++
		res.ends[hashWord([]byte(det.id))] = lastLine
		if f, ok := det.finish(); ok {
			select {
			case out <- &f:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	bad := func(err error) bool { // reports whether to go on
		if cfg.SkipBad && isProblem(err) {
			res.bad.add(asProblem(err))
			return true
		}
		res.err = err
		return false
	}
	for n := 0; ; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		ev, err := er.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !bad(err) {
				return res
			}
			continue
		}
		line := er.Line()
		if skipping != "" {
			if string(ev.session) == skipping {
				res.bad.Count++
				continue
			}
			skipping = ""
		}
		if !inSession || string(ev.session) != det.id {
			if !finish() {
				res.err = ctx.Err()
				return res
			}
			if end, ok := res.ends[hashWord(ev.session)]; ok {
				p := problem(in.Name, line, "session_id", fmt.Sprintf(
					"the events of session %q are not together: an earlier run of them ends at line %d", ev.session, end))
				if !bad(p) {
					return res
				}
				skipping = string(ev.session)
				continue
			}
			det.start(string(ev.session))
			inSession = true
		} else if ev.turn < det.lastTurn {
			p := problem(in.Name, line, "turn", fmt.Sprintf(
				"turn %d comes after turn %d of session %q: a session's events must be in turn order", ev.turn, det.lastTurn, ev.session))
			if !bad(p) {
				return res
			}
			continue
		}
		det.add(ev, &er.dec)
		lastLine = line
		res.events++
	}
	if !finish() {
		res.err = ctx.Err()
		return res
	}
	res.bytes = er.Bytes()
	res.warnings = det.warnings
	return res
}

// weekAcc accumulates one week.
type weekAcc struct {
	sessions, flagged int
	kinds             []KindCount
	pools             [2]bottomK // per SignalKinds
}

// sample draws the week's sample from its pools, alternating between
// the signals.
func (a *weekAcc) sample(k int) []Flagged {
	var lists [2][]keyed
	for i := range a.pools {
		lists[i] = slices.Clone(a.pools[i].h)
		slices.SortFunc(lists[i], func(x, y keyed) int { return compareUint64(x.key, y.key) })
	}
	taken := map[string]bool{}
	var out []Flagged
	for i, pos := 0, [2]int{}; len(out) < k && (pos[0] < len(lists[0]) || pos[1] < len(lists[1])); i = 1 - i {
		for pos[i] < len(lists[i]) {
			f := lists[i][pos[i]].f
			pos[i]++
			if !taken[f.SessionID] {
				taken[f.SessionID] = true
				out = append(out, *f)
				break
			}
		}
	}
	slices.SortFunc(out, func(x, y Flagged) int { return compareStrings(x.SessionID, y.SessionID) })
	return out
}

// keyed is a flagged session with its sampling key.
type keyed struct {
	key uint64
	f   *Flagged
}

// bottomK keeps the k sessions with the smallest keys: a max-heap.
type bottomK struct {
	k int
	h []keyed
}

func (b *bottomK) offer(key uint64, f *Flagged) {
	if b.k == 0 {
		return
	}
	if len(b.h) < b.k {
		b.h = append(b.h, keyed{key, f})
		for i := len(b.h) - 1; i > 0; {
			p := (i - 1) / 2
			if b.h[p].key >= b.h[i].key {
				break
			}
			b.h[p], b.h[i] = b.h[i], b.h[p]
			i = p
		}
		return
	}
	if key >= b.h[0].key {
		return
	}
	b.h[0] = keyed{key, f}
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(b.h) && b.h[l].key > b.h[m].key {
			m = l
		}
		if r := l + 1; r < len(b.h) && b.h[r].key > b.h[m].key {
			m = r
		}
		if m == i {
			return
		}
		b.h[m], b.h[i] = b.h[i], b.h[m]
		i = m
	}
}

func compareUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// splitmix is SplitMix64's finaliser: a well-mixed key from a hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// ScanFiles is Scan over files by path.
func ScanFiles(ctx context.Context, paths []string, cfg SignalConfig, emit func(*Flagged) error) (*SignalReport, error) {
	if len(paths) == 0 {
		return nil, errors.New("no event logs given")
	}
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = FileInput(p, cfg.Limits)
	}
	return Scan(ctx, inputs, cfg, emit)
}
