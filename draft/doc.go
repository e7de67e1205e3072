// Package draft drafts fixtures from real agent sessions (`tally fixtures
// draft`): from an agentlog.Session it builds the candidates file a person
// then confirms with `tally review` (selection.Proposal), and, for the
// summariser that really ran (the incumbent), the compacted context of
// each compaction in tally's context format (fixture.Context). Build
// returns the model; the command writes it.
//
// The choices, each made so that `tally check` finds every item live at
// exactly the compactions it was stated before:
//
//   - Items. For compaction k the proposer runs on the session's prefix
//     before it (the messages and steps that precede the compaction, see
//     Prefix), so an item stated after a compaction is never proposed for
//     it. The candidates of all the prefixes are merged: an item (class,
//     literal, typed turn) keeps its first appearance, and its turn is
//     where it was stated. So an item first proposed from a later prefix
//     although stated earlier (a path that becomes a reference once the
//     session mentions it again) is live at the earlier compactions too.
//     An item proposed before compaction j and no longer proposed before
//     a later compaction k (a question answered, a constraint superseded
//     in between) stays — a fixture cannot retire an item — and
//     Draft.Notes says so, for the reviewer.
//   - Turns. A fixture's turn is a typed turn, except that a compaction
//     inside a typed turn (an automatic one, while the agent works on a
//     prompt) starts a new fixture turn: the rest of that typed turn, the
//     agent continuing from the compacted context. A compaction right
//     before a typed prompt (a manual /compact between turns) serves that
//     prompt's turn. So context k's turn is the first fixture turn that
//     begins from it, every item stated before compaction k has a smaller
//     turn and every item stated after it does not: fixture.Item.LiveAt
//     is exact. Content before the first typed prompt belongs to turn 1,
//     as the proposer counts it. Fixture.Turns is the number of fixture
//     turns, which is the typed turns plus the compactions inside one.
//   - The incumbent's context of compaction k ("kept"): what the agent
//     continued from — the compaction's summary (Claude Code's
//     isCompactSummary record; Codex's compacted message; the generic
//     format's summary), then every injected user message that follows it
//     before the agent's next step or the next typed prompt (Claude Code
//     writes the output of a manual /compact there), each as a user
//     message, in order. The next typed prompt is not in it: it starts the
//     turn the context serves, and its items are not live there. Claude
//     Code keeps no earlier turn verbatim, so nothing before the
//     compaction is in it, but for a partial compaction's preserved
//     messages (agentlog.Compaction.Kept, after the summary); the /compact command and its caveat, written
//     before the boundary, asked for the compaction and are not in it
//     either. Nor are the agent's own steps after the compaction, or the
//     tool results they fetched: they are what the agent did with the
//     context, and a candidate summariser's context, which is its summary
//     alone, would have changed them; counting them would credit the
//     incumbent with what the agent re-read. The system prompt and tool
//     definitions are not in the log, so the context has no "system".
//     The summary record's isVisibleInTranscriptOnly hides it from the
//     terminal's main view ("ctrl+o to see full summary"), not from the
//     model: the agent's next step answers from it. What Claude Code may
//     attach after a compaction without logging it (files read recently,
//     the todo list) is not in the context: for items only those carry,
//     the incumbent's retention is understated.
//   - A compaction without a summary (a log cut off after the boundary,
//     or tally's own event log, which records none) has no context to
//     check: it is left out of the fixture, and Notes says so with its
//     line. A microcompaction (old tool results cleared, no summary) is
//     not a compaction of the fixture.
//   - The conversation id is the session's id when it can name a folder
//     on every system (fixture.ValidConversationID, and Windows's rules),
//     else the id with each character that cannot replaced by "_", else
//     the log's file name.
//
// One limit comes from the event model: agentlog.Compaction gives the
// number of steps before it but not the number of messages. In Claude Code
// and Codex logs every record has a line of its own, which orders them; in
// the generic format a session is one line, and an injected message
// between the last step and a compaction is taken to precede it.
package draft
