package selection

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// Tally's own event log (DESIGN.md, "Event log") is read by
// agentlog (format "tally") for `tally signals`. What is left here is
// the wording of a bad role, which ReadTranscripts (propose_transcript.go)
// still uses.

// roleProblem says that r is not one of fixture.Roles, the roles of a
// chat message (an empty role is a message's problem: it needs one).
func roleProblem(r string) string {
	rs := fixture.Roles
	return fmt.Sprintf("%q is not a role (want %s or %s)", propPreview(r), strings.Join(rs[:len(rs)-1], ", "), rs[len(rs)-1])
}
