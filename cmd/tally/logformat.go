package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/agentlog"
)

// logFormatValue is --log-format: one of agentlog.Formats, or "" (the
// default) to sniff each log's format from its first line. An unknown
// name is refused while the flags are parsed: a usage error, exit 2.
type logFormatValue struct{ f *agentlog.Format }

// String is the format named, "" when none was.
func (v logFormatValue) String() string {
	if v.f == nil {
		return ""
	}
	return string(*v.f)
}

// Set takes one of agentlog.Formats.
func (v logFormatValue) Set(s string) error {
	if !slices.Contains(agentlog.Formats, agentlog.Format(s)) {
		return fmt.Errorf("want one of %v", agentlog.Formats)
	}
	*v.f = agentlog.Format(s)
	return nil
}

// Type names the value in the help.
func (v logFormatValue) Type() string { return "format" }

// registerLogFormat adds --log-format to cmd, setting *f.
func registerLogFormat(cmd *cobra.Command, f *agentlog.Format) {
	cmd.Flags().Var(logFormatValue{f}, "log-format",
		fmt.Sprintf("the logs' format, one of %v (default: sniffed from each file's first line)", agentlog.Formats))
}
