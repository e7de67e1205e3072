// Package report computes the quarterly report of a compaction change:
// it reads the configuration (report.yaml) and the inputs it names
// (fixtures, both systems' verdicts, prompt sizes, replay pairs, a
// fixture selection), and Build turns them into a Report, a model of
// plain values. The model holds the gates, the incumbent-against-
// candidate comparison (regression, decided item by item, against
// compliance with the gates), the decision, the replay's paired
// task-success analysis and the provenance, with warnings as data.
//
// report renders nothing. The renderers read the model, each in a
// package of its own below this one, and none imports another:
// report/markdown (the summary), report/html (the notebook page, with
// report/notebook computing its cells and report/chart drawing its
// charts) and report/xlsx (the workbook).
package report
