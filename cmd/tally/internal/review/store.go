package review

import (
	"encoding/json"
	"io"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/selection"
)

// Counts tallies a proposal's candidates by status.
type Counts struct {
	Accepted, Rejected, Pending int
}

// Count tallies p's candidates by status.
func Count(p selection.Proposal) Counts {
	var c Counts
	for _, it := range p.Candidates {
		switch it.Status {
		case selection.ReviewAccepted:
			c.Accepted++
		case selection.ReviewRejected:
			c.Rejected++
		default:
			c.Pending++
		}
	}
	return c
}

// Store writes a review's two files: the candidates file, which holds
// the review's whole state, and the fixture made of its accepted items.
type Store struct {
	Candidates string // path of the candidates file
	Fixture    string // path of the output fixture
}

// Save writes p to the candidates file (selection.WriteCandidates) and
// its fixture (selection.Proposal.Fixture) to the fixture file as one set,
// all or none (internal/atomicfile.WriteSet): a review killed at any
// moment leaves both files whole and agreeing, and the fixture is
// rewritten from the candidates file when the review resumes. p is
// validated first.
func (s Store) Save(p *selection.Proposal) error {
	if err := p.Validate(); err != nil {
		return err
	}
	fx, err := p.Fixture()
	if err != nil {
		return err
	}
	return atomicfile.WriteSet([]atomicfile.File{
		{Path: s.Candidates, Write: func(w io.Writer) error { return selection.WriteCandidates(w, *p) }},
		{Path: s.Fixture, Write: func(w io.Writer) error { return writeJSON(w, fx) }},
	}, nil)
}

// writeJSON writes v indented by two spaces, with a final newline and
// without escaping <, > and & (the files are read by people).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
