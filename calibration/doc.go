// Package calibration measures the judge against the reviewers and
// corrects retention for the judge's errors.
//
// Its input is one system's verdicts on the item-compactions of a report
// (Observation), each with the reviewer's verdict where there is one. From
// them it computes:
//
//   - Agreement: the judge against the reviewers over supported, absent
//     and contradicted, with Cohen's κ and the share of the judge's
//     contradictions the reviewers confirmed;
//   - Correct: each class's retention corrected by prediction-powered
//     inference (stats.PPIStratifiedJeffreys), the reviewed items the labelled
//     set, stratified by the judge's verdict, beside the judge's own
//     share;
//   - NewPlan: which items to review — every contradiction, and a
//     stratified random sample of the other judged verdicts, sized by
//     Neyman allocation for a target half-width of each class's corrected
//     retention, drawn from a seed.
//
// Verbatim verdicts are the substring check's, exact, and are never
// sampled: a class's retention is its verbatim items plus the judged
// ones' corrected share of the rest.
package calibration
