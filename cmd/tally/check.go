package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/judge"
	"github.com/tally-eval/tally/stats"
)

// judgeFlags are the flags that choose and configure the judge.
type judgeFlags struct {
	backend     string
	model       string
	baseURL     string
	keyEnv      string
	recorded    string
	command     string
	commandArgs []string
	template    string
	cache       string
	concurrency int
	rate        float64
	timeout     time.Duration
	attempts    int
	reasks      int
	seed        int64
}

func (f *judgeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.backend, "judge", "", "judge backend: openai, anthropic, command or recorded")
	fl.StringVar(&f.model, "model", "", "model name (openai, anthropic)")
	fl.StringVar(&f.baseURL, "base-url", "", "server base URL (openai: e.g. http://127.0.0.1:8080/v1; anthropic: default https://api.anthropic.com)")
	fl.StringVar(&f.keyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fl.StringVar(&f.recorded, "recorded", "", "recorded verdicts (JSONL of verdict records) for --judge recorded")
	fl.StringVar(&f.command, "command", "", "program for --judge command: reads the prompt on stdin, writes the reply on stdout")
	fl.StringArrayVar(&f.commandArgs, "command-arg", nil, "an argument for the --command program (repeat for several; no shell is involved)")
	fl.StringVar(&f.template, "template", "", "judge prompt template file (text/template with .Probe and .Context; default: the source text's JUDGE prompt)")
	fl.StringVar(&f.cache, "cache", ".tally-cache", "judge cache folder, shared safely between runs and processes (empty: no cache)")
	fl.IntVar(&f.concurrency, "concurrency", 8, "judge requests in flight")
	fl.Float64Var(&f.rate, "rate", 0, "judge requests per second (0: unlimited)")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "timeout of one judge call")
	fl.IntVar(&f.attempts, "attempts", 5, "attempts per HTTP call (retries on timeouts, 429 and 5xx, with backoff)")
	fl.IntVar(&f.reasks, "reasks", judge.DefaultReasks, "times to re-ask after a reply that does not parse before recording error")
	fl.Int64Var(&f.seed, "seed", 0, "sampling seed sent to OpenAI-compatible servers")
}

// build returns the judge the flags describe.
func (f *judgeFlags) build() (judge.Judge, error) {
	if f.concurrency < 1 {
		return nil, fmt.Errorf("--concurrency must be at least 1, got %d", f.concurrency)
	}
	httpCfg := judge.HTTPConfig{
		Timeout:     f.timeout,
		Retry:       judge.Retry{MaxAttempts: f.attempts},
		MaxInFlight: f.concurrency,
		PerSecond:   f.rate,
	}
	var backend judge.Backend
	var err error
	switch f.backend {
	case "recorded":
		if f.recorded == "" {
			return nil, usagef("--judge recorded needs --recorded FILE")
		}
		return judge.LoadRecorded(f.recorded)
	case "openai":
		backend, err = judge.NewOpenAI(judge.OpenAIConfig{BaseURL: f.baseURL, Model: f.model, KeyEnv: f.keyEnv, Seed: f.seed, HTTP: httpCfg})
	case "anthropic":
		backend, err = judge.NewAnthropic(judge.AnthropicConfig{BaseURL: f.baseURL, Model: f.model, KeyEnv: f.keyEnv, HTTP: httpCfg})
	case "command":
		if f.command == "" {
			return nil, usagef("--judge command needs --command PROGRAM")
		}
		backend, err = judge.NewCommand(judge.CommandConfig{
			Argv: append([]string{f.command}, f.commandArgs...), Label: f.model,
			Timeout: f.timeout, MaxInFlight: f.concurrency, PerSecond: f.rate,
		})
	case "":
		return nil, usagef("--judge is required: openai, anthropic, command or recorded")
	default:
		return nil, usagef("--judge %q: want openai, anthropic, command or recorded", f.backend)
	}
	if err != nil {
		return nil, fmt.Errorf("--judge %s: %w", f.backend, err)
	}
	m := &judge.Model{Backend: backend, Reasks: f.reasks}
	if f.reasks == 0 {
		m.Reasks = judge.NoReasks
	}
	if f.template != "" {
		if m.Template, err = judge.LoadTemplate(f.template); err != nil {
			return nil, fmt.Errorf("--template: %w", err)
		}
	}
	if f.cache != "" {
		if m.Cache, err = judge.OpenCache(f.cache); err != nil {
			return nil, fmt.Errorf("--cache: %w", err)
		}
	}
	return m, nil
}

// classRowJSON is one class's line of `tally check` output.
type classRowJSON struct {
	Class        string          `json:"class"`
	Items        int             `json:"items"`
	Verbatim     int             `json:"verbatim"`
	Supported    int             `json:"supported"`
	Absent       int             `json:"absent"`
	Contradicted int             `json:"contradicted"`
	Error        int             `json:"error"`
	Retained     int             `json:"retained"`
	Share        *float64        `json:"retained_share"`
	Interval     *stats.Interval `json:"interval,omitempty"`
	// Complete is false when some checks have an error verdict: the share
	// is then only known to lie in ShareRange, and no interval is given.
	Complete   bool        `json:"complete"`
	ShareRange *shareRange `json:"retained_share_range,omitempty"`
}

type checkJSON struct {
	System    string         `json:"system"`
	Output    string         `json:"output"`
	Fixtures  int            `json:"fixtures"`
	Contexts  int            `json:"contexts"`
	Checks    int            `json:"checks"`
	Calls     int            `json:"judge_calls"`
	CacheHits int            `json:"cache_hits"`
	Classes   []classRowJSON `json:"classes"`
}

type dryRunJSON struct {
	System           string `json:"system"`
	Fixtures         int    `json:"fixtures"`
	Contexts         int    `json:"contexts"`
	Checks           int    `json:"checks"`
	Verbatim         int    `json:"verbatim"`
	Questions        int    `json:"judge_questions"`
	Cached           int    `json:"cached"`
	Calls            int    `json:"verdict_calls"`
	AgreementCalls   int    `json:"agreement_calls"`
	AgreementUnknown int    `json:"agreement_calls_unknown"`
}

func newCheckCmd(opts *options) *cobra.Command {
	var (
		jf                      judgeFlags
		fixtures, contexts, sys string
		output                  string
		dryRun                  bool
		confidence              float64
	)
	cmd := &cobra.Command{
		Use:   "check --fixtures PATH --contexts DIR --system NAME --judge BACKEND -o VERDICTS.jsonl",
		Short: "Check every must-survive item against one system's compacted contexts",
		Long: `check runs each fixture's must-survive items against every compacted context
of one system (CONTEXTS/<conversation_id>/<n>.json) in which the item is live:
verbatim by exact substring of the rendered context, otherwise by the
three-way judge (supported, absent or contradicted). It writes one verdict
record per item per compaction, atomically, and prints per class: items,
verbatim, supported, absent, contradicted, error and the retained share with
its Wilson interval. A run killed half-way resumes from the judge cache
without repeating a completed call.`,
		Example: `  tally check --fixtures examples/quarterly/fixtures --contexts examples/quarterly/contexts/incumbent \
      --system incumbent --judge recorded --recorded examples/quarterly/judge/recorded.jsonl -o out/incumbent.jsonl
  tally check ... --judge openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-7b-instruct -o v.jsonl
  tally check ... --judge command --command ./my-judge.sh -o v.jsonl`,
		Args: cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			if err := stats.ValidateConfidence(confidence); err != nil {
				return fmt.Errorf("--confidence: %w", err)
			}
			if output == "" && !dryRun {
				return usagef("-o VERDICTS.jsonl is required (or --dry-run)")
			}
			j, err := jf.build()
			if err != nil {
				return err
			}
			cfg := judge.CheckConfig{Fixtures: fixtures, Contexts: contexts, System: sys, Judge: j, Concurrency: jf.concurrency}
			w := cmd.OutOrStdout()
			if dryRun {
				p, err := judge.PlanCheck(cmd.Context(), cfg)
				if err != nil {
					return err
				}
				_, asks := j.(*judge.Model)
				return writeDryRun(w, opts, sys, p, asks)
			}
			bar := newBar(cmd.ErrOrStderr())
			if bar != nil {
				cfg.Progress = bar.update
			}
			var res judge.CheckResult
			var checkErr error // the check's own error, kept apart from the file's
			err = atomicfile.Write(output, func(out io.Writer) error {
				rw := fixture.NewRecordWriter(out)
				res, checkErr = judge.Check(cmd.Context(), cfg, rw.Write)
				if checkErr != nil {
					return checkErr
				}
				return rw.Flush()
			})
			if bar != nil {
				bar.finish()
			}
			if checkErr != nil {
				return checkErr
			}
			if err != nil {
				return err
			}
			return writeCheck(w, opts, sys, output, res, confidence)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&fixtures, "fixtures", "", "fixtures: a .json file, a .jsonl file or a folder of .json files")
	f.StringVar(&contexts, "contexts", "", "compacted contexts folder: CONTEXTS/<conversation_id>/<n>.json")
	f.StringVar(&sys, "system", "", "the summariser's name, written in every verdict record")
	f.StringVarP(&output, "output", "o", "", "verdicts file to write (JSONL), atomically")
	f.BoolVar(&dryRun, "dry-run", false, "say how many judge calls the run would make and how many are cached; judge nothing")
	f.Float64Var(&confidence, "confidence", 0.95, "confidence level of the retained-share intervals")
	jf.register(cmd)
	for _, name := range []string{"fixtures", "contexts", "system", "judge"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// writeDryRun reports a dry run; asks is false for a judge that makes no
// calls (the recorded judge answers from its file).
func writeDryRun(w io.Writer, opts *options, sys string, p judge.PlanResult, asks bool) error {
	out := dryRunJSON{
		System: sys, Fixtures: p.Fixtures, Contexts: p.Contexts, Checks: p.Checks, Verbatim: p.Verbatim,
		Questions: p.Questions, Cached: p.VerdictsCached, Calls: p.Questions - p.VerdictsCached,
		AgreementCalls: p.AgreementCalls, AgreementUnknown: p.AgreementUnknown,
	}
	if !asks {
		out.Calls = 0
	}
	if opts.format == "json" {
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "dry run for %s: %d fixtures, %d compacted contexts, %d checks\n", sys, out.Fixtures, out.Contexts, out.Checks)
	fmt.Fprintf(w, "  %d verbatim (no judge call)\n", out.Verbatim)
	if !asks {
		fmt.Fprintf(w, "  %d judge questions, answered from the recorded verdicts: no calls\n", out.Questions)
		return nil
	}
	fmt.Fprintf(w, "  %d judge questions: %d already cached, %d verdict calls to make\n", out.Questions, out.Cached, out.Calls)
	fmt.Fprintf(w, "  agreement calls: %d needed, up to %d more for uncached verdicts\n", out.AgreementCalls, out.AgreementUnknown)
	return nil
}

// shareRange bounds a retained share that judge errors leave unknown:
// every error absent (Lower) or every error retained (Upper).
type shareRange struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

func classRows(res judge.CheckResult, confidence float64) []classRowJSON {
	var rows []classRowJSON
	add := func(name string, c fixture.Counts) {
		r := classRowJSON{
			Class: name, Items: c.Items, Verbatim: c.Verbatim, Supported: c.Supported,
			Absent: c.Absent, Contradicted: c.Contradicted, Error: c.Errors, Retained: c.Retained(),
			Complete: c.Errors == 0,
		}
		switch {
		case c.Items > 0 && c.Errors > 0:
			n := float64(c.Items)
			r.ShareRange = &shareRange{Lower: float64(c.Retained()) / n, Upper: float64(c.Retained()+c.Errors) / n}
		case c.Items > 0:
			p := stats.Proportion{K: c.Retained(), N: c.Items}
			share := p.Estimate()
			r.Share = &share
			iv, err := p.Interval(stats.Wilson, confidence)
			if err == nil {
				r.Interval = &iv
			}
		}
		rows = append(rows, r)
	}
	for _, cl := range fixture.Classes {
		add(string(cl), res.ByClass.Get(cl))
	}
	add("all", res.ByClass.Total())
	return rows
}

func writeCheck(w io.Writer, opts *options, sys, output string, res judge.CheckResult, confidence float64) error {
	rows := classRows(res, confidence)
	if opts.format == "json" {
		return writeJSON(w, checkJSON{
			System: sys, Output: output, Fixtures: res.Fixtures, Contexts: res.Contexts,
			Checks: res.Checks, Calls: res.Calls, CacheHits: res.CacheHits, Classes: rows,
		})
	}
	fmt.Fprintf(w, "%s: %d fixtures, %d compacted contexts, %d checks (%d judge calls, %d cache hits) → %s\n\n",
		sys, res.Fixtures, res.Contexts, res.Checks, res.Calls, res.CacheHits, output)
	t := table(w)
	fmt.Fprintf(t, "class\titems\tverbatim\tsupported\tabsent\tcontradicted\terror\tretained\t%s wilson\n", pct(confidence))
	for _, r := range rows {
		share, iv := "—", "—"
		if r.ShareRange != nil {
			share = fmt.Sprintf("%d–%d (%.1f–%.1f%%)", r.Retained, r.Retained+r.Error, 100*r.ShareRange.Lower, 100*r.ShareRange.Upper)
			iv = fmt.Sprintf("incomplete: %d errors", r.Error)
		}
		if r.Share != nil {
			share = fmt.Sprintf("%d (%.1f%%)", r.Retained, 100**r.Share)
		}
		if r.Interval != nil {
			iv = fmt.Sprintf("%.1f–%.1f%%", 100*r.Interval.Lower, 100*r.Interval.Upper)
		}
		fmt.Fprintf(t, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.Class, r.Items, r.Verbatim, r.Supported, r.Absent, r.Contradicted, r.Error, share, iv)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if res.Errors > 0 {
		fmt.Fprintf(w, "\nnote: %d judge errors; they are not counted as absent — re-run to retry them (completed calls come from the cache)\n", res.Errors)
	}
	return nil
}

// progress draws a progress bar on a terminal: contexts done of total,
// checks, cache hits, errors, rate and ETA.
type progress struct {
	bar *progressbar.ProgressBar
}

// newBar returns a progress bar on w when w is a terminal, else nil.
func newBar(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
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

func (p *progress) update(s judge.Progress) {
	if p.bar.GetMax() != s.Contexts {
		p.bar.ChangeMax(s.Contexts)
	}
	p.bar.Describe(fmt.Sprintf("checks %d, judge calls %d, cache hits %d, errors %d", s.Checks, s.Calls, s.CacheHits, s.Errors))
	_ = p.bar.Set(s.ContextsDone)
}

func (p *progress) finish() { _ = p.bar.Finish() }
