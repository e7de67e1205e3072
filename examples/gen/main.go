// Command gen writes examples/quarterly: a synthetic quarter of
// coding-agent sessions for tally — session summaries, event logs with
// injected production signals and their truth, 40 fixtures, the compacted
// contexts of an incumbent and a candidate summariser, the recorded
// judge's verdicts, replay pairs, prompt sizes and a README.
//
//	go run ./examples/gen [-seed N] [-out DIR] [-format claude-code|tally]
//
// The event logs are written in Claude Code's session format or in
// tally's own event format (-format). The same seed gives byte-identical
// files. The output is written to a
// temporary folder beside DIR and renamed into place, so a failed run
// leaves the old data untouched.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// DefaultSeed is the seed of the committed data.
const DefaultSeed = 20260105

// The formats of the event logs (-format), and the committed data's.
const (
	FormatClaudeCode = "claude-code"
	FormatTally      = "tally"
	DefaultFormat    = FormatClaudeCode
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "gen:", err)
		}
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", DefaultSeed, "the random seed; the same seed gives byte-identical files")
	out := fs.String("out", filepath.Join("examples", "quarterly"), "the output folder, replaced as a whole")
	format := fs.String("format", DefaultFormat, `the event logs' format: "claude-code" (Claude Code's session logs, gzipped) or "tally" (tally's own event format)`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var cc bool
	switch *format {
	case FormatClaudeCode:
		cc = true
	case FormatTally:
	default:
		return fmt.Errorf("-format: want %q or %q, got %q", FormatClaudeCode, FormatTally, *format)
	}
	start := time.Now()
	q, err := generate(*seed, cc)
	if err != nil {
		return err
	}
	if err := writeAtomic(*out, q.Files); err != nil {
		return err
	}
	size := 0
	for _, f := range q.Files {
		size += len(f.Data)
	}
	fmt.Fprintf(stdout, "wrote %d files, %.1f MB, to %s in %v\n", len(q.Files), float64(size)/1e6, *out, time.Since(start).Round(time.Millisecond))
	return nil
}
