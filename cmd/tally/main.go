// Command tally judges a change to a conversation-compaction summariser
// per item rather than per conversation: binomial and paired statistics,
// fixture selection, the per-item check and the quarterly report.
//
// Every subcommand accepts --format text|json. Exit codes: 0 ok; 1 bad
// input or an I/O failure; 2 a usage error; 3 a gate failed; 4 incomplete
// (check wrote its verdicts but some are error); 130 interrupted by
// SIGINT (Ctrl-C), 143 by SIGTERM.
//
// On SIGINT or SIGTERM the running command's context (cmd.Context()) is
// cancelled and no output file is replaced from then on
// (internal/atomicfile.Interrupt); the command gets interruptGrace to
// stop, then every temporary file of a write in progress is removed and
// tally exits with the one line "tally: interrupted". A file is either
// replaced whole or left as it was, never half-written.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/report"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/stats"
)

// interruptGrace is how long a command has, after its context is
// cancelled by a signal, to stop and clean up on its own (kill a judge
// command, remove its temporary file) before tally exits anyway.
const interruptGrace = 2 * time.Second

func main() {
	term, stopTerm := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	ctx, stopInt := signal.NotifyContext(term, os.Interrupt)
	err := interruptible(ctx, term, interruptGrace, func(ctx context.Context) error {
		return runContext(ctx, os.Stdout, os.Stderr, os.Args[1:])
	})
	// Signals from here on have their default effect: tally is exiting.
	stopInt()
	stopTerm()
	for _, line := range errorLines(err) {
		fmt.Fprintln(os.Stderr, line)
	}
	os.Exit(exitCode(err))
}

// interruptible runs run with ctx and returns its error, or, when ctx
// (SIGINT, or SIGTERM through term) is cancelled first, the interrupted
// error of the signal once run has returned or grace has passed. No
// output is replaced from the signal on (atomicfile.Interrupt): a
// command that finished its work in the grace wrote every file and still
// exited 130 (a new user's trial of fixtures draft), where the exit says
// its work was cancelled.
func interruptible(ctx, term context.Context, grace time.Duration, run func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	err := interruptedError{code: exitSIGINT}
	if term.Err() != nil {
		err = interruptedError{code: exitSIGTERM}
	}
	atomicfile.Interrupt()
	select {
	case <-done:
	case <-time.After(grace):
	}
	atomicfile.Interrupt()
	return err
}

// Exit codes of the CLI contract.
const (
	exitOK       = 0
	exitInput    = 1
	exitUsage    = 2
	exitGateFail = 3
	// exitIncomplete: check wrote its verdicts, but more of them are
	// error than --max-errors allows.
	exitIncomplete = 4
	// exitSIGINT and exitSIGTERM: interrupted, 128 + the signal's
	// number as a shell reports a process killed by it.
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// interruptedError is a run stopped by a signal: exit code 130 or 143,
// and the one line "tally: interrupted".
type interruptedError struct{ code int }

func (e interruptedError) Error() string { return "interrupted" }

// runError marks an error returned by a command's own work (bad input,
// I/O): exit 1. Errors without the mark come from cobra's parsing of the
// command line: exit 2.
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// usageError marks a mistake in how a command was called that cobra's
// own parsing cannot see — an unknown choice for a flag such as --method
// or --judge, a flag the others make required, a missing subcommand —
// so it exits 2 like cobra's own usage errors.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef formats a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// gateError is returned when a gate failed: exit 3, with the reason
// already printed as part of the command's output.
type gateError struct{ msg string }

func (e gateError) Error() string { return e.msg }

// incompleteError is returned when check wrote its verdicts but too many
// are error: exit 4, with the counts already printed.
type incompleteError struct{ msg string }

func (e incompleteError) Error() string { return e.msg }

func exitCode(err error) int {
	var g gateError
	var r runError
	var i interruptedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &i):
		return i.code
	case errors.As(err, &g):
		return exitGateFail
	case errors.As(err, new(incompleteError)):
		return exitIncomplete
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, &r):
		return exitInput
	default:
		return exitUsage
	}
}

// errorLines are the lines printed on stderr for err: one per problem.
// An error that joins several (fixture.Problems, errors.Join) gives one
// line for each.
func errorLines(err error) []string {
	var g gateError
	if err == nil || errors.As(err, &g) {
		return nil // a gate's verdict is already on stdout
	}
	if errors.As(err, new(interruptedError)) {
		return []string{"tally: interrupted"}
	}
	usage := exitCode(err) == exitUsage
	var lines []string
	for _, e := range leafErrors(err) {
		msg := strings.ReplaceAll(e.Error(), "\n", " ")
		if usage {
			msg += " (see tally --help)"
		}
		if errors.As(e, new(*agentlog.MalformedError)) {
			// Every command that reads agent logs can go on past it.
			msg += " (--skip-bad skips malformed lines, each said on stderr)"
		}
		lines = append(lines, "tally: "+msg)
	}
	return lines
}

// leafErrors flattens an error tree: a joined error gives its parts (each
// flattened in turn); runError and any other single-wrapping error whose
// wrapped error joins several is flattened through. An error that wraps
// several but says one thing (its message is not its parts' messages one
// a line: an error marked with a kind, fmt.Errorf with two %w) is one.
func leafErrors(err error) []error {
	if r, ok := err.(runError); ok {
		return leafErrors(r.err)
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok && joined(err, j.Unwrap()) {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	if u := errors.Unwrap(err); u != nil {
		if parts := leafErrors(u); len(parts) > 1 {
			return parts
		}
	}
	return []error{err}
}

// joined reports whether err's message is its parts' messages, one a
// line, as errors.Join writes them.
func joined(err error, parts []error) bool {
	msgs := make([]string, 0, len(parts))
	for _, p := range parts {
		if p != nil {
			msgs = append(msgs, p.Error())
		}
	}
	return err.Error() == strings.Join(msgs, "\n")
}

// options are the flags every command shares.
type options struct {
	format string
}

// run executes the CLI with args (without the program name), writing
// results to stdout. It never exits; main maps the error to an exit code.
func run(stdout, stderr io.Writer, args []string) error {
	return runContext(context.Background(), stdout, stderr, args)
}

// runContext is run with the context commands get as cmd.Context():
// main's is cancelled by SIGINT and SIGTERM.
func runContext(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	opts := &options{}
	root := &cobra.Command{
		Use:   "tally",
		Short: "Judge a compaction change per item, with the statistics said out loud",
		Long: `tally judges a change to a conversation-compaction summariser per item rather
than per conversation: binomial intervals and paired tests said out loud,
fixtures chosen for being hard, a per-item check that keeps absent and
contradicted apart, and a report with task success on the last line.

Exit codes: 0 ok; 1 bad input or an I/O failure; 2 a usage error; 3 a gate
failed; 4 incomplete (check wrote its verdicts, some of them error);
130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM — the command stops, its
temporary files are removed and no output file is half-written.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			switch opts.format {
			case "text", "json":
				return nil
			}
			return fmt.Errorf("--format must be text or json, got %q", opts.format)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return decimalComma(err) })
	root.PersistentFlags().StringVar(&opts.format, "format", "text", "output format: text or json")
	root.CompletionOptions.DisableDefaultCmd = true

	root.AddCommand(
		newIntervalCmd(opts),
		newCompareCmd(opts),
		newMcNemarCmd(opts),
		newPowerCmd(opts),
		newPlanCmd(opts),
		newFixturesCmd(opts),
		newCheckCmd(opts),
		newPromptSizesCmd(opts),
		newSelectCmd(opts),
		newSignalsCmd(opts),
		newProposeCmd(opts),
		newReviewCmd(opts),
		newReplayCmd(opts),
		newCalibrateCmd(opts),
		newNoiseCmd(opts),
		newReportCmd(opts),
		newGateCmd(opts),
		newVersionCmd(opts),
	)
	return root
}

// work wraps a command's body so that its errors exit 1 (bad input, I/O)
// rather than 2 (usage).
func work(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := f(cmd, args); err != nil {
			var g gateError
			var u usageError
			if errors.As(err, &g) || errors.As(err, &u) || errors.As(err, new(incompleteError)) {
				return err
			}
			return runError{err}
		}
		return nil
	}
}

// flagWork is work for a command whose every number is a flag's value
// (interval, compare, power, plan): a value the statistics refuse —
// stats.ErrInput: a k above n, a confidence of 1, a power of 1, "1.5/3" —
// is a usage error, exit 2, as a value cobra cannot parse is; the same
// mistake exits the same way in every command.
func flagWork(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return work(func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var u usageError
		if err != nil && errors.Is(err, stats.ErrInput) && !errors.As(err, &u) {
			return usageError{err}
		}
		return err
	})
}

// needSubcommand is the RunE of a command that only groups subcommands:
// called bare, it is a usage error naming them.
func needSubcommand(cmd *cobra.Command, _ []string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return usagef("%s needs a subcommand: %s", cmd.CommandPath(), strings.Join(names, ", "))
}

// numberArg is a flag's value as pflag quotes it in an error:
// `invalid argument "0,95" for "--confidence"`.
var numberArg = regexp.MustCompile(`^invalid argument "([^"]*)" for "(--[\w-]+)`)

// decimalComma words a flag error on a number typed with a decimal comma
// or thousands separators (report.NumberSpelling) as that, not as
// strconv's "invalid syntax"; other errors pass as they are.
func decimalComma(err error) error {
	m := numberArg.FindStringSubmatch(err.Error())
	if m == nil || !strings.Contains(err.Error(), "strconv.Parse") {
		return err
	}
	return numberError(m[2], m[1], err)
}

// numberError is the error of flag's value v, a number spelled in
// another locale's way, or err when it is not one.
func numberError(flag, v string, err error) error {
	fixed, sep, ok := report.NumberSpelling(v)
	switch {
	case !ok:
		return err
	case sep:
		return usagef("%s: %q is not a number: write it without a thousands separator (%s)", flag, v, fixed)
	}
	return usagef("%s: %q is not a number: write decimals with a point (%s)", flag, v, fixed)
}
