// Package judge is the three-way judge of the source text: a closed
// question about one must-survive item, asked against a compacted context
// alone, answered "supported", "absent" or "contradicted".
//
// The pieces, in the order a verdict flows through them:
//
//   - [Question] carries an item's probe and expected answer, the rendered
//     compacted context, and the identity of the item (system,
//     conversation, compaction, item id).
//   - [Template] renders the prompt. [DefaultTemplateText] is the source
//     text's JUDGE prompt, asking for a short "reasoning" before "answer"
//     and "verdict"; a template file may replace it.
//   - A [Backend] turns a prompt into a reply: [OpenAI] (any
//     chat-completions server), [Anthropic] (the Messages API) or
//     [Command] (a program reading the prompt on stdin).
//   - [ParseReply] and [ParseAgreement] read replies.
//   - [Cache] keeps every successfully parsed reply on disk, keyed by
//     content hash, so a second run — or a run resumed after a kill —
//     repeats no call.
//   - [Model] ties these together and implements [Judge]; [Recorded]
//     implements [Judge] from a verdict file, with no model at all.
//
// # Verdicts
//
// A judge that fails — a backend that stays down after its retries, or
// replies that never parse after the re-asks — gives the verdict
// [fixture.Error] with a Reason, never [fixture.Absent]: a failure to
// judge is not evidence that an item was dropped. Judge returns a non-nil
// error only when its context is cancelled or it is misused (no backend,
// no probe), so a run that is interrupted records nothing for the
// interrupted questions and resumes cleanly from the cache.
//
// A "supported" verdict is checked once more: a second closed question
// asks the same backend whether the judge's answer and the fixture's
// expected answer agree. A "no" makes the verdict [fixture.Contradicted],
// keeping both answers ([Answer.Answer], [Answer.Expect]); a failed
// agreement question makes it [fixture.Error].
//
// # Untrusted text
//
// Probes, expected answers, contexts and model replies are data. They are
// inserted into prompts by text/template as values (never parsed as
// templates, never used as format strings), passed to a command on stdin
// (never as an argument, never through a shell), and quoted with %q when
// an error has to mention them.
//
// # Cache layout
//
// A cache directory holds one small JSON file per answered question:
//
//	DIR/ab/abcdef….json
//
// named by the lower-case hex SHA-256 of the question's [Key], sharded by
// its first two hex digits. An entry is written to a temporary file in the
// same shard (".tmp-<hex>-<random>") and renamed into place, so a reader —
// another goroutine, another process, a run after kill -9 — sees the
// complete entry or none. Every entry carries the SHA-256 of its
// canonical content, verified on every read: an entry damaged in any way
// (a power cut — entries are not fsynced —, a flipped bit, a hand edit)
// or written by an older version without a checksum is a miss, counted
// in [CacheStats] (Damaged, OldFormat), never an answer, and is replaced
// by the next write. A write that fails (a read-only or full disk) is
// counted with its reason and costs only a repeated call next time.
// Temporary files are never read; [OpenCache] removes those older than
// an hour. Only parsed, valid answers are cached; errors never are.
//
// # Dry runs
//
// [Model.Cached] says whether a question's verdict is already cached, and
// [Model.Plan] says that and what is known about its agreement question,
// without calling the backend or touching the cache statistics. A dry run
// can count exactly the verdict calls a run needs (one per uncached
// question; re-asks and HTTP retries can add more). Agreement calls are
// counted separately and are known only for questions whose verdict is
// cached: a cached "supported" verdict needs an agreement call unless that
// too is cached (or the answers are equal as written); an uncached verdict
// may or may not be followed by one, so a dry run reports those as "at most
// one each".
package judge
