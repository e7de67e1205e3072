package judge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tally-eval/tally/internal/input"
)

// maxCommandOutput bounds the reply a command may write; stderrTail is how
// much of its standard error is kept for messages.
const (
	maxCommandOutput = 8 << 20
	stderrTail       = 4 << 10
)

// CommandConfig configures a Command backend.
type CommandConfig struct {
	// Argv is the program and its arguments, run directly (no shell).
	Argv []string
	// Label names the model in Name ("command/" + Label); default: the
	// whole Argv joined by spaces. Name is part of every cache key, so
	// give a stable label when Argv has parts that change between runs.
	// The key also holds the SHA-256 of the program and of every file an
	// argument names (see Command.Identity), whatever the label.
	Label string
	// Timeout bounds each run; the program is killed after it
	// (0: DefaultTimeout).
	Timeout time.Duration
	// MaxInFlight bounds the programs running at once (0: unlimited), and
	// PerSecond the programs started per second (0: unlimited).
	MaxInFlight int
	PerSecond   float64
}

// Command is a Backend that runs a program for each prompt: the prompt is
// written to its standard input, byte for byte, and its standard output is
// the reply. The prompt is never an argument and no shell is involved. A
// non-zero exit is an error quoting the last line of standard error.
// Commands are not retried. On unix the program runs in a process group
// of its own, and a timeout or a cancelled context (tally interrupted)
// kills the whole group with SIGKILL, so the processes the program
// started go with it; so does the program's exit, so a background
// process it left behind does not outlive it. A program that exits 0
// while such a process holds its output open is waited for a second at
// most, and what it wrote is its reply. Elsewhere only the program is
// killed.
type Command struct {
	name     string
	identity string
	argv     []string
	timeout  time.Duration
	limiter  *Limiter
}

// NewCommand validates cfg and returns the backend. The program is looked
// up in PATH now, so a missing program is reported before any question.
func NewCommand(cfg CommandConfig) (*Command, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("command: no program given")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("command: timeout must not be negative, got %v", cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	path, err := exec.LookPath(cfg.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	lim, err := NewLimiter(cfg.MaxInFlight, cfg.PerSecond)
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	label := cfg.Label
	if label == "" {
		label = strings.Join(cfg.Argv, " ")
	}
	name := "command/" + label
	return &Command{name: name, identity: commandIdentity(name, path, cfg.Argv[1:]),
		argv: append([]string(nil), cfg.Argv...), timeout: cfg.Timeout, limiter: lim}, nil
}

// Name is "command/" and the label.
func (c *Command) Name() string { return c.name }

// Identity is what stands for the command in cache keys (see
// Identifier): its Name, the SHA-256 of the program file (found in PATH
// when NewCommand ran), and the SHA-256 of every argument that names a
// regular file — so editing the program, or a script given to an
// interpreter as `sh judge.sh`, makes every question a cache miss. An
// argument's text counts only through Name (the label, by default the
// whole command line).
func (c *Command) Identity() string { return c.identity }

// maxHashedArg is the largest file an argument may name and have its
// bytes hashed for Identity; a larger one (model weights, say) counts by
// its size and modification time.
const maxHashedArg = 64 << 20

// commandIdentity builds a Command's Identity from its name, the path
// exec.LookPath found for the program and its arguments: a file an
// argument names counts by its contents (so a moved checkout keeps its
// cache), any other argument as it is written.
func commandIdentity(name, program string, args []string) string {
	var b strings.Builder
	b.WriteString(name)
	fmt.Fprintf(&b, "\nprogram %s", fileIdentity(program, 0))
	for i, a := range args {
		if info, err := os.Stat(a); err == nil && info.Mode().IsRegular() {
			fmt.Fprintf(&b, "\narg %d %s", i+1, fileIdentity(a, maxHashedArg))
		} else {
			// Any other argument is an option ("--mode strict", a model's
			// name): a changed one is another judge, whatever --model says.
			fmt.Fprintf(&b, "\narg %d %q", i+1, a)
		}
	}
	return b.String()
}

// fileIdentity is "sha256:" and the hex SHA-256 of the regular file at
// path; for a file larger than limit (0: input's default file limit), or
// one that cannot be read (a program with execute but not read
// permission), it is its size and modification time instead.
func fileIdentity(path string, limit int64) string {
	byStat := func() string {
		info, err := os.Stat(path)
		if err != nil {
			return "unknown"
		}
		return fmt.Sprintf("size:%d mtime:%d", info.Size(), info.ModTime().UnixNano())
	}
	f, err := input.Open(path, input.Limits{MaxFile: limit})
	if err != nil {
		return byStat()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return byStat()
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Complete runs the program with prompt on its standard input and returns
// its standard output.
func (c *Command) Complete(ctx context.Context, prompt string) (string, error) {
	release, err := c.limiter.Acquire(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.name, err)
	}
	defer release()
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, c.argv[0], c.argv[1:]...)
	killGroup(cmd) // on unix a timeout or an interrupt kills the program's whole process group
	cmd.Stdin = strings.NewReader(prompt)
	stdout := &cappedBuffer{limit: maxCommandOutput}
	stderr := &tailBuffer{limit: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second // do not wait for grandchildren holding the pipes
	err = cmd.Run()
	endGroup(cmd) // the program is done: whatever it left running in its group goes too
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The program exited 0 but something it started held the output
		// pipes open: what it wrote before exiting is its reply, whole.
		err = nil
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s: %w", c.name, ctx.Err())
	case rctx.Err() != nil:
		return "", unavailable(fmt.Errorf("%s: no reply within %v: killed", c.name, c.timeout))
	case err != nil:
		if line := lastLine(stderr.String()); line != "" {
			err = fmt.Errorf("%s: %w: %s", c.name, err, quoteShort(line))
		} else {
			err = fmt.Errorf("%s: %w (nothing on stderr)", c.name, err)
		}
		if errors.As(err, &exit) {
			return "", &marked{err: err, mark: errExited}
		}
		return "", unavailable(err) // it could not be started (or its pipes failed)
	case stdout.overflow:
		return "", fmt.Errorf("%s: the reply is longer than %d bytes", c.name, maxCommandOutput)
	}
	return stdout.String(), nil
}

// lastLine is the last non-blank line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// cappedBuffer keeps the first limit bytes written to it and notes
// whether more came.
type cappedBuffer struct {
	bytes.Buffer
	limit    int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.overflow = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last limit bytes written to it (roughly: it trims
// when it holds twice that).
type tailBuffer struct {
	buf   []byte
	limit int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.limit {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.limit:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
