package main

import "fmt"

// This file holds the templates of constraints: the rules a user sets.

// constraintTemplates are the templates of class constraint.
var constraintTemplates = []func(p picker) itemText{
	func(p picker) itemText {
		dir := p.pick(forbidden)
		return itemText{Topic: "forbidden:" + dir,
			Literal: "never modify anything under " + dir,
			Probe:   fmt.Sprintf("Is the agent forbidden from modifying files under %s?", dir), Expect: "yes",
			Para: [2]string{
				fmt.Sprintf("Files in %s are off-limits: the user allows no edits there.", dir),
				fmt.Sprintf("Everything in %s stays read-only for this task, at the user's insistence.", dir)},
			Inverted:       fmt.Sprintf("The user has since cleared edits under %s when they are needed.", dir),
			InvertedAnswer: fmt.Sprintf("no — the context says edits under %s are allowed", dir),
			Subject:        "any rule about " + dir,
			Restate:        []string{"don't touch " + lastElem(dir), dir + " is off-limits", "leave " + lastElem(dir) + " alone", "no edits in " + dir}}
	},
	func(p picker) itemText {
		m := p.th.Lang.Manifest
		return itemText{Topic: "deps",
			Literal: "don't add new dependencies to " + m,
			Probe:   fmt.Sprintf("May the agent add a new dependency to %s?", m), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("No new third-party packages may go into %s.", m),
				fmt.Sprintf("The user wants %s left as it is: no additional packages.", m)},
			Inverted:       fmt.Sprintf("Adding packages to %s is fine when they save work.", m),
			InvertedAnswer: "yes — the context says new packages are fine",
			Subject:        "dependencies in " + m,
			Restate:        []string{"no new packages in " + m, "we are not adding deps", "nothing new in " + m}}
	},
	func(p picker) itemText {
		repo := p.pick([]string{"the repository layer", p.th.Dir + "/store", "the OrderRepository", "the data access package", "the query builder in " + p.th.Dir + "/db"})
		return itemText{Topic: "rawsql",
			Literal: "all queries go through " + repo + ", no raw SQL in handlers",
			Probe:   "May HTTP handlers run raw SQL directly?", Expect: "no — queries must go through " + repo,
			Para: [2]string{
				fmt.Sprintf("Handlers must not issue SQL themselves; every query is routed via %s.", repo),
				fmt.Sprintf("Database access belongs in %s; the handlers stay free of SQL.", repo)},
			Inverted:       "Handlers may run SQL directly where it is simpler.",
			InvertedAnswer: "yes — the context says handlers may run SQL directly",
			Subject:        "where SQL may be written",
			Restate:        []string{"SQL only in " + repo, "handlers don't talk to the database", "no SQL strings in the handlers"}}
	},
	func(p picker) itemText {
		pkg := p.pick([]string{"pkg/client", "sdk", "api", "pkg/money", p.th.Dir, "pkg/events", "lib/auth"})
		return itemText{Topic: "compat:" + pkg,
			Literal: "keep the public API of " + pkg + " backwards compatible",
			Probe:   fmt.Sprintf("Can the agent make breaking changes to the public API of %s?", pkg), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("No breaking changes to what %s exports.", pkg),
				fmt.Sprintf("Callers of %s must keep working unchanged, so its exported surface cannot break.", pkg)},
			Inverted:       fmt.Sprintf("Breaking changes to %s are acceptable in this release.", pkg),
			InvertedAnswer: fmt.Sprintf("yes — the context says %s may break compatibility", pkg),
			Subject:        "compatibility of " + pkg,
			Restate:        []string{"no breaking changes in " + pkg, pkg + " stays compatible", "don't break " + pkg + " callers"}}
	},
	func(p picker) itemText {
		env := p.pick(envs)
		return itemText{Topic: "deploy:" + env, Hedge: true,
			Literal: "don't deploy to " + env + " without asking me first",
			Probe:   fmt.Sprintf("May the agent deploy to %s on its own?", env), Expect: "no — it must ask first",
			Para: [2]string{
				fmt.Sprintf("Any %s deploy needs the user's go-ahead first.", env),
				fmt.Sprintf("Deploying to %s is gated on the user's explicit approval.", env)},
			Inverted:       fmt.Sprintf("The user has approved deploying to %s directly.", env),
			InvertedAnswer: fmt.Sprintf("yes — the context says the %s deploy is approved", env),
			Subject:        "deploying to " + env,
			Restate:        []string{"ask me before any " + env + " deploy", "no " + env + " deploys unless I say so", "check with me before deploying to " + env}}
	},
	func(p picker) itemText {
		lib := p.pick(p.th.Lang.Logger)
		return itemText{Topic: "logging",
			Literal: "use " + lib + " for logging, never " + p.th.Lang.Print,
			Probe:   "Which logging library must new code use?", Expect: lib,
			Para: [2]string{
				fmt.Sprintf("Logging goes through %s; plain prints are not allowed.", lib),
				fmt.Sprintf("New log lines are written with %s rather than printed.", lib)},
			Inverted:       "Plain prints are acceptable for logging in new code.",
			InvertedAnswer: "any — the context says plain prints are fine",
			Subject:        "the logging library",
			Restate:        []string{"log with " + lib, "no " + p.th.Lang.Print + " calls", "logging is " + lib + " only"}}
	},
	func(p picker) itemText {
		dep := p.pick(deps)
		return itemText{Topic: "network",
			Literal: "tests must not hit the network; stub " + dep,
			Probe:   fmt.Sprintf("May tests call %s over the network?", dep), Expect: "no — it must be stubbed",
			Para: [2]string{
				fmt.Sprintf("Tests run offline; %s is replaced by a stub.", dep),
				fmt.Sprintf("No test may reach %s for real — it gets faked.", dep)},
			Inverted:       fmt.Sprintf("Tests may call %s for real when a stub is awkward.", dep),
			InvertedAnswer: fmt.Sprintf("yes — the context says tests may call %s", dep),
			Subject:        "network access in tests",
			Restate:        []string{"stub " + dep + " in tests", "no network in tests", "tests stay offline"}}
	},
	func(p picker) itemText {
		tbl := p.pick(tables)
		return itemText{Topic: "coltypes:" + tbl,
			Literal: "do not change the column types in " + tbl,
			Probe:   fmt.Sprintf("Can the agent alter column types in the %s table?", tbl), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("Column types of %s are frozen.", tbl),
				fmt.Sprintf("The %s table keeps its current column types.", tbl)},
			Inverted:       fmt.Sprintf("Column types in %s may be changed as part of this work.", tbl),
			InvertedAnswer: fmt.Sprintf("yes — the context says %s column types may change", tbl),
			Subject:        "the schema of " + tbl,
			Restate:        []string{"the " + tbl + " column types stay", "no type changes on " + tbl, "leave the " + tbl + " schema alone"}}
	},
	func(p picker) itemText {
		br := p.pick(append([]string{"main"}, branches...))
		return itemText{Topic: "forcepush",
			Literal: "no force-pushes to " + br,
			Probe:   fmt.Sprintf("May the agent force-push to %s?", br), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("History on %s must never be rewritten.", br),
				fmt.Sprintf("Pushes to %s are fast-forward only.", br)},
			Inverted:       fmt.Sprintf("Force-pushing to %s is fine to clean up history.", br),
			InvertedAnswer: fmt.Sprintf("yes — the context allows force-pushing to %s", br),
			Subject:        "pushing to " + br,
			Restate:        []string{"never force-push " + br, "don't rewrite " + br + " history"}}
	},
	func(p picker) itemText {
		pkg := p.pick([]string{p.th.Dir, "pkg/client", "sdk", "api/types", "pkg/config"})
		return itemText{Topic: "rename:" + pkg,
			Literal: "don't rename exported symbols in " + pkg,
			Probe:   fmt.Sprintf("May exported names in %s be renamed?", pkg), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("Exported names in %s keep their current spelling.", pkg),
				fmt.Sprintf("Nothing exported from %s may change its name.", pkg)},
			Inverted:       fmt.Sprintf("Renaming exported identifiers in %s is allowed.", pkg),
			InvertedAnswer: fmt.Sprintf("yes — the context says %s names may change", pkg),
			Subject:        "renames in " + pkg,
			Restate:        []string{"no renames in " + pkg, "keep the " + pkg + " names"}}
	},
	func(p picker) itemText {
		fl := p.pick(flags)
		return itemText{Topic: "flag:" + fl,
			Literal: "leave " + fl + " off by default",
			Probe:   fmt.Sprintf("What should the default of %s be?", fl), Expect: "off",
			Para: [2]string{
				fmt.Sprintf("%s ships disabled unless explicitly turned on.", fl),
				fmt.Sprintf("The %s flag defaults to disabled.", fl)},
			Inverted:       fmt.Sprintf("%s is to be enabled by default.", fl),
			InvertedAnswer: "on",
			Subject:        "the default of " + fl,
			Restate:        []string{fl + " defaults to off", fl + " stays disabled by default"}}
	},
	func(p picker) itemText {
		svc := p.th.Service
		return itemText{Topic: "scope",
			Literal: "only touch the " + svc + " service in this PR",
			Probe:   "Which services may this PR change?", Expect: "only " + svc,
			Para: [2]string{
				fmt.Sprintf("The PR is scoped to %s; other services stay untouched.", svc),
				fmt.Sprintf("Changes are limited to the %s service.", svc)},
			Inverted:       fmt.Sprintf("The PR may also change services other than %s.", svc),
			InvertedAnswer: fmt.Sprintf("%s and others — the context lifts the scope limit", svc),
			Subject:        "the scope of the PR",
			Restate:        []string{"this PR is " + svc + " only", "nothing outside " + svc}}
	},
	func(p picker) itemText {
		n := p.pick([]string{"2", "3", "5", "8", "10"})
		return itemText{Topic: "timeout",
			Literal: "keep every outbound call under a " + n + "s timeout",
			Probe:   "What is the timeout limit for outbound calls?", Expect: n + " seconds",
			Para: [2]string{
				fmt.Sprintf("Outbound calls time out after at most %s seconds.", n),
				fmt.Sprintf("Every external request is capped at %s seconds.", n)},
			Inverted:       "Outbound calls may run without a timeout.",
			InvertedAnswer: "none — the context says no timeout is needed",
			Subject:        "timeouts",
			Restate:        []string{n + " second timeouts on outbound calls", "cap outbound calls at " + n + "s"}}
	},
	func(p picker) itemText {
		br := p.pick(branches)
		return itemText{Topic: "prbranch",
			Literal: "target " + br + " with every PR, never main",
			Probe:   "Which branch must pull requests target?", Expect: br,
			Para: [2]string{
				fmt.Sprintf("Pull requests go to %s; main is not a target.", br),
				fmt.Sprintf("All PRs are opened against %s rather than main.", br)},
			Inverted:       "Pull requests should target main.",
			InvertedAnswer: "main",
			Subject:        "the PR target branch",
			Restate:        []string{"PR goes to " + br, "PRs target " + br + ", not main", br + " is the PR base"}}
	},
	func(p picker) itemText {
		return itemText{Topic: "commits",
			Literal: "commit messages follow Conventional Commits",
			Probe:   "What format must commit messages follow?", Expect: "Conventional Commits",
			Para: [2]string{
				"Commit subjects use the feat:/fix:/chore: convention.",
				"Commits are written in the conventional feat:/fix: style."},
			Inverted:       "Commit messages can be free-form.",
			InvertedAnswer: "any — the context says free-form messages are fine",
			Subject:        "the commit message format",
			Restate:        []string{"conventional commit messages", "feat:/fix: prefixes on commits"}}
	},
}
