package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// TestMissingRecords: a missing compaction's items are recorded by what
// the present contexts around it prove — certainly live ("no context"),
// perhaps live ("no context (liveness unknown)") — and an item that cannot
// have been live at it is never recorded.
func TestMissingRecords(t *testing.T) {
	f := fixture.Fixture{ConversationID: "c", Turns: 100}
	for _, turn := range []int{1, 10, 15, 16, 20, 30, 35, 42, 43, 44, 50, 98, 99, 100} {
		f.MustSurvive = append(f.MustSurvive, fixture.Item{ID: fmt.Sprintf("t%d", turn), Class: fixture.Classes[0], Turn: turn})
	}
	for _, tt := range []struct {
		reason string
		turns  []int // of compactions 1..len; 0: missing
		n      int
		want   string // the records, "item:reason" with reason N (no context) or U (liveness unknown)
	}{
		{"between turns 15 and 45 with compaction 3 missing too: compaction 2 served a turn in 16..43",
			[]int{15, 0, 0, 45}, 2, "t1:N t10:N t15:N t16:U t20:U t30:U t35:U t42:U"},
		{"the second of two missing: a turn in 17..44 (the item of turn 43 may be live here, not at 2)",
			[]int{15, 0, 0, 45}, 3, "t1:N t10:N t15:N t16:N t20:U t30:U t35:U t42:U t43:U"},
		{"the other system shows turn 30, this one's next context is at 40: the item of turn 35 may be live, not certainly",
			[]int{20, 0, 40}, 2, "t1:N t10:N t15:N t16:N t20:N t30:U t35:U"},
		{"the first compaction missing: nothing is certainly live before turn 1",
			[]int{0, 20}, 1, "t1:U t10:U t15:U t16:U"},
		{"the last compaction missing: a turn in 21..100, the fixture's last",
			[]int{20, 0}, 2, "t1:N t10:N t15:N t16:N t20:N t30:U t35:U t42:U t43:U t44:U t50:U t98:U t99:U"},
		{"the last two missing: the one before the last served turn 99 at most",
			[]int{20, 0, 0}, 2, "t1:N t10:N t15:N t16:N t20:N t30:U t35:U t42:U t43:U t44:U t50:U t98:U"},
		{"neighbours one turn apart each side: the turn is known, every item certain",
			[]int{20, 0, 22}, 2, "t1:N t10:N t15:N t16:N t20:N"},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			set := fixture.ContextSet{Turns: tt.turns}
			for i, turn := range tt.turns {
				file := ""
				if turn > 0 {
					file = fmt.Sprintf("%d.json", i+1)
				}
				set.Files = append(set.Files, file)
			}
			var got []string
			for _, r := range missingRecords("s", f, set, tt.n) {
				if r.Verdict != fixture.Error || r.Compaction != tt.n {
					t.Fatalf("record %+v", r)
				}
				code := map[string]string{ReasonNoContext: "N", ReasonLivenessUnknown: "U"}[r.Reason]
				got = append(got, r.ItemID+":"+code)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("records\n got %s\nwant %s", g, tt.want)
			}
		})
	}
}
