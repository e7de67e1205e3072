package selection

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// DefaultSample is the number of flagged sessions `tally signals`
// samples per ISO week.
const DefaultSample = 20

// SignalConfig says how to look for signals.
type SignalConfig struct {
	// Window bounds how far after a compaction a signal counts, in typed
	// turns and in model steps (RepeatWindow; a zero field is no bound).
	Window RepeatWindow
	// Format is the logs' format, or "" to sniff each file's
	// (agentlog.Sniff).
	Format agentlog.Format
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
	return SignalConfig{Window: DefaultRepeatWindow, Sample: DefaultSample, Seed: 1}
}

// Validate reports a configuration that cannot be used.
func (c SignalConfig) Validate() error {
	switch {
	case c.Window.Turns < 0:
		return fmt.Errorf("the window must not be negative, got %d turns", c.Window.Turns)
	case c.Window.Steps < 0:
		return fmt.Errorf("the window must not be negative, got %d steps", c.Window.Steps)
	case c.Format != "" && !slices.Contains(agentlog.Formats, c.Format):
		return fmt.Errorf("the log format must be one of %v, got %q", agentlog.Formats, c.Format)
	case c.Sample < 0:
		return fmt.Errorf("the weekly sample must not be negative, got %d", c.Sample)
	case c.Workers < 0:
		return fmt.Errorf("workers must not be negative, got %d", c.Workers)
	}
	return nil
}

// KindCount counts one signal: the sessions showing it and its
// occurrences, and of those the severe ones.
type KindCount struct {
	Kind           SignalKind
	Sessions       int
	Signals        int
	SevereSessions int
	Severe         int
}

// Week is one ISO week of the logs: its sessions (by their start), those
// flagged, per signal, and the week's sample.
type Week struct {
	Week     string
	Sessions int
	Flagged  int
	Kinds    []KindCount // in SignalKinds order
	// Sample is up to Config.Sample flagged sessions of the week, drawn by
	// a seeded hash of the session id (so the same whatever the order or
	// parallelism of reading) and spread across both signals: the sample
	// takes in turn the next session showing repeated_tool_call and the
	// next showing restated_instruction, by hash, until it is full.
	// Sorted by session id.
	Sample []Flagged
}

// SignalReport is what a scan of agent logs found.
type SignalReport struct {
	Config SignalConfig
	Files  int
	// Lines counts the logs' lines, Bytes their bytes (uncompressed).
	Lines, Bytes                 int64
	Sessions, Compacted, Flagged int
	// Repeated counts sessions read again: a sessionId an earlier input
	// had (a resumed session's log copies its parent's records, and the
	// same logs are often gathered twice). Each is read once, from the
	// first input that has it; the later copies are counted here, not in
	// Sessions, and flag nothing. SubAgents counts sub-agent transcripts
	// (agentlog.Session.SubAgentOnly), which are not sessions either;
	// Unread the logs with no record read (agentlog.Session.Unread).
	Repeated, SubAgents, Unread int
	// Formats counts the sessions read in each format.
	Formats map[agentlog.Format]int
	// NotRead counts the records skipped by type, across sessions
	// (agentlog.Counts.Skipped: records that carry no conversation,
	// sidechains, blank and malformed lines), what was read but left
	// out (agentlog.Session.Dropped) and tool results without their call
	// (OrphanResults).
	NotRead  map[string]int
	Kinds    []KindCount // in SignalKinds order
	Weeks    []Week      // by week; UnknownWeek last
	Skipped  BadLines
	Warnings []string
}

// Input is one agent log to scan: its name in problems and how to open
// it.
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// FileInput is the log at path, opened under lim: a path that is no
// regular file (a named pipe, a device, a folder) is refused without
// blocking, and reading past lim.MaxFile bytes fails.
func FileInput(path string, lim input.Limits) Input {
	return Input{Name: path, Open: func() (io.ReadCloser, error) { return input.Open(path, lim) }}
}

// ReaderInput is a log already open.
func ReaderInput(name string, r io.Reader) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

// fileResult is what the scan of one input found, beside its flagged
// sessions.
type fileResult struct {
	lines     int64
	bytes     int64
	sessions  int
	compacted int
	formats   map[agentlog.Format]int
	notRead   map[string]int
	weeks     map[string]int // sessions per week
	ends      []sessionEnd   // each session with an id, in order
	subagents int
	unread    int // logs with no record read (agentlog.Session.Unread)
	bad       BadLines
	err       error
}

// Scan reads agent logs (any agentlog format, gzipped or not) and finds
// the signals of every session (SessionSignals), calling emit with each
// flagged session: in the order of inputs, and within an input in the
// order of its sessions. The inputs are read in parallel (Config.Workers
// at once), each one session at a time: what is held is the session being
// read, an entry per session to find a session in two inputs, and the
// weekly samples, so memory does not grow with the size of a file.
//
// A malformed line is an error naming file, line and column (and field,
// in tally's event log): the scan stops at it, or with Config.SkipBad
// skips the line and reports it as a warning. A session with records in
// two inputs is read once, from the first (SignalReport.Repeated), with
// a warning; a sub-agent's own transcript is not a session
// (SignalReport.SubAgents). An error from emit stops the scan and is
// returned.
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
	owner := map[uint64]copyAt{} // session id hash → its first copy, across inputs
	rep.Formats, rep.NotRead = map[agentlog.Format]int{}, map[string]int{}
	for i := range inputs {
		for f := range chans[i] {
			if c, ok := owner[fnv1a(f.SessionID)]; ok && c.input != i {
				continue // read from an earlier input
			}
			if err := emit(f); err != nil {
				return nil, err
			}
			rep.Flagged++
			a := week(f.Week)
			a.flagged++
			key := splitmix(cfg.Seed ^ fnv1a(f.SessionID))
			for j, k := range SignalKinds {
				n, severe := 0, 0
				for _, s := range f.Signals {
					if s.Kind == k {
						n++
						if s.Severe {
							severe++
						}
					}
				}
				if n == 0 {
					continue
				}
				for _, c := range []*KindCount{&kinds[j], &a.kinds[j]} {
					c.Sessions++
					c.Signals += n
					if severe > 0 {
						c.SevereSessions++
						c.Severe += severe
					}
				}
				a.pools[j].offer(key, f)
			}
		}
		r := &results[i]
		if r.err != nil {
			return nil, r.err
		}
		rep.Lines += r.lines
		rep.Bytes += r.bytes
		rep.Sessions += r.sessions
		rep.Compacted += r.compacted
		rep.Skipped.merge(r.bad)
		for k, n := range r.formats {
			rep.Formats[k] += n
		}
		for k, n := range r.notRead {
			rep.NotRead[k] += n
		}
		for w, n := range r.weeks {
			week(w).sessions += n
		}
		rep.SubAgents += r.subagents
		rep.Unread += r.unread
		for _, e := range r.ends {
			first, ok := owner[e.hash]
			if !ok {
				owner[e.hash] = copyAt{input: i, lines: e.lines}
				continue
			}
			rep.Repeated++
			rep.Sessions--
			rep.Formats[e.format]--
			week(e.week).sessions--
			if e.compacted {
				rep.Compacted--
			}
			// The copy's records count once, as a copy's, not by type;
			// its malformed lines stay malformed, as the note that
			// names them says (a new user's trial found the two counts
			// apart by one).
			lines := e.lines
			for k, n := range e.notRead {
				if k == agentlog.MalformedLine {
					lines -= n
					continue
				}
				if rep.NotRead[k] -= n; rep.NotRead[k] == 0 {
					delete(rep.NotRead, k)
				}
			}
			rep.NotRead[RepeatedRecords] += lines
			if rep.Repeated <= MaxReported {
				rep.Warnings = append(rep.Warnings, repeatNote(inputs[i].Name, e.line, e.id, inputs[first.input].Name, first.lines, e.lines))
			}
		}
		results[i] = fileResult{} // free its maps
	}
	rep.Warnings = append(rep.Warnings, copyNotes(rep.Repeated, rep.SubAgents, rep.Unread)...)
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
		return cmp.Compare(a, b)
	})
	for _, w := range names {
		a := weeks[w]
		rep.Weeks = append(rep.Weeks, Week{Week: w, Sessions: a.sessions, Flagged: a.flagged, Kinds: a.kinds, Sample: a.sample(cfg.Sample)})
	}
	rep.Warnings = append(rep.Warnings, rep.Skipped.Warnings()...)
	return rep, nil
}

// scanInput scans one input, sending its flagged sessions to out.
func scanInput(ctx context.Context, in Input, cfg SignalConfig, out chan<- *Flagged) (res fileResult) {
	res.weeks = map[string]int{}
	res.formats = map[agentlog.Format]int{}
	res.notRead = map[string]int{}
	rc, err := in.Open()
	if err != nil {
		res.err = fmt.Errorf("reading logs: %w", err)
		return res
	}
	defer rc.Close()
	opts := agentlog.Options{Format: cfg.Format, MaxLine: cfg.Limits.MaxLine, SkipBad: cfg.SkipBad,
		Bad: func(err error) { res.bad.add(fixture.Problem{Msg: err.Error()}) }}
	rd, err := agentlog.NewReader(rc, in.Name, opts)
	if err != nil {
		res.err = err
		return res
	}
	defer rd.Close()
	for n := 0; ; n++ {
		if ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		s, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			res.err = err
			return res
		}
		res.lines += int64(s.Records.Lines())
		for k, v := range s.Records.Skipped {
			res.notRead[k] += v
		}
		if s.SubAgentOnly() {
			res.subagents++
			continue
		}
		if s.Unread() {
			res.unread++
			continue
		}
		res.sessions++
		res.formats[s.Format]++
		for k, v := range s.Dropped {
			res.notRead[k] += v
		}
		if s.OrphanResults > 0 {
			res.notRead[OrphanResults] += s.OrphanResults
		}
		if len(s.Compactions) > 0 {
			res.compacted++
		}
		week := UnknownWeek
		if !s.Start.IsZero() {
			week = isoWeek(s.Start)
		}
		res.weeks[week]++
		id := s.ID
		if id == "" { // a log without session ids: its n-th session
			id = fmt.Sprintf("%s#%d", in.Name, n+1)
		} else {
			e := sessionEnd{hash: fnv1a(id), line: firstLine(s), lines: s.Records.Lines(), id: id, week: week, format: s.Format, compacted: len(s.Compactions) > 0}
			e.notRead = sessionNotRead(s)
			res.ends = append(res.ends, e)
		}
		sigs := SessionSignals(s, cfg.Window)
		if len(sigs) == 0 {
			continue
		}
		f := &Flagged{SessionID: id, File: in.Name, Format: s.Format, Week: week, Signals: sigs}
		select {
		case out <- f:
		case <-ctx.Done():
			res.err = ctx.Err()
			return res
		}
	}
	res.bytes = rd.Bytes()
	return res
}

// sessionEnd is a session of an input: a hash of its id, its first line
// and its lines, and what it added to the input's counts, to take back
// when an earlier input had it.
type sessionEnd struct {
	hash        uint64
	line, lines int
	id, week    string
	format      agentlog.Format
	compacted   bool
	notRead     map[string]int // nil when none
}

// copyAt is the first copy of a session read: its input and its lines.
type copyAt struct{ input, lines int }

// RepeatedRecords is the NotRead entry of the records of sessions read
// again from a later file (SignalReport.Repeated): counted once, as a
// copy's, not by their types.
const RepeatedRecords = "(records of a session read again)"

// sessionNotRead is what of s counts in NotRead: the records skipped by
// type, what was dropped, the tool results without their call.
func sessionNotRead(s *agentlog.Session) map[string]int {
	var m map[string]int
	add := func(k string, n int) {
		if n == 0 {
			return
		}
		if m == nil {
			m = map[string]int{}
		}
		m[k] += n
	}
	for k, n := range s.Records.Skipped {
		add(k, n)
	}
	for k, n := range s.Dropped {
		add(k, n)
	}
	add(OrphanResults, s.OrphanResults)
	return m
}

// repeatNote is the warning on a session read again: where, which copy
// is read, and, when they differ, how — a longer later copy (a log that
// went on after it was copied) is lost unless its file comes first.
func repeatNote(path string, line int, id, firstPath string, firstLines, lines int) string {
	note := fmt.Sprintf("%s:%d: session %s was read from %s already; it is read once, from the first file that has it", path, line, id, firstPath)
	switch {
	case lines > firstLines:
		note += fmt.Sprintf(" — this copy is longer (%d lines, against %d there): give this file first to read it instead", lines, firstLines)
	case lines < firstLines:
		note += fmt.Sprintf(" (this copy has %d lines, the one read %d)", lines, firstLines)
	}
	return note
}

// copyNotes are the warnings that close a read of many logs (Scan,
// SelectLogs): how many sessions were read again beyond the MaxReported
// named one by one, how many in all, and the sub-agent transcripts.
func copyNotes(repeated, subagents, unread int) []string {
	var out []string
	if repeated > MaxReported {
		out = append(out, fmt.Sprintf("%d more sessions were read again from a later file, and read once", repeated-MaxReported))
	}
	if repeated > 0 {
		out = append(out, fmt.Sprintf("%s read again from a later file (the same session id: the same log gathered twice, or a resumed Claude Code session's log, which copies its parent's records) counted once, from the first file",
			plural(repeated, "session", "sessions")))
	}
	if subagents > 0 {
		out = append(out, fmt.Sprintf("%s (files whose records are all isSidechain: a sub-agent's own conversation, under its parent's sessionId) not counted as sessions; the parent's log holds the sub-agent's call and result",
			plural(subagents, "sub-agent transcript", "sub-agent transcripts")))
	}
	if unread > 0 {
		out = append(out, fmt.Sprintf("%s with no record read (every line skipped, as malformed or by its type: see \"Not read\") not counted as sessions",
			plural(unread, "log", "logs")))
	}
	return out
}

// firstLine is the line of the first record of s that the model places.
func firstLine(s *agentlog.Session) int {
	n := 0
	at := func(l int) {
		if l > 0 && (n == 0 || l < n) {
			n = l
		}
	}
	if len(s.Steps) > 0 {
		at(s.Steps[0].Line)
	}
	if len(s.Messages) > 0 {
		at(s.Messages[0].Line)
	}
	if len(s.Compactions) > 0 {
		at(s.Compactions[0].Line)
	}
	return max(n, 1)
}

// fnv1a is the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// OrphanResults is the NotRead key of tool results whose call is not
// in their session (agentlog.Session.OrphanResults).
const OrphanResults = "tool result without its call"

// ScanFiles is Scan over files by path.
func ScanFiles(ctx context.Context, paths []string, cfg SignalConfig, emit func(*Flagged) error) (*SignalReport, error) {
	if len(paths) == 0 {
		return nil, errors.New("no agent logs given")
	}
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = FileInput(p, cfg.Limits)
	}
	return Scan(ctx, inputs, cfg, emit)
}
