package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/html"
	"github.com/tally-eval/tally/report/markdown"
	"github.com/tally-eval/tally/report/notebook"
	"github.com/tally-eval/tally/report/xlsx"
)

// reportOutputs names the files `tally report` writes in its folder.
type reportOutputs struct {
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
	XLSX     string `json:"xlsx"`
	Queue    string `json:"queue,omitempty"`
}

// reportJSON is the JSON contract of `tally report`.
type reportJSON struct {
	Verdict string `json:"verdict"`
	// Headline is the verdict in words, as every output gives it.
	Headline string   `json:"headline"`
	Blocks   bool     `json:"blocks"`
	Worse    []string `json:"worse"`
	// Undecided names the rows that block because they could not be
	// decided (judge errors, item-compactions checked by one system).
	Undecided []string      `json:"undecided"`
	Backlog   []string      `json:"backlog"`
	Outputs   reportOutputs `json:"outputs"`
	Warnings  []string      `json:"warnings,omitempty"`
}

// buildReport loads the configuration at path, with nbFlag (a path
// from the working folder) replacing its notebook when not empty, and
// builds the report, every input read under lim. It returns the notebook
// parsed, nil when none is configured (the renderer's default).
func buildReport(path, nbFlag string, lim input.Limits, progress func(string)) (*report.Report, *report.Config, *notebook.Notebook, error) {
	cfg, err := report.LoadConfig(path)
	if err != nil {
		return nil, nil, nil, err
	}
	nbPath := cfg.Resolve(cfg.Notebook)
	if nbFlag != "" {
		nbPath = nbFlag
		cfg.Notebook = relativeTo(filepath.Dir(cfg.File), nbFlag)
	}
	var nb *notebook.Notebook
	if nbPath != "" {
		if nb, err = loadNotebook(nbPath, lim); err != nil {
			return nil, nil, nil, err
		}
	}
	generated, err := report.GeneratedTime(os.Getenv("SOURCE_DATE_EPOCH"), time.Now())
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := report.Build(cfg, report.Options{Generated: generated, Version: version, Limits: lim, Progress: progress})
	if err != nil {
		return nil, nil, nil, err
	}
	return r, cfg, nb, nil
}

// relativeTo returns path p (from the working folder) relative to dir,
// or p made absolute when it has no relative form.
func relativeTo(dir, p string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return p
	}
	if rel, err := filepath.Rel(ad, ap); err == nil {
		return rel
	}
	return ap
}

// loadNotebook reads and validates the notebook at path, a regular file
// under lim.
func loadNotebook(path string, lim input.Limits) (*notebook.Notebook, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, notebook.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("notebook %s: %w", path, err)
	}
	if len(src) > notebook.MaxBytes {
		return nil, fmt.Errorf("notebook %s: larger than %d bytes", path, notebook.MaxBytes)
	}
	return notebook.Parse(path, src)
}

func newReportCmd(opts *options) *cobra.Command {
	var (
		dir, nbFlag string
		gate        bool
		lim         limitFlags
	)
	cmd := &cobra.Command{
		Use:   "report CONFIG.yaml -o DIR [--notebook FILE] [--gate]",
		Short: "Write the quarterly report: Markdown summary, HTML notebook, XLSX workbook, review queue",
		Long: `report builds the report CONFIG.yaml describes (README.md documents every
key) and writes in DIR, all or none: every file is rendered and written
aside before any is replaced, so that a failure leaves DIR as it was:

  report.md    the summary in GitHub Markdown, for a pull-request comment or a
               CI step summary: the verdict, the gates table, the rows that got
               worse with the items lost, the backlog, and task success on the
               last line (reported, not gated)
  report.html  the notebook-style page, one self-contained file
  report.xlsx  the workbook
  queue.csv    the replay's review queue (when a replay is configured; without
               one, a queue.csv left in DIR by an earlier report is removed)

The report's one timestamp is SOURCE_DATE_EPOCH when set, so that the same
inputs give the same bytes. With --gate it exits 3 when the change blocks,
exactly as tally gate does.`,
		Example: "  tally report examples/quarterly/report.yaml -o out/\n  SOURCE_DATE_EPOCH=1775433600 tally report report.yaml -o out --gate",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usagef("-o DIR must name the folder to write the report into, not be empty")
			}
			st := newStages(cmd.ErrOrStderr(), "report")
			r, _, nb, err := buildReport(args[0], nbFlag, lim.Limits, st.show)
			if err != nil {
				st.done()
				return err
			}
			st.show("writing report.md, report.html and report.xlsx")
			out, err := writeReportFiles(dir, r, nb)
			st.done()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				if err := writeJSON(w, reportJSON{Verdict: r.Decision.Verdict(), Headline: r.Decision.Headline(), Blocks: r.Decision.Blocks,
					Worse: nonNil(r.Decision.Worse), Undecided: nonNil(r.Decision.Undecided), Backlog: nonNil(r.Decision.Backlog),
					Outputs: out, Warnings: r.Warnings}); err != nil {
					return err
				}
			} else {
				writeVerdictLine(w, r)
				if b := r.Decision.BacklogCount(); b != "" {
					fmt.Fprintln(w, b)
				}
				// The report's notes (a selection of other sessions, a
				// test resting on few conversations) are said here too,
				// as tally gate says them: a trial's user saw the
				// selection warning only by opening report.md.
				writeWarnings(w, r.Warnings)
				for _, p := range []string{out.Markdown, out.HTML, out.XLSX, out.Queue} {
					if p != "" {
						fmt.Fprintf(w, "wrote %s\n", p)
					}
				}
			}
			if gate {
				return gateErr(r.Decision, false)
			}
			return nil
		}),
	}
	f := cmd.Flags()
	// A word in backquotes in a flag's usage is its value's name in
	// --help (cobra's UnquoteUsage): so no other backquote may appear.
	f.StringVarP(&dir, "output", "o", "", "the folder `DIR` to write report.md, report.html, report.xlsx and queue.csv into (created if missing)")
	f.StringVar(&nbFlag, "notebook", "", "the notebook `FILE` for the HTML report, replacing the configuration's: Markdown whose fenced tally blocks are computed cells (see README.md, \"The notebook\")")
	f.BoolVar(&gate, "gate", false, "exit 3 when the change blocks, as tally gate does")
	lim.register(cmd)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// writeReportFiles writes every output of the report into dir, all or
// none (internal/atomicfile.WriteSet), creating dir when missing. Without a replay it
// removes a queue.csv an earlier report left in dir, so that an old review
// queue does not pass for this report's. When nothing could be written,
// the folders it created are removed again.
func writeReportFiles(dir string, r *report.Report, nb *notebook.Notebook) (reportOutputs, error) {
	if err := usableFolder("-o", dir); err != nil {
		return reportOutputs{}, fmt.Errorf("%w: -o names the folder the report's files go into", err)
	}
	// The folders made for it, parents included, go again on a failure
	// (a re-check trial's interrupted report left w/i7/s9/a).
	created, err := createFolder(filepath.Join(dir, "report.md"))
	if err != nil {
		return reportOutputs{}, fmt.Errorf("-o %s: %w", dir, err)
	}
	out := reportOutputs{
		Markdown: filepath.Join(dir, "report.md"),
		HTML:     filepath.Join(dir, "report.html"),
		XLSX:     filepath.Join(dir, "report.xlsx"),
	}
	files := []atomicfile.File{
		{Path: out.Markdown, Write: func(w io.Writer) error { return markdown.Write(w, r) }},
		{Path: out.HTML, Write: func(w io.Writer) error { return html.Write(w, r, nb) }},
		{Path: out.XLSX, Write: func(w io.Writer) error { return xlsx.Write(w, r) }},
	}
	queue := filepath.Join(dir, "queue.csv")
	var stale []string
	if r.Replay != nil {
		out.Queue = queue
		files = append(files, atomicfile.File{Path: queue, Write: func(w io.Writer) error { return report.WriteQueue(w, r.Replay) }})
	} else {
		stale = append(stale, queue)
	}
	if err := atomicfile.WriteSet(files, stale); err != nil {
		removeFolders(created) // only those still empty
		return reportOutputs{}, err
	}
	return out, nil
}
