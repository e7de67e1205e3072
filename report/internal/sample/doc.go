// Package sample is test support for the report's renderers: the
// hand-made reports every renderer's tests share (Report, Hostile,
// Minimal, Large), the bundled example's report as Build makes it
// (Quarterly), small hand-made cases (WriteCase, BuildCase), the golden
// file comparison (Golden, with the -update flag) and heap measurement
// for benchmarks (Heap, CountWriter).
//
// It is imported only by tests; it is an ordinary package, not a _test
// file, so that every renderer's tests use one copy.
package sample
