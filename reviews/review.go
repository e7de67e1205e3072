package reviews

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// Unsure is the reviewer's word for "I cannot tell": counted, never
// recorded as a verdict.
const Unsure = "unsure"

// Verdicts are the verdicts a reviewer may give, in the order they are
// listed; Words adds Unsure.
var (
	Verdicts = []fixture.Verdict{fixture.Supported, fixture.Absent, fixture.Contradicted}
	Words    = []string{string(fixture.Supported), string(fixture.Absent), string(fixture.Contradicted), Unsure}
)

// ValidVerdict reports whether v is a verdict a reviewer may give.
func ValidVerdict(v fixture.Verdict) bool {
	return v == fixture.Supported || v == fixture.Absent || v == fixture.Contradicted
}

// Key identifies what a review is of: one item at one compaction of one
// conversation, for one system. A file holds one review per key.
type Key struct {
	ConversationID string
	Compaction     int
	ItemID         string
	System         string
}

// String names the key in words, for messages.
func (k Key) String() string {
	return fmt.Sprintf("conversation %q compaction %d item %q system %q", k.ConversationID, k.Compaction, k.ItemID, k.System)
}

// Review is one reviewer's verdict on one item-compaction of one system.
type Review struct {
	ConversationID string
	Compaction     int
	ItemID         string
	Class          fixture.Class
	System         string
	// Item is the item's fingerprint (fixture.Item.Fingerprint) from the
	// verdict record the reviewer saw; empty when it was not known.
	Item string
	// JudgeVerdict is the judge's verdict the reviewer saw; empty when the
	// system had no verdict record for the item-compaction.
	JudgeVerdict fixture.Verdict
	// Verdict is the reviewer's: supported, absent or contradicted.
	Verdict  fixture.Verdict
	Reviewer string
	Note     string
	// Source is the workbook or CSV the review was read from.
	Source string
	// Sample says how a review queue drew the item-compaction (tally
	// calibrate queue): SampleCensus, SampleRandom, or "" when no queue
	// drew it (a reviewer picked the row).
	Sample string
}

// How a review queue drew an item-compaction (Review.Sample).
const (
	// SampleCensus: its stratum (the items the judge called
	// contradicted) is reviewed in full.
	SampleCensus = "census"
	// SampleRandom: drawn at random from its stratum (the items the judge
	// gave one verdict).
	SampleRandom = "random"
)

// Key returns what r is a review of.
func (r Review) Key() Key {
	return Key{ConversationID: r.ConversationID, Compaction: r.Compaction, ItemID: r.ItemID, System: r.System}
}

// Same reports whether r and o say the same thing about the same key:
// every field but Source equal.
func (r Review) Same(o Review) bool {
	r.Source, o.Source = "", ""
	return r == o
}

// Agrees reports whether the reviewer's verdict is the judge's, a
// verbatim verdict counting as supported (the item is in the context).
// An agreement measure of the judge leaves verbatim items out: no judge
// was asked of them.
func (r Review) Agrees() bool {
	j := r.JudgeVerdict
	if j == fixture.Verbatim {
		j = fixture.Supported
	}
	return j == r.Verdict
}

// reviewFields are the JSON names of Review's fields, in order.
var reviewFields = []string{"conversation_id", "compaction", "item_id", "class", "system", "item", "judge_verdict", "verdict", "reviewer", "note", "source", "sample"}

// required reports whether the field at index k of reviewFields must be
// present.
func required(k int) bool { return k <= 4 || k == 7 }

// Validate checks r against the rules Reader applies, so that a review
// that validates is written and read back unchanged. It returns
// fixture.Problems without positions.
func (r Review) Validate() error {
	var ps fixture.Problems
	for _, p := range r.check(func(int) int { return 0 }) {
		ps = append(ps, fixture.Problem{Field: p.field, Msg: p.msg})
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// fieldProblem is one problem with a field's value: the index of the
// field in reviewFields and the message.
type fieldProblem struct {
	k     int
	field string
	msg   string
}

// check applies the rules on values to r; skip(k) > 0 says field k was
// not read (missing or of the wrong type, already reported).
func (r Review) check(skip func(k int) int) []fieldProblem {
	var out []fieldProblem
	add := func(k int, format string, args ...any) {
		if skip(k) == 0 {
			out = append(out, fieldProblem{k, reviewFields[k], fmt.Sprintf(format, args...)})
		}
	}
	strs := [...]string{r.ConversationID, "", r.ItemID, string(r.Class), r.System, r.Item, string(r.JudgeVerdict), string(r.Verdict), r.Reviewer, r.Note, r.Source, r.Sample}
	for k, s := range strs {
		if !utf8.ValidString(s) {
			add(k, "not valid UTF-8")
		}
	}
	for _, k := range []int{0, 2, 4} {
		if strings.TrimSpace(strs[k]) == "" {
			add(k, "empty")
		}
	}
	if r.Compaction < 1 {
		add(1, "must be at least 1 (compactions are numbered from 1), got %d", r.Compaction)
	}
	if !r.Class.Valid() {
		add(3, "%q is not a class (want %s)", preview(string(r.Class)), list(classNames()))
	}
	if r.JudgeVerdict != "" && !r.JudgeVerdict.Valid() {
		add(6, "%q is not a judge's verdict (want %s, or leave it out)", preview(string(r.JudgeVerdict)), list(verdictNames(fixture.Verdicts)))
	}
	if r.Sample != "" && r.Sample != SampleCensus && r.Sample != SampleRandom {
		add(11, "%q is not how a review queue draws (want %s or %s, or leave it out)", preview(r.Sample), SampleCensus, SampleRandom)
	}
	if !ValidVerdict(r.Verdict) {
		add(7, "%q is not a reviewer's verdict (want %s)", preview(string(r.Verdict)), list(verdictNames(Verdicts)))
	}
	return out
}

func classNames() []string {
	out := make([]string, len(fixture.Classes))
	for i, c := range fixture.Classes {
		out[i] = string(c)
	}
	return out
}

func verdictNames(vs []fixture.Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// list joins names as "a, b or c".
func list(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// preview shortens s for a message.
func preview(s string) string {
	const max = 40
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
