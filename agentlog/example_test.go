package agentlog_test

import (
	"fmt"

	"github.com/tally-eval/tally/agentlog"
)

func ExampleOpen() {
	s, err := agentlog.Open("testdata/session.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d turns, %d steps, %d compaction\n", len(s.Turns), len(s.Steps), len(s.Compactions))
	for _, t := range s.Turns {
		m := s.Messages[t.Message]
		fmt.Printf("turn at line %d (%s): %d steps\n", m.Line, m.Kind, t.Steps)
	}
	for _, st := range s.Steps {
		for _, c := range st.Calls {
			fmt.Printf("%s %s error=%v: %.20q\n", c.Name, c.Input, c.IsError, c.Result)
		}
	}
	c := s.Compactions[0]
	fmt.Printf("compaction (%s, %d tokens before) in turn %d after %d steps: %.40q\n", c.Trigger, c.PreTokens, c.Turn, c.Step, c.Summary)
	fmt.Println("skipped:", s.Records.Skipped)
	// Output:
	// 4 turns, 5 steps, 1 compaction
	// turn at line 2 (typed): 3 steps
	// turn at line 15 (slash command): 0 steps
	// turn at line 20 (typed): 1 steps
	// turn at line 27 (typed): 1 steps
	// Read {"file_path":"main.go"} error=false: "package main\n\nfunc m"
	// Bash {"command":"go test ./...","description":"Run the tests"} error=true: "exit status 1\nFAIL\tg"
	// Bash {"command":"go vet ./..."} error=false: "ok"
	// Task {"prompt":"write tests for --verbose"} error=false: "done"
	// compaction (manual, 12345 tokens before) in turn 1 after 3 steps: "This session is being continued from a p"
	// skipped: map[file-history-snapshot:1 progress:1 sidechain/assistant:1 summary:1 system/turn_duration:1 x-future:1]
}
