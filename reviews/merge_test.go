package reviews

import (
	"slices"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

func TestMerge(t *testing.T) {
	rv := func(item string, v fixture.Verdict, note, source string) Review {
		return Review{ConversationID: "c", Compaction: 1, ItemID: item, Class: fixture.Constraint, System: "s", Verdict: v, Note: note, Source: source}
	}
	kept := []Review{rv("a", fixture.Absent, "", "q1.xlsx"), rv("b", fixture.Supported, "", "q1.xlsx"), rv("c", fixture.Absent, "x", "q1.xlsx")}
	add := []Review{
		rv("d", fixture.Supported, "", "q2.xlsx"),    // new: appended
		rv("b", fixture.Contradicted, "", "q2.xlsx"), // changed verdict: replaces b in place
		rv("a", fixture.Absent, "", "q2.xlsx"),       // same but for its source: a stays as kept
		rv("c", fixture.Absent, "y", "q2.xlsx"),      // changed note: replaces c
	}
	got, changes := Merge(kept, add)
	want := []Review{kept[0], add[1], add[3], add[0]}
	if !slices.Equal(got, want) {
		t.Errorf("merged:\n%+v\nwant:\n%+v", got, want)
	}
	if w := []Change{Added, Replaced, Unchanged, Replaced}; !slices.Equal(changes, w) {
		t.Errorf("changes %v, want %v", changes, w)
	}
	if kept[1].Verdict != fixture.Supported {
		t.Error("Merge changed kept")
	}
	defer func() {
		if recover() == nil {
			t.Error("two new reviews of one key did not panic")
		}
	}()
	Merge(nil, []Review{add[0], add[0]})
}

// TestMergeKeepsSample: a review read again from the Items sheet, which
// has no sample columns (the report now fills it with the reviews it
// used), keeps the queue's draw: the same review is unchanged, a new note
// replaces it with the draw kept.
func TestMergeKeepsSample(t *testing.T) {
	queued := Review{ConversationID: "c", Compaction: 1, ItemID: "a", Class: fixture.Constraint, System: "s", Verdict: fixture.Absent, Sample: SampleRandom, Source: "queue.csv"}
	again := queued
	again.Sample, again.Source = "", "report.xlsx"
	got, changes := Merge([]Review{queued}, []Review{again})
	if changes[0] != Unchanged || got[0].Sample != SampleRandom {
		t.Errorf("the same review from the sheet: %v, sample %q; want unchanged, random", changes[0], got[0].Sample)
	}
	again.Note = "checked twice"
	got, changes = Merge([]Review{queued}, []Review{again})
	if changes[0] != Replaced || got[0].Sample != SampleRandom || got[0].Note != "checked twice" {
		t.Errorf("a new note from the sheet: %v, %+v; want replaced, random, the note", changes[0], got[0])
	}
}

func TestAgrees(t *testing.T) {
	for _, tc := range []struct {
		judge, reviewer fixture.Verdict
		want            bool
	}{
		{fixture.Verbatim, fixture.Supported, true}, // verbatim: the item is in the context
		{fixture.Supported, fixture.Supported, true},
		{fixture.Contradicted, fixture.Absent, false},
		{fixture.Error, fixture.Absent, false},
		{"", fixture.Absent, false}, // no record: nothing to agree with
	} {
		if got := (Review{JudgeVerdict: tc.judge, Verdict: tc.reviewer}).Agrees(); got != tc.want {
			t.Errorf("judge %q, reviewer %q: agrees %v, want %v", tc.judge, tc.reviewer, got, tc.want)
		}
	}
}
