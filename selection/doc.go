// Package selection chooses the conversations worth turning into
// fixtures, as the source text argues they must be chosen: by the
// compaction decisions they exercise rather than by number, and from the
// production signals that say a compaction went wrong.
//
// Selection (`tally select`) reads session summaries (SessionReader) and counts each session's Decisions: one per item live
// at each compaction, at least one per compaction. Select keeps every
// incident and fills the budget — in sessions, or in annotation hours by
// the model of AnnotationMinutes — with the sessions carrying the most
// decisions, in one pass and in memory bounded by the budget; it compares
// the selection with a thousand seeded random samples drawn in the same
// pass (random.go says how).
//
// Signals (`tally signals`) read agent logs of any format agentlog reads,
// one session at a time, and find per session (SessionSignals) the two
// signals of the source text after each compaction, within a window of
// turns and steps: a tool call repeated because its result was lost, or
// a side effect redone (RepeatedToolCall; repeats.go), and a person
// restating an instruction typed before the compaction
// (RestatedInstruction; restatements.go). Scan reads many logs in
// parallel, streams the flagged sessions with their evidence in a
// deterministic order and draws a seeded weekly sample.
//
// Proposals (`tally propose`) run an arrival-time classifier over one
// session's messages and return the candidate must-survive items
// (Propose). A Proposal is also the candidates file that `tally review`
// works through: candidates.go holds the one reader (ParseCandidates,
// LoadCandidates) and the one writer (WriteCandidates) of that format,
// its rules (Proposal.Validate) and the fixture its accepted items make
// (Proposal.Fixture).
//
// Every problem in an input names its file, line, column and field as a
// fixture.Problem; a reader moves past it, and Select and Scan either stop
// at it or, with SkipBad, skip the line, count it and report it among
// their warnings. Nothing here prints.
package selection
