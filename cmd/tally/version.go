package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is tally's release; -ldflags "-X main.version=…" overrides it.
var version = "0.1.0-dev"

// versionInfo is tally's version with the VCS revision when the binary
// was built from a checkout.
func versionInfo() (v, revision string, modified bool) {
	v = version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	return v, revision, modified
}

func newVersionCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tally's version",
		Args:  cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			v, rev, mod := versionInfo()
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"version": v, "revision": rev, "modified": mod})
			}
			s := "tally " + v
			if rev != "" {
				s += " (" + rev
				if mod {
					s += ", modified"
				}
				s += ")"
			}
			fmt.Fprintln(cmd.OutOrStdout(), s)
			return nil
		}),
	}
}
