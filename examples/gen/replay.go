package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
)

// The replay's paired table: rows reference success/failure, columns
// candidate success/failure. B = lost, C = gained.
const (
	ReplayConversations = 200
	ReplayA             = 157 // both succeeded
	ReplayB             = 9   // reference succeeded, candidate failed
	ReplayC             = 11  // reference failed, candidate succeeded
	ReplayD             = 23  // both failed
)

type replayLine struct {
	ConversationID string `json:"conversation_id"`
	Reference      string `json:"reference"`
	Candidate      string `json:"candidate"`
	ReferenceKind  string `json:"reference_kind"`
}

// replayPairs draws 200 logged sessions that compacted and gives them
// paired outcomes with exactly the table above; failures are likelier in
// sessions with more compactions and in incidents. A session whose
// uncompacted transcript exceeds the model window has an accepted trace
// as its reference.
func replayPairs(seed uint64, ss []*Session) []replayLine {
	r := stream(seed, "replay")
	var pool []*Session
	for _, s := range ss {
		if s.Logged && len(s.Compactions) > 0 {
			pool = append(pool, s)
		}
	}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	pool = pool[:ReplayConversations]
	slices.SortFunc(pool, func(a, b *Session) int { return cmp.Compare(a.ID, b.ID) })

	risk := make([]float64, len(pool))
	for i, s := range pool {
		risk[i] = 1 + float64(len(s.Compactions))
		if s.Incident {
			risk[i] += 3
		}
	}
	cell := make([]byte, len(pool))
	draw := func(n int, c byte, w []float64) {
		for k := 0; k < n; {
			i := weighted(r, w)
			if cell[i] == 0 {
				cell[i] = c
				k++
			}
		}
	}
	draw(ReplayD, 'D', risk)
	draw(ReplayB, 'B', risk)
	flat := make([]float64, len(pool))
	for i := range flat {
		flat[i] = 1
	}
	draw(ReplayC, 'C', flat)
	out := make([]replayLine, len(pool))
	for i, s := range pool {
		l := replayLine{ConversationID: s.ID, Reference: "success", Candidate: "success", ReferenceKind: "uncompacted"}
		switch cell[i] {
		case 'B':
			l.Candidate = "failure"
		case 'C':
			l.Reference = "failure"
		case 'D':
			l.Reference, l.Candidate = "failure", "failure"
		}
		if s.TotalTokens > ModelWindow {
			l.ReferenceKind = "accepted_trace"
		}
		out[i] = l
	}
	return out
}

// jsonl renders values one per line, without HTML escaping.
func jsonl[T any](xs []T) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, x := range xs {
		if err := enc.Encode(x); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
