package selection

// The annotation time model.
//
// The source text puts annotation at about fifteen minutes a conversation
// written from scratch and about two when a person only confirms proposed
// items. Those figures are for conversations worth annotating, like its
// example fixture of 63 turns; a production session of five turns takes
// far less, one of 400 far more, since authoring means reading every turn
// and reviewing means answering one question per proposed item, and both
// grow with the conversation. The model keeps half the time fixed
// (opening the conversation, reading the task, saving the fixture) and
// lets half grow in proportion to turns:
//
//	minutes(turns) = m × (½ + ½ × turns / ReferenceTurns)
//
// where m is the minutes for a conversation of ReferenceTurns turns
// (--minutes-per-fixture, 2 by default; the reports give m = 15 and
// m = 2). A 12-turn session (the example quarter's median) costs 0.6 m, a
// 63-turn one m, a 420-turn one 3.8 m. The reports use this model
// throughout, so hours a selection is said to cost and the hours budget it
// was chosen under agree.

// ReferenceTurns is the length of conversation the per-conversation
// minutes refer to: the source text's example fixture has 63 turns.
const ReferenceTurns = 63

// The per-conversation minutes of the source text: authoring a fixture
// from scratch, and confirming proposed items.
const (
	AuthoringMinutes = 15
	ReviewMinutes    = 2
)

// AnnotationMinutes is the time the model gives to annotating a session
// of the given turns, at perConversation minutes for a conversation of
// ReferenceTurns turns.
func AnnotationMinutes(turns int, perConversation float64) float64 {
	return perConversation * (0.5 + 0.5*float64(turns)/ReferenceTurns)
}
