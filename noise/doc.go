// Package noise measures the A/A floor of a per-item check: how much two
// check runs of the same system disagree when nothing but chance differs
// between them — the same summariser run twice (at a non-zero
// temperature), or the same compacted contexts judged twice.
//
// Compare reads the two runs' verdict files (with fixture.RecordReader,
// the one reader of that format), pairs their records by item-compaction
// — (conversation_id, compaction, item_id) — and counts per class how
// often the two runs disagree on whether an item was retained (verbatim
// or supported): lost (the first run retained it, the second did not)
// and gained (the other way round). A candidate exactly as good as the
// incumbent disagrees with it about this often by noise alone, so every
// error rate of a regression rule (how often it blocks a harmless change,
// how likely it catches a drop) is computed from these figures.
//
// Beside the discordance it measures how often a contradiction appears in
// one run and not the other, the verdict-level agreement of the two runs
// (the 4×4 table over verbatim, supported, absent and contradicted, with
// Cohen's κ), and the within-conversation correlation of discordance: the
// intraclass correlation (stats.ClusterICC) of the per-item-compaction
// binary outcome "discordant", with conversations as clusters. Items of
// one conversation share its compacted contexts, so a summary that drops
// one of them tends to drop others; the ICC and its design effect are how
// a model of the gate carries that correlation.
//
// Nothing is dropped in silence: an item-compaction in one file only is
// counted as unpaired, and a pair with an error verdict in either run (an
// unknown outcome) is counted apart and left out of the discordance.
package noise
