package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/report"
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
	Verdict  string        `json:"verdict"`
	Blocks   bool          `json:"blocks"`
	Worse    []string      `json:"worse"`
	Backlog  []string      `json:"backlog"`
	Outputs  reportOutputs `json:"outputs"`
	Warnings []string      `json:"warnings,omitempty"`
}

// buildReport loads the configuration at path, with notebook (a path
// from the working folder) replacing its notebook when not empty, and
// builds the report. It returns the notebook parsed, nil when none is
// configured (the renderer's default).
func buildReport(path, notebook string) (*report.Report, *report.Config, *report.Notebook, error) {
	cfg, err := report.LoadConfig(path)
	if err != nil {
		return nil, nil, nil, err
	}
	nbPath := cfg.Resolve(cfg.Notebook)
	if notebook != "" {
		nbPath = notebook
		cfg.Notebook = relativeTo(filepath.Dir(cfg.File), notebook)
	}
	var nb *report.Notebook
	if nbPath != "" {
		if nb, err = loadNotebook(nbPath); err != nil {
			return nil, nil, nil, err
		}
	}
	generated, err := report.GeneratedTime(os.Getenv("SOURCE_DATE_EPOCH"), time.Now())
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := report.Build(cfg, report.Options{Generated: generated, Version: version})
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

// loadNotebook reads and validates the notebook at path.
func loadNotebook(path string) (*report.Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, report.MaxNotebookBytes+1))
	if err != nil {
		return nil, fmt.Errorf("notebook %s: %w", path, err)
	}
	if len(src) > report.MaxNotebookBytes {
		return nil, fmt.Errorf("notebook %s: larger than %d bytes", path, report.MaxNotebookBytes)
	}
	return report.ParseNotebook(path, src)
}

func newReportCmd(opts *options) *cobra.Command {
	var (
		dir, notebook string
		gate          bool
	)
	cmd := &cobra.Command{
		Use:   "report CONFIG.yaml -o DIR [--notebook FILE] [--gate]",
		Short: "Write the quarterly report: Markdown summary, HTML notebook, XLSX workbook, review queue",
		Long: `report builds the report CONFIG.yaml describes (README.md documents every
key) and writes, each atomically, in DIR:

  report.md    the summary in GitHub Markdown, for a pull-request comment or a
               CI step summary: the verdict, the gates table, the rows that got
               worse with the items lost, the backlog, and task success on the
               last line (reported, not gated)
  report.html  the notebook-style page, one self-contained file
  report.xlsx  the workbook
  queue.csv    the replay's review queue (when a replay is configured)

The report's one timestamp is SOURCE_DATE_EPOCH when set, so that the same
inputs give the same bytes. With --gate it exits 3 when the change blocks,
exactly as tally gate does.`,
		Example: "  tally report examples/quarterly/report.yaml -o out/\n  SOURCE_DATE_EPOCH=1775433600 tally report report.yaml -o out --gate",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return errors.New("-o DIR is required: the folder to write the report into")
			}
			r, _, nb, err := buildReport(args[0], notebook)
			if err != nil {
				return err
			}
			out, err := writeReportFiles(dir, r, nb)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				if err := writeJSON(w, reportJSON{Verdict: verdictWord(r.Decision), Blocks: r.Decision.Blocks,
					Worse: nonNil(r.Decision.Worse), Backlog: nonNil(r.Decision.Backlog), Outputs: out, Warnings: r.Warnings}); err != nil {
					return err
				}
			} else {
				writeVerdictLine(w, r.Decision)
				if len(r.Decision.Backlog) > 0 {
					fmt.Fprintf(w, "backlog (unmet by both systems): %d gates\n", len(r.Decision.Backlog))
				}
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
	f.StringVarP(&dir, "output", "o", "", "folder to write report.md, report.html, report.xlsx and queue.csv into (created if missing)")
	f.StringVar(&notebook, "notebook", "", "notebook for the HTML report (Markdown with ```tally cells), replacing the configuration's")
	f.BoolVar(&gate, "gate", false, "exit 3 when the change blocks, as tally gate does")
	return cmd
}

// writeReportFiles writes every output of the report into dir,
// atomically each.
func writeReportFiles(dir string, r *report.Report, nb *report.Notebook) (reportOutputs, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return reportOutputs{}, err
	}
	out := reportOutputs{
		Markdown: filepath.Join(dir, "report.md"),
		HTML:     filepath.Join(dir, "report.html"),
		XLSX:     filepath.Join(dir, "report.xlsx"),
	}
	if err := atomicfile.Write(out.Markdown, func(w io.Writer) error { return report.WriteMarkdown(w, r) }); err != nil {
		return out, err
	}
	if err := atomicfile.Write(out.HTML, func(w io.Writer) error { return renderHTML(w, r, nb) }); err != nil {
		return out, err
	}
	if err := atomicfile.Write(out.XLSX, func(w io.Writer) error { return report.WriteXLSX(w, r) }); err != nil {
		return out, err
	}
	if r.Replay != nil {
		out.Queue = filepath.Join(dir, "queue.csv")
		if err := atomicfile.Write(out.Queue, func(w io.Writer) error { return report.WriteQueue(w, r.Replay) }); err != nil {
			return out, err
		}
	}
	return out, nil
}

// renderHTML is the single call site of the HTML renderer.
// COORDINATION: report.RenderHTML(w, r, nb) is owned by the notebook/HTML
// engineer; nb nil means the default notebook. Change the call here only.
func renderHTML(w io.Writer, r *report.Report, nb *report.Notebook) error {
	return report.RenderHTML(w, r, nb)
}
