package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/tally-eval/tally/agentlog"
)

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf(" …[+%d chars]", len(s)-n)
}

func main() {
	max := 100000
	for _, id := range os.Args[1:] {
		s, err := agentlog.Open("/work/shared/real/claude-code/" + id + ".jsonl.gz")
		if err != nil {
			panic(err)
		}
		out, _ := os.Create(os.Getenv("OUT") + "/" + id[:8] + ".full.txt")
		w := func(f string, a ...any) { fmt.Fprintf(out, f, a...) }
		w("SESSION %s cwd=%s start=%s turns=%d\n", s.ID, s.Cwd, s.Start, len(s.Turns))
		compAt := map[int][]agentlog.Compaction{}
		for _, c := range s.Compactions {
			compAt[c.Step] = append(compAt[c.Step], c)
		}
		// steps before first turn
		for i, st := range s.Steps {
			if cs, ok := compAt[i]; ok {
				for _, c := range cs {
					w("\n=== COMPACTION (turn %d, trigger %s) summary %d chars ===\n", c.Turn+1, c.Trigger, len(c.Summary))
				}
			}
			// print typed messages before this step
			_ = st
		}
		// print by messages interleaved with steps: iterate messages and steps by Step index
		mi := 0
		for si := 0; si <= len(s.Steps); si++ {
			for mi < len(s.Messages) && s.Messages[mi].Step <= si {
				m := s.Messages[mi]
				if m.Kind.Typed() {
					w("\n\n######## TURN %d (%s) [%s]\n%s\n", m.Turn+1, m.Kind, m.UUID[:min(8, len(m.UUID))], trunc(m.Text, max))
				} else if m.Kind == agentlog.Queued {
					w("\n  ######## TYPED WHILE THE AGENT WORKED, in TURN %d (queued)\n%s\n", m.Turn+1, trunc(m.Text, max))
				}
				mi++
			}
			if cs, ok := compAt[si]; ok {
				for _, c := range cs {
					w("\n=== COMPACTION here (turn %d, %s) ===\n", c.Turn+1, c.Trigger)
				}
			}
			if si == len(s.Steps) {
				break
			}
			st := s.Steps[si]
			if t := strings.TrimSpace(st.Text); t != "" {
				w("  A[%d]: %s\n", st.Turn+1, trunc(t, 100000))
			}
			for _, c := range st.Calls {
				var in map[string]any
				json.Unmarshal(c.Input, &in)
				switch c.Name {
				case "Edit", "Write", "MultiEdit", "NotebookEdit":
					st := "ok"
					if c.IsError {
						st = "ERR"
					}
					w("    [%s %v %s]\n", c.Name, in["file_path"], st)
				case "Bash":
					cmd, _ := in["command"].(string)
					if strings.Contains(cmd, "git ") || strings.Contains(cmd, "gh ") || strings.Contains(cmd, "rm ") || strings.Contains(cmd, "mv ") {
						w("    [Bash %s]\n", trunc(cmd, 300))
					}
				case "ExitPlanMode":
					w("    [ExitPlanMode result=%s]\n", trunc(c.Result, 300))
				case "AskUserQuestion":
					w("    [AskUserQuestion %s -> %s]\n", trunc(string(c.Input), 600), trunc(c.Result, 400))
				}
				if c.IsError && strings.Contains(c.Result, "the user said") {
					w("    [REFUSED %s: %s]\n", c.Name, trunc(c.Result, 800))
				}
			}
		}
		out.Close()
	}
}
