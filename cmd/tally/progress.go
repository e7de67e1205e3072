package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/tally-eval/tally/judge"
	"golang.org/x/term"
)

// progress draws a progress bar on a terminal: contexts done of total,
// checks, cache hits, errors, rate and ETA.
type progress struct {
	bar *progressbar.ProgressBar
}

// newBar returns a progress bar on w when w is a terminal, else nil.
func newBar(w io.Writer) *progress {
	if !showsProgress(w) {
		return nil
	}
	return &progress{bar: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("checking"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("contexts"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// showsProgress reports whether progress may be drawn on w: it is a
// terminal and the environment does not ask for none (noProgress).
func showsProgress(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && !noProgress()
}

// noProgress reports whether the environment asks for no progress bar
// though stderr is a terminal: CI set (GitHub Actions, GitLab CI and
// most others set it; some CI agents give a pseudo-terminal, whose log
// would keep every redraw), TERM=dumb, or TALLY_NO_PROGRESS set.
func noProgress() bool {
	return os.Getenv("CI") != "" || os.Getenv("TERM") == "dumb" || os.Getenv("TALLY_NO_PROGRESS") != ""
}

func (p *progress) update(s judge.Progress) {
	if p.bar.GetMax() != s.Contexts {
		p.bar.ChangeMax(s.Contexts)
	}
	p.bar.Describe(fmt.Sprintf("checks %d, judge calls %d, cache hits %d, errors %d", s.Checks, s.Calls, s.CacheHits, s.Errors))
	_ = p.bar.Set(s.ContextsDone)
}

func (p *progress) finish() { _ = p.bar.Finish() }

// stages shows, on a terminal, the stage a long command is at, one line
// rewritten in place ("report: reading the verdicts of the candidate"),
// and clears it when done; elsewhere (a pipe, CI, TERM=dumb) it shows
// nothing.
type stages struct {
	w     io.Writer // nil: show nothing
	name  string
	shown bool
}

// newStages returns the stages of command name on w.
func newStages(w io.Writer, name string) *stages {
	if !showsProgress(w) {
		return &stages{}
	}
	return &stages{w: w, name: name}
}

// show replaces the line with stage.
func (s *stages) show(stage string) {
	if s.w == nil {
		return
	}
	fmt.Fprintf(s.w, "\r\x1b[K%s: %s…", s.name, stage)
	s.shown = true
}

// done clears the line.
func (s *stages) done() {
	if s.w != nil && s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}
