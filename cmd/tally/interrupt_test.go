//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tally-eval/tally/internal/atomicfile"
)

// TestInterrupt runs the built tally on a check whose judge never
// answers, signals it once its output's temporary file exists, and
// checks the contract: exit 130 for SIGINT and 143 for SIGTERM, the one
// line "tally: interrupted" last on stderr, and nothing left in the
// output folder — no verdicts file, no temporary file.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the command judge")
	}
	bin := buildTally(t)
	quarterly := filepath.Join("..", "..", "examples", "quarterly")
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{
		{"SIGTERM", syscall.SIGTERM, 143},
		{"SIGINT", syscall.SIGINT, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "v.jsonl")
			cmd := exec.Command(bin, "check", "--fixtures", filepath.Join(quarterly, "fixtures"),
				"--contexts", filepath.Join(quarterly, "contexts", "incumbent"), "--system", "incumbent", "-o", out,
				"--judge", "command", "--command", "sh", "--command-arg", "-c", "--command-arg", "cat >/dev/null; sleep 60", "--cache", "")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Wait for the write to be under way: its temporary file.
			deadline := time.After(30 * time.Second)
			for len(folderNames(t, outDir)) == 0 {
				select {
				case err := <-exited:
					t.Fatalf("check ended before the signal: %v\n%s", err, stderr.String())
				case <-deadline:
					_ = cmd.Process.Kill()
					t.Fatal("no temporary file after 30 s")
				case <-time.After(5 * time.Millisecond):
				}
			}
			time.Sleep(200 * time.Millisecond) // into the judge calls
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20 s after %s", tc.name)
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d (%v), want %d", code, cmd.ProcessState, tc.code)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; last != "tally: interrupted" {
				t.Errorf("stderr ends %q, want \"tally: interrupted\"; stderr:\n%s", last, stderr.String())
			}
			if names := folderNames(t, outDir); len(names) != 0 {
				t.Errorf("the output folder holds %q after %s, want nothing", names, tc.name)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s exists: an interrupted check wrote its verdicts", out)
			}
		})
	}
}

// TestInterruptibleCommitsNothing: a command that finishes its work in
// the grace after a signal replaces no file — a new user's trial saw
// fixtures draft write all 71 files and then exit 130. It runs in a
// child process of the test binary, since atomicfile.Interrupt holds for
// the rest of the process.
func TestInterruptibleCommitsNothing(t *testing.T) {
	if dir := os.Getenv("TALLY_TEST_INTERRUPTIBLE"); dir != "" {
		ctx, cancel := context.WithCancel(context.Background())
		term, stop := context.WithCancel(context.Background())
		defer stop()
		var writeErr error
		err := interruptible(ctx, term, 10*time.Second, func(ctx context.Context) error {
			stop()   // SIGTERM arrives while the command works …
			cancel() // … cancelling its context
			time.Sleep(200 * time.Millisecond)
			writeErr = atomicfile.Write(filepath.Join(dir, "out.txt"), func(w io.Writer) error {
				_, err := io.WriteString(w, "written after the signal\n")
				return err
			})
			return writeErr
		})
		if code := exitCode(err); code != exitSIGTERM {
			t.Errorf("exit %d (%v), want %d", code, err, exitSIGTERM)
		}
		if !errors.Is(writeErr, atomicfile.ErrInterrupted) {
			t.Errorf("the write after the signal: %v, want ErrInterrupted", writeErr)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptibleCommitsNothing$", "-test.v")
	cmd.Env = append(os.Environ(), "TALLY_TEST_INTERRUPTIBLE="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestInterruptibleCommitsNothing")) {
		t.Fatalf("%v:\n%s", err, out)
	}
	if names := folderNames(t, dir); len(names) != 0 {
		t.Errorf("the folder holds %q after the interrupted command, want nothing", names)
	}
}
