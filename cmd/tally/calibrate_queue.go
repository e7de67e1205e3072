package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// reviewQueueStratumJSON is one stratum of a class and system in the review
// queue's plan.
type reviewQueueStratumJSON struct {
	// Judge is the judge's verdict the stratum's items have.
	Judge string `json:"judge_verdict"`
	// Judged is the stratum's size, Reviewed its items already reviewed,
	// Wanted the reviews the plan wants in all, Drawn those the queue adds.
	Judged   int `json:"judged"`
	Reviewed int `json:"reviewed"`
	Wanted   int `json:"wanted"`
	Drawn    int `json:"drawn"`
	// Agreement is the planning agreement, Measured whether earlier
	// reviews gave it (else it is --agreement).
	Agreement float64 `json:"agreement"`
	Measured  bool    `json:"measured"`
	// Sample is census (the whole stratum) or random.
	Sample string `json:"sample"`
}

// reviewQueueClassJSON is one class and system in the review queue's plan.
type reviewQueueClassJSON struct {
	Class  string `json:"class"`
	System string `json:"system"`
	// Items counts the class's item-compactions, Judged the non-verbatim
	// ones.
	Items  int `json:"items"`
	Judged int `json:"judged"`
	// HalfWidth is the half-width the plan expects of the corrected
	// retention (null when nothing is judged); Reachable whether it meets
	// the target, Reason why not.
	HalfWidth *float64                 `json:"expected_half_width"`
	Reachable bool                     `json:"reachable"`
	Reason    string                   `json:"reason,omitempty"`
	Strata    []reviewQueueStratumJSON `json:"strata"`
}

// reviewQueueJSON is the JSON contract of `tally calibrate queue`.
type reviewQueueJSON struct {
	Config string `json:"config"`
	Output string `json:"output"`
	// HalfWidth is the target half-width (a share), at Confidence;
	// Agreement the planning agreement where earlier reviews do not
	// measure one; Seed the draw's seed.
	HalfWidth  float64                `json:"half_width"`
	Confidence float64                `json:"confidence"`
	Agreement  float64                `json:"agreement"`
	Seed       uint64                 `json:"seed"`
	Classes    []reviewQueueClassJSON `json:"classes"`
	// Drawn counts the item-compactions and systems drawn, Census and
	// Random split it; Rows counts the queue's rows (an item-compaction
	// drawn for both systems is one row).
	Drawn  int `json:"drawn"`
	Census int `json:"census"`
	Random int `json:"random"`
	Rows   int `json:"rows"`
}

func newCalibrateQueueCmd(opts *options) *cobra.Command {
	var (
		config, output       string
		contexts             [2]string
		halfWidth, agreement float64
		confidence           float64
		seed                 uint64
		lim                  limitFlags
	)
	cmd := &cobra.Command{
		Use:   "queue --config report.yaml -o QUEUE.csv [--half-width 0.10] [--agreement 0.9] [--seed N] [--confidence C]",
		Short: "Draw the item-compactions to review: every contradiction and a random sample sized for the corrected retention",
		Long: `queue builds the report the configuration describes and writes the review
queue, a CSV of the item-compactions a reviewer should review so that each
class's retention corrected for the judge's errors has at most the target
half-width (--half-width, at the report's confidence or --confidence):

  - every item the judge called contradicted (a census: their stratum is
    reviewed in full), and
  - from the items the judge called supported and from those it called
    absent, a simple random sample, sized by Neyman allocation with the
    planning agreement (the share of a stratum's items a reviewer will give
    the judge's verdict): measured from the stratum's earlier reviews when
    there are 20 or more, else --agreement.

Reviews the configuration's reviews file already holds count towards
their stratum and are not drawn again. The draw is seeded (--seed): the
same report, reviews and seed give the same queue, byte for byte.

The CSV has one row per item-compaction drawn for either system, sorted by
conversation, compaction and item: the Items sheet's key, item text and
judge columns, each system's compacted context (with --incumbent-contexts
and --candidate-contexts, the folders tally check read) and its sample
column ("Incumbent: sample", "Candidate: sample": census or random for the
system the row was drawn for, empty otherwise), and the reviewer's columns
to fill. No cell is a formula: one that would be is written with a leading
'. tally calibrate QUEUE.csv -o reviews.jsonl --config report.yaml reads
the filled queue back, each review marked with its sample.

Prints the plan per class and system: the items, the judged ones, per
judge's verdict the items, those already reviewed, wanted and drawn, the
planning agreement (measured or assumed), the half-width expected and
whether the target is reachable; then the total drawn, the seed and the
queue file, which is replaced atomically.`,
		Example: "  tally calibrate queue --config examples/quarterly/report.yaml -o out/review-queue.csv\n" +
			"  tally calibrate queue --config report.yaml --half-width 0.05 --seed 7 -o review-queue.csv",
		Args: cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			switch {
			case config == "":
				return usagef("--config must name the report's configuration (report.yaml)")
			case output == "":
				return usagef("-o QUEUE.csv must name the queue file to write, not be empty")
			case !(halfWidth > 0 && halfWidth < 1):
				return usagef("--half-width %v: want a share strictly between 0 and 1, such as 0.10 for 10 points", halfWidth)
			case !(agreement > 0 && agreement < 1):
				return usagef("--agreement %v: want a share strictly between 0 and 1, such as 0.9", agreement)
			}
			if cmd.Flags().Changed("confidence") {
				if err := stats.ValidateConfidence(confidence); err != nil {
					return usagef("--confidence: %v", err)
				}
			}
			cfg, err := report.LoadConfig(config)
			if err != nil {
				return err
			}
			r, err := report.Build(cfg, report.Options{Generated: time.Unix(0, 0).UTC(), Version: version, Limits: lim.Limits})
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("confidence") {
				confidence = r.Confidence
			}
			popts := calibration.PlanOptions{HalfWidth: halfWidth, Confidence: confidence, Agreement: agreement, Seed: seed}
			plan, err := calibration.NewPlan(r.Observations(), []string{r.Incumbent, r.Candidate}, popts)
			if err != nil {
				return fmt.Errorf("%s: %w", config, err)
			}
			rows := queueRows(r, plan, contexts)
			created, err := createFolder(output)
			if err != nil {
				return err
			}
			if err := reviews.WriteQueueFile(output, rows); err != nil {
				removeFolders(created)
				return err
			}
			out := newReviewQueueJSON(config, output, plan, len(rows))
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return writeReviewQueueText(cmd.OutOrStdout(), &out)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&config, "config", "", "the report's configuration (report.yaml); its reviews file's reviews count towards the plan")
	f.StringVarP(&output, "output", "o", "", "the queue file (CSV) to write; replaced atomically, its folder created if need be")
	f.Float64Var(&halfWidth, "half-width", calibration.DefaultHalfWidth, "target half-width of each class's corrected retention, a share (0.10 is 10 points)")
	f.Float64Var(&agreement, "agreement", calibration.DefaultAgreement, fmt.Sprintf("planning agreement of judge and reviewer where fewer than %d earlier reviews of a stratum measure it", calibration.MeasuredFrom))
	f.Float64Var(&confidence, "confidence", 0, "the interval's confidence level (default: the configuration's confidence, itself 0.95 by default)")
	f.Uint64Var(&seed, "seed", 1, "seed of the random draw")
	f.StringVar(&contexts[0], "incumbent-contexts", "", "the incumbent's compacted contexts (the folder tally check read): each row names its context file")
	f.StringVar(&contexts[1], "candidate-contexts", "", "the candidate's compacted contexts: each row names its context file")
	lim.register(cmd)
	return cmd
}

// queueRows turns the plan's picks into the queue's rows: one per
// item-compaction, with the report's item text and judge records, and
// each system's context path under contexts (when given).
func queueRows(r *report.Report, plan calibration.Plan, contexts [2]string) []reviews.QueueRow {
	names := [2]string{r.Incumbent, r.Candidate}
	at := make(map[reviews.ItemKey]int, len(plan.Picks))
	var rows []reviews.QueueRow
	for _, p := range plan.Picks {
		k := reviews.ItemKey{ConversationID: p.Key.ConversationID, Compaction: p.Key.Compaction, ItemID: p.Key.ItemID}
		i, ok := at[k]
		if !ok {
			i = len(rows)
			at[k] = i
			rows = append(rows, reviews.QueueRow{ConversationID: k.ConversationID, Compaction: k.Compaction, ItemID: k.ItemID, Class: p.Class})
		}
		for s, name := range names {
			if p.Key.System == name {
				rows[i].Sample[s] = p.Sample
			}
		}
	}
	for i := range r.Items {
		it := &r.Items[i]
		j, ok := at[reviews.ItemKey{ConversationID: it.ConversationID, Compaction: it.Compaction, ItemID: it.ItemID}]
		if !ok {
			continue
		}
		q := &rows[j]
		q.Literal, q.Probe, q.Expect = it.Literal, it.Probe, it.Expect
		for s, rec := range []*fixture.Record{&it.Incumbent, &it.Candidate} {
			q.Judge[s], q.Answer[s], q.Reason[s] = rec.Verdict, rec.Answer, rec.Reason
			if contexts[s] != "" && rec.Verdict != "" {
				q.Context[s] = filepath.Join(contexts[s], it.ConversationID, strconv.Itoa(it.Compaction)+".json")
			}
		}
	}
	return rows
}

// newReviewQueueJSON gives the plan in the JSON contract's shape.
func newReviewQueueJSON(config, output string, plan calibration.Plan, rows int) reviewQueueJSON {
	o := plan.Options
	out := reviewQueueJSON{Config: config, Output: output, HalfWidth: o.HalfWidth, Confidence: o.Confidence, Agreement: o.Agreement,
		Seed: o.Seed, Classes: []reviewQueueClassJSON{}, Rows: rows}
	for _, c := range plan.Classes {
		cj := reviewQueueClassJSON{Class: string(c.Class), System: c.System, Items: c.Items, Judged: c.Judged,
			HalfWidth: optional(c.HalfWidth, c.Judged > 0), Reachable: c.Reachable, Reason: c.Reason, Strata: []reviewQueueStratumJSON{}}
		for _, s := range plan.Strata {
			if s.Class == c.Class && s.System == c.System {
				cj.Strata = append(cj.Strata, reviewQueueStratumJSON{Judge: string(s.Judge), Judged: s.Judged, Reviewed: s.Reviewed,
					Wanted: s.Want, Drawn: s.Drawn, Agreement: s.Agreement, Measured: s.Measured, Sample: s.Sample})
			}
		}
		out.Classes = append(out.Classes, cj)
	}
	for _, p := range plan.Picks {
		out.Drawn++
		if p.Sample == reviews.SampleCensus {
			out.Census++
		} else {
			out.Random++
		}
	}
	return out
}

func writeReviewQueueText(w io.Writer, out *reviewQueueJSON) error {
	fmt.Fprintf(w, "%s: review queue for a corrected retention within ±%s at %s confidence, each class and system\n",
		out.Config, points(out.HalfWidth), pct(out.Confidence))
	var buf bytes.Buffer
	tw := table(&buf)
	fmt.Fprintln(tw, "class\tsystem\titems\tjudged\tjudge's verdict\tjudged\treviewed\twanted\tdrawn\tsample\tagreement\texpected ±\ttarget")
	for _, c := range out.Classes {
		head := fmt.Sprintf("%s\t%s\t%d\t%d", c.Class, c.System, c.Items, c.Judged)
		target := "reachable"
		if !c.Reachable {
			target = "not reachable"
		}
		hw := "—"
		if c.HalfWidth != nil {
			hw = points(*c.HalfWidth)
		}
		if len(c.Strata) == 0 {
			fmt.Fprintf(tw, "%s\t—\t\t\t\t\t\t\t%s\t%s\n", head, hw, target)
		}
		for i, s := range c.Strata {
			how := "assumed"
			if s.Measured {
				how = "measured"
			}
			tail := "\t"
			if i == 0 {
				tail = hw + "\t" + target
			} else {
				head = "\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%.2f %s\t%s\n", head, s.Judge, s.Judged, s.Reviewed, s.Wanted, s.Drawn, s.Sample, s.Agreement, how, tail)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A stratum's line after its class's first has empty class columns:
	// no padding after its last cell.
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			fmt.Fprintln(w, strings.TrimRight(line, " \n"))
		}
	}
	for _, c := range out.Classes {
		if c.Reason != "" {
			fmt.Fprintf(w, "%s, %s: %s\n", c.Class, c.System, c.Reason)
		}
	}
	fmt.Fprintf(w, "assumed agreement %.2f where fewer than %d earlier reviews of a stratum measure it\n", out.Agreement, calibration.MeasuredFrom)
	fmt.Fprintf(w, "drawn: %d %s (%d census, %d random) on %d %s, seed %d → %s\n",
		out.Drawn, map[bool]string{true: "item-compaction and system", false: "item-compactions and systems"}[out.Drawn == 1], out.Census, out.Random, out.Rows, pluralWord(out.Rows, "row"), out.Seed, out.Output)
	return nil
}
