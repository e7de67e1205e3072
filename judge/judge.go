package judge

import (
	"context"

	"github.com/tally-eval/tally/fixture"
)

// Question is one must-survive item asked against one compacted context.
//
// System, ConversationID, Compaction, ItemID and Class identify the item:
// the recorded judge looks verdicts up by them and messages name them. The
// model judge sees only Probe and Context (and Expect, for the agreement
// question).
type Question struct {
	System         string
	ConversationID string
	Compaction     int
	ItemID         string
	Class          fixture.Class

	// Probe is the fixture's closed question.
	Probe string
	// Expect is the answer any correct context still supports.
	Expect string
	// Context is the rendered compacted context, exactly as the agent
	// would see it on its next turn. A *Recorded judge, which answers
	// from its records and never reads it, gets "" (Check reads each
	// context once, to find the verbatim items, when the judge is
	// recorded).
	Context string
	// Item is the item's fingerprint (fixture.Item.Fingerprint), carried
	// to its verdict record; it is not part of any cache key.
	Item string
}

// Answer is a judge's verdict on one Question.
type Answer struct {
	// Verdict is supported, absent, contradicted or error (and verbatim
	// only when replayed from a recorded verdict file).
	Verdict fixture.Verdict
	// Answer is the judge's short answer to the probe.
	Answer string
	// Reasoning is the judge's short justification.
	Reasoning string
	// Expect is the fixture's expected answer, set when the judge's answer
	// disagreed with it.
	Expect string
	// Judge names the judge: "backend/model", or the recorded judge name.
	Judge string
	// Reason says in words why the verdict is error or why a supported
	// answer became contradicted.
	Reason string
	// Calls counts the backend calls made (verdict, re-asks, agreement);
	// HTTP retries inside a backend are not counted.
	Calls int
	// CacheHits counts the replies taken from the cache instead.
	CacheHits int
	// Err is the backend's error behind an error verdict whose call
	// failed (nil otherwise: not for a reply with no usable verdict). It
	// is not recorded; Check's circuit breaker reads it (ErrUnavailable).
	Err error
}

// Record is a's verdict line for q.
func (a Answer) Record(q Question) fixture.Record {
	return fixture.Record{
		System:         q.System,
		ConversationID: q.ConversationID,
		Compaction:     q.Compaction,
		ItemID:         q.ItemID,
		Class:          q.Class,
		Verdict:        a.Verdict,
		Answer:         a.Answer,
		Judge:          a.Judge,
		Expect:         a.Expect,
		Reason:         a.Reason,
		Item:           q.Item,
	}
}

// Judge answers Questions.
//
// A judge that fails after its retries returns an Answer with Verdict
// fixture.Error and a Reason, and a nil error; a non-nil error means the
// context was cancelled or the judge was misused, and the question has no
// verdict at all.
type Judge interface {
	Judge(ctx context.Context, q Question) (Answer, error)
}
