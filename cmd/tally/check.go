package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/input"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/judge"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/stats"
)

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
	// share is the row's share as report.Share states it (text output).
	share report.Share
}

type checkJSON struct {
	System   string `json:"system"`
	Output   string `json:"output"`
	Fixtures int    `json:"fixtures"`
	Contexts int    `json:"contexts"`
	// MissingContexts counts the context files missing and accepted by
	// --allow-missing (not in Contexts).
	MissingContexts int `json:"missing_contexts"`
	// OrphansSkipped counts the context folders no fixture names, left
	// unchecked under --skip-orphans.
	OrphansSkipped int `json:"orphans_skipped,omitempty"`
	Checks         int `json:"checks"`
	// VerbatimContradicted counts the items found verbatim that the
	// judge found contradicted under --judge-verbatim.
	VerbatimContradicted int `json:"verbatim_contradicted"`
	// VerbatimUnjudged counts those the judge failed on, recorded as
	// errors (in Errors).
	VerbatimUnjudged int        `json:"verbatim_unjudged"`
	Calls            int        `json:"judge_calls"`
	CacheHits        int        `json:"cache_hits"`
	Cache            *cacheJSON `json:"cache,omitempty"`
	// HTTP is an HTTP judge's requests: judge_calls counts questions
	// asked, each one or more requests.
	HTTP *httpJSON `json:"http,omitempty"`
	// Unanswered counts the supported verdicts whose reply gave no
	// answer: their agreement with the expected answer was not checked.
	Unanswered int `json:"supported_without_answer"`
	// Errors counts the error verdicts; Complete is false when they are
	// more than MaxErrors (exit 4).
	Errors       int            `json:"errors"`
	MaxErrors    int            `json:"max_errors"`
	Complete     bool           `json:"complete"`
	ErrorReasons []reasonJSON   `json:"error_reasons"`
	Classes      []classRowJSON `json:"classes"`
}

// httpJSON is an HTTP judge's traffic in a check (judge.Traffic).
type httpJSON struct {
	Requests    int64 `json:"requests"`
	RateLimited int64 `json:"rate_limited"`
}

// cacheJSON is the judge cache's part in a check: lookups, entries that
// were there but not usable, and writes.
type cacheJSON struct {
	Hits            int64  `json:"hits"`
	Misses          int64  `json:"misses"`
	Damaged         int64  `json:"damaged"`
	OldFormat       int64  `json:"old_format"`
	Writes          int64  `json:"writes"`
	FailedWrites    int64  `json:"failed_writes"`
	FirstWriteError string `json:"first_write_error,omitempty"`
}

type dryRunJSON struct {
	System           string `json:"system"`
	Fixtures         int    `json:"fixtures"`
	Contexts         int    `json:"contexts"`
	MissingContexts  int    `json:"missing_contexts"`
	OrphansSkipped   int    `json:"orphans_skipped,omitempty"`
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
		cf                      checkFlags
		lim                     limitFlags
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
without repeating a completed call.

The contexts must match the fixtures: files 1..compactions_expected for every
fixture, no file beyond it, no folder without a fixture, each context's turn
within 1..turns of its fixture and increasing with n. Every mismatch is
reported, one line each, and nothing is written. With --allow-missing a
missing context is accepted instead and its items are recorded as error,
never silently left out. The missing compaction's turn lies strictly
between the turns of the present contexts around it (turns increase by at
least one per compaction, within 1..turns): an item stated before the
earliest turn it can have served was certainly live and is error "no
context"; one stated from then until the latest turn it can have served may
or may not have been live and is error "no context (liveness unknown)"; a
later item cannot have been live and has no record. The summary counts the
contexts read and the contexts missing apart.

Judging is bounded: each call by --timeout and --attempts (Retry-After
capped by --max-retry-after), the run by --deadline, and after --breaker
consecutive questions failed for want of the judge it is not called again.
Once the deadline passes or the breaker opens, the items left are answered
from the cache, and those not cached are error "deadline" or "judge
unavailable". A question is one item at one compaction: its verdict call,
its re-asks and its agreement call. The breaker counts a question that
failed because the judge could not be had — a transport error or timeout,
a refused connection, HTTP 5xx or 429 after the retries, a command that
could not start or was killed by --timeout — and a command judge's
non-zero exit once per context: a context too long for the judge fails
all its items, and costs one, while a judge script that crashes on every
prompt trips the breaker after --breaker contexts. A question the judge
refused (an HTTP 4xx such as 413) or answered with no usable verdict after
the re-asks is not counted and resets the count: the judge is there.

Exit codes:
  0  every verdict written, and no more error verdicts than --max-errors
  1  bad input or an I/O failure (one line per problem); nothing written
  2  a usage error
  3  (not used by check: gates are tally gate's and tally report's)
  4  incomplete: the verdicts are written, but more of them are error than
     --max-errors allows (the count and the most common reasons are on stderr)`,
		Example: `  tally check --fixtures examples/quarterly/fixtures --contexts examples/quarterly/contexts/incumbent \
      --system incumbent --judge recorded --recorded examples/quarterly/judge/recorded.jsonl -o out/incumbent.jsonl
  tally check ... --judge openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-7b-instruct -o v.jsonl
  tally check ... --judge command --command examples/judge-command/judge.sh -o v.jsonl`,
		Args: cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			if err := stats.ValidateConfidence(confidence); err != nil {
				return usageError{fmt.Errorf("--confidence: %w", err)}
			}
			if output == "" && !dryRun {
				return usagef("-o VERDICTS.jsonl is required (or --dry-run)")
			}
			if err := cf.validate(); err != nil {
				return err
			}
			j, err := jf.build(lim.Limits)
			if err != nil {
				return err
			}
			cfg := judge.CheckConfig{Fixtures: fixtures, Contexts: contexts, System: sys, Judge: j, Concurrency: jf.concurrency,
				AllowMissing: cf.allowMissing, SkipOrphans: cf.skipOrphans, JudgeVerbatim: cf.judgeVerbatim, Deadline: cf.deadline, Breaker: cf.breakerSetting(), Limits: lim.Limits}
			w := cmd.OutOrStdout()
			if dryRun {
				p, err := judge.PlanCheck(cmd.Context(), cfg)
				if err != nil {
					if e := fixturesAgentLog(fixtures, lim.Limits); e != nil {
						return e
					}
					return err
				}
				if p.Checks == 0 { // as the check itself would fail
					return nothingToCheck(fixtures, p.Fixtures, "the check would write nothing")
				}
				_, asks := j.(*judge.Model)
				return writeDryRun(w, opts, sys, p, asks, cf.judgeVerbatim)
			}
			bar := newBar(cmd.ErrOrStderr())
			if bar != nil {
				cfg.Progress = bar.update
			}
			var res judge.CheckResult
			var checkErr error // the check's own error, kept apart from the file's
			err = writeCreatingFolder(output, func(out io.Writer) error {
				rw := fixture.NewRecordWriter(out)
				res, checkErr = judge.Check(cmd.Context(), cfg, rw.Write)
				if checkErr == nil && res.Checks == 0 {
					// A run that checked nothing is no measurement a
					// CI step should pass on (a new user's trial: a
					// review that rejected every candidate).
					checkErr = nothingToCheck(fixtures, res.Fixtures, output+" is not written")
				}
				if checkErr != nil {
					return checkErr
				}
				return rw.Flush()
			})
			if bar != nil {
				bar.finish()
			}
			if checkErr != nil {
				if e := fixturesAgentLog(fixtures, lim.Limits); e != nil {
					return e
				}
				return checkErr
			}
			if err != nil {
				return err
			}
			_, model := j.(*judge.Model)
			sum := checkSummary{sys: sys, output: output, res: res, confidence: confidence, model: model, cache: jf.opened, maxErrors: cf.maxErrors, judgeVerbatim: cf.judgeVerbatim}
			if jf.traffic != nil {
				t := jf.traffic()
				sum.traffic = &t
			}
			if err := writeCheck(w, opts, sum); err != nil {
				return err
			}
			if jf.opened != nil {
				if st := jf.opened.Stats(); st.WriteErrors > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "tally: warning: %s failed, the first: %s (the verdicts are complete; the next run repeats those calls)\n",
						plural(int(st.WriteErrors), "judge cache write"), st.FirstWriteError)
				}
			}
			if res.Errors > cf.maxErrors {
				return incompleteError{incompleteMsg(res, cf.maxErrors)}
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&fixtures, "fixtures", "", "fixtures: a .json file, a .jsonl file or a folder of .json files")
	f.StringVar(&contexts, "contexts", "", "compacted contexts folder: CONTEXTS/<conversation_id>/<n>.json")
	f.StringVar(&sys, "system", "", "the summariser's name, written in every verdict record")
	f.StringVarP(&output, "output", "o", "", "verdicts file to write (JSONL), atomically; its folder is created if need be")
	f.BoolVar(&dryRun, "dry-run", false, "say how many judge calls the run would make and how many are cached; judge nothing")
	f.Float64Var(&confidence, "confidence", 0.95, "confidence level of the retained-share intervals")
	cf.register(cmd)
	jf.register(cmd)
	lim.register(cmd)
	for _, name := range []string{"fixtures", "contexts", "system", "judge"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// writeDryRun reports a dry run; asks is false for a judge that makes no
// calls (the recorded judge answers from its file).
func writeDryRun(w io.Writer, opts *options, sys string, p judge.PlanResult, asks, judgeVerbatim bool) error {
	out := dryRunJSON{
		System: sys, Fixtures: p.Fixtures, Contexts: p.Contexts, MissingContexts: p.MissingContexts, OrphansSkipped: p.OrphansSkipped, Checks: p.Checks, Verbatim: p.Verbatim,
		Questions: p.Questions, Cached: p.VerdictsCached, Calls: p.Questions - p.VerdictsCached,
		AgreementCalls: p.AgreementCalls, AgreementUnknown: p.AgreementUnknown,
	}
	if !asks {
		out.Calls = 0
	}
	if opts.format == "json" {
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "dry run for %s: %s, %s, %s\n", sys, plural(out.Fixtures, "fixture"), contextsText(out.Contexts, out.MissingContexts, out.OrphansSkipped), plural(out.Checks, "check"))
	if judgeVerbatim {
		fmt.Fprintf(w, "  %d verbatim, each also a judge question (--judge-verbatim)\n", out.Verbatim)
	} else {
		fmt.Fprintf(w, "  %d verbatim (no judge call)\n", out.Verbatim)
	}
	if !asks {
		fmt.Fprintf(w, "  %d judge questions, answered from the recorded verdicts: no calls\n", out.Questions)
		return nil
	}
	fmt.Fprintf(w, "  %d judge questions: %d already cached, %d verdict calls to make\n", out.Questions, out.Cached, out.Calls)
	fmt.Fprintf(w, "  agreement calls: %d needed, up to %d more for uncached verdicts\n", out.AgreementCalls, out.AgreementUnknown)
	return nil
}

// fixturesAgentLog is the one-line error for an agent log given as
// --fixtures (a re-check trial got a problem per record, 12,743 lines),
// nil when the path does not look like one.
func fixturesAgentLog(fixtures string, lim input.Limits) error {
	f, ok := agentLogFormat(fixtures, lim)
	if !ok {
		return nil
	}
	return notFixtures("--fixtures "+fixtures, fixtures, f)
}

// notFixtures is the error of an agent log (in format f) given as
// fixtures at path, named as where says.
func notFixtures(where, path string, f agentlog.Format) error {
	return fmt.Errorf("%s: looks like an agent log (%s), not fixtures: tally fixtures draft %s -o DIR drafts fixtures from it", where, f, shellWord(path))
}

// nothingToCheck is the error of a check with no item-compaction to
// check: a run over nothing is no measurement a CI step should pass on
// (a new user's trial: a review that rejected every candidate), and a
// dry run says so too.
func nothingToCheck(fixtures string, n int, what string) error {
	return fmt.Errorf("%s: nothing to check: no item of the %s is live at a compaction (none has items, or every item was stated after the last compaction): %s", fixtures, plural(n, "fixture"), what)
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
			Complete: c.Errors == 0, share: report.Share{Counts: c, Confidence: confidence},
		}
		switch {
		case c.Items > 0 && c.Errors > 0:
			lo, hi := r.share.Range()
			r.ShareRange = &shareRange{Lower: lo, Upper: hi}
		case r.share.Known():
			share := r.share.Point()
			r.Share = &share
			if iv, err := r.share.Wilson(); err == nil {
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

// checkSummary is what writeCheck reports.
type checkSummary struct {
	sys, output string
	res         judge.CheckResult
	confidence  float64
	model       bool         // the judge calls a model (not the recorded judge)
	cache       *judge.Cache // nil: no cache
	maxErrors   int
	// judgeVerbatim is --judge-verbatim: the output says what it found.
	judgeVerbatim bool
	// traffic is an HTTP judge's requests (nil for the others).
	traffic *judge.Traffic
}

func writeCheck(w io.Writer, opts *options, sum checkSummary) error {
	res := sum.res
	rows := classRows(res, sum.confidence)
	var cache *cacheJSON
	if sum.cache != nil {
		st := sum.cache.Stats()
		cache = &cacheJSON{Hits: st.Hits, Misses: st.Misses, Damaged: st.Damaged, OldFormat: st.OldFormat,
			Writes: st.Writes, FailedWrites: st.WriteErrors, FirstWriteError: st.FirstWriteError}
	}
	var traffic *httpJSON
	if t := sum.traffic; t != nil {
		traffic = &httpJSON{Requests: t.Requests, RateLimited: t.RateLimited}
	}
	if opts.format == "json" {
		return writeJSON(w, checkJSON{HTTP: traffic, Unanswered: res.Unanswered,
			System: sum.sys, Output: sum.output, Fixtures: res.Fixtures, Contexts: res.Contexts, MissingContexts: res.MissingContexts, OrphansSkipped: res.OrphansSkipped,
			Checks: res.Checks, VerbatimContradicted: res.VerbatimContradicted, VerbatimUnjudged: res.VerbatimUnjudged, Calls: res.Calls, CacheHits: res.CacheHits, Cache: cache,
			Errors: res.Errors, MaxErrors: sum.maxErrors, Complete: res.Errors <= sum.maxErrors,
			ErrorReasons: reasonRows(res.ErrorReasons), Classes: rows,
		})
	}
	calls := fmt.Sprintf("%s, %s", plural(res.Calls, "judge call"), plural(res.CacheHits, "cache hit"))
	switch {
	case cache != nil:
		calls = fmt.Sprintf("%s; cache: %s, %s, %d damaged, %s", plural(res.Calls, "judge call"),
			plural(int(cache.Hits), "hit"), plural(int(cache.Misses), "miss"), cache.Damaged, plural(int(cache.FailedWrites), "failed write"))
		if cache.OldFormat > 0 {
			calls += fmt.Sprintf(", %s of an older format", plural(int(cache.OldFormat), "entry"))
		}
	case sum.model:
		calls = plural(res.Calls, "judge call") + ", no cache"
	}
	if traffic != nil && traffic.Requests != int64(res.Calls) {
		// A judge call is a question; retries make more requests (a
		// trial counting cost read 188 calls where 554 were sent).
		calls += fmt.Sprintf("; %s", plural(int(traffic.Requests), "HTTP request"))
	}
	fmt.Fprintf(w, "%s: %s, %s, %s (%s) → %s\n", sum.sys, plural(res.Fixtures, "fixture"), contextsText(res.Contexts, res.MissingContexts, res.OrphansSkipped),
		plural(res.Checks, "check"), calls, sum.output)
	if sum.judgeVerbatim {
		unjudged := ""
		if n := res.VerbatimUnjudged; n > 0 {
			unjudged = fmt.Sprintf("; the judge failed on %d (recorded as error, their reasons below: whether they were contradicted is not known)", n)
		}
		fmt.Fprintf(w, "--judge-verbatim: of %s found verbatim, the judge found %d contradicted by the rest of the context (recorded as contradicted)%s\n",
			plural(res.Verbatim+res.VerbatimContradicted+res.VerbatimUnjudged, "item-compaction"), res.VerbatimContradicted, unjudged)
	}
	fmt.Fprintln(w)
	t := table(w)
	fmt.Fprintf(t, "class\tchecks\tverbatim\tsupported\tabsent\tcontradicted\terror\tretained\t%s wilson\n", pct(sum.confidence))
	for _, r := range rows {
		// The words are report.Share's, as in the report: with errors
		// the range and no interval.
		share, iv := "—", "—"
		if r.ShareRange != nil {
			share = r.share.String()
			iv = "incomplete: " + plural(r.Error, "error")
		}
		if r.Share != nil {
			share = fmt.Sprintf("%d (%s)", r.Retained, r.share.Percent())
		}
		if t := r.share.IntervalText(); t != "" {
			iv = t
		}
		fmt.Fprintf(t, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.Class, r.Items, r.Verbatim, r.Supported, r.Absent, r.Contradicted, r.Error, share, iv)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if res.Errors > 0 {
		fmt.Fprintln(w)
		for _, line := range errorNotes(res, sum.model, sum.cache != nil) {
			fmt.Fprintln(w, line)
		}
		for _, r := range topReasons(res.ErrorReasons, 3) {
			fmt.Fprintf(w, "  %d× %s\n", r.Count, r.Reason)
		}
	}
	if res.Unanswered > 0 {
		// Said here, not only in each record's reason: a trial's 43
		// such verdicts went by unseen.
		fmt.Fprintf(w, "\nnote: %s supported without an answer in the reply: their agreement with the expected answer was not checked (the template should ask for \"answer\")\n",
			plural(res.Unanswered, "item-compaction"))
	}
	if traffic != nil && traffic.RateLimited > 0 {
		// --concurrency does not adapt to the server (a trial's local
		// server served two at a time and 20 questions failed at 8).
		fmt.Fprintf(w, "\nnote: the server answered %d of the %s with 429 or 529 (rate limited, overloaded); if questions failed for it, a lower --concurrency may keep them from failing\n",
			traffic.RateLimited, plural(int(traffic.Requests), "HTTP request"))
	}
	return nil
}

// contextsText is "6 compacted contexts", with ", 1 missing
// (--allow-missing)" when some were missing and ", 27 conversations
// without a fixture not checked (--skip-orphans)" when folders were left.
func contextsText(read, missing, orphans int) string {
	s := plural(read, "compacted context")
	if missing > 0 {
		s += fmt.Sprintf(", %d missing (--allow-missing)", missing)
	}
	if orphans > 0 {
		s += fmt.Sprintf(", %s without a fixture not checked (--skip-orphans)", plural(orphans, "conversation"))
	}
	return s
}

// errorNotes explain a check's error verdicts: those of the judge —
// which a re-run retries when the judge is a model, the completed calls
// coming from the cache if there is one — apart from those of the
// contexts --allow-missing accepted, which only the missing files can
// settle.
func errorNotes(res judge.CheckResult, model, cache bool) []string {
	certain, unknown := res.ErrorReasons[judge.ReasonNoContext], res.ErrorReasons[judge.ReasonLivenessUnknown]
	var notes []string
	if failed := res.Errors - certain - unknown; failed > 0 {
		they, them := "they are", "them"
		if failed == 1 {
			they, them = "it is", "it"
		}
		note := fmt.Sprintf("note: %s (the judge failed); %s not counted as absent", plural(failed, "error verdict"), they)
		if model {
			note += " — re-run to retry " + them
			if cache {
				note += " (completed calls come from the cache)"
			}
		}
		notes = append(notes, note)
	}
	if certain+unknown > 0 {
		note := fmt.Sprintf("note: %s for items of missing contexts (--allow-missing), not counted as absent", plural(certain+unknown, "error verdict"))
		if unknown > 0 {
			note += fmt.Sprintf("; %d of them %q: stated within the turns the missing context may have served, so perhaps not live at it", unknown, judge.ReasonLivenessUnknown)
		}
		notes = append(notes, note+" — add the missing contexts and re-run to check them")
	}
	return notes
}

// reasonJSON is one reason of error verdicts and how many have it.
type reasonJSON struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// reasonRows lists every reason, the most common first.
func reasonRows(reasons map[string]int) []reasonJSON {
	rows := make([]reasonJSON, 0, len(reasons))
	for r, n := range reasons {
		rows = append(rows, reasonJSON{Reason: r, Count: n})
	}
	slices.SortFunc(rows, func(a, b reasonJSON) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	return rows
}

// topReasons is the n most common reasons, each cut to a line's length.
// Reasons that differ only in their numbers (a retry delay, a status
// code's count, a line) are one: the count is theirs together, the text
// their most common one, with how many others it stands for.
func topReasons(reasons map[string]int, n int) []reasonJSON {
	type group struct {
		reasonJSON
		best, others int
	}
	groups := map[string]*group{}
	for _, r := range reasonRows(reasons) {
		k := reasonShape(r.Reason)
		g := groups[k]
		if g == nil {
			groups[k] = &group{reasonJSON: r, best: r.Count}
			continue
		}
		g.Count += r.Count
		g.others++
	}
	rows := make([]reasonJSON, 0, len(groups))
	for _, g := range groups {
		r := g.reasonJSON
		if cut := []rune(r.Reason); len(cut) > 160 {
			r.Reason = string(cut[:160]) + "…"
		}
		if r.Reason == "" {
			r.Reason = "(no reason given)"
		}
		if g.others > 0 {
			r.Reason += fmt.Sprintf(" (and %s like it but for numbers)", plural(g.others, "other"))
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b reasonJSON) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	return rows[:min(n, len(rows))]
}

// reasonShape is reason with every run of digits written as one "#".
func reasonShape(reason string) string {
	var b strings.Builder
	digits := false
	for _, r := range reason {
		d := r >= '0' && r <= '9'
		switch {
		case d && !digits:
			b.WriteByte('#')
		case !d:
			b.WriteRune(r)
		}
		digits = d
	}
	return b.String()
}

// incompleteMsg is the one line exit 4 prints.
func incompleteMsg(res judge.CheckResult, maxErrors int) string {
	var parts []string
	for _, r := range topReasons(res.ErrorReasons, 3) {
		parts = append(parts, fmt.Sprintf("%d× %q", r.Count, r.Reason))
	}
	return fmt.Sprintf("incomplete: %s of %s, more than --max-errors %d allows; the most common reasons: %s",
		plural(res.Errors, "error verdict"), plural(res.Checks, "check"), maxErrors, strings.Join(parts, ", "))
}

// plural is "1 check" or "n checks" (a noun ending in s, x, ch or sh
// takes "es"; "entry" becomes "entries").
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	switch {
	case strings.HasSuffix(noun, "ry"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
