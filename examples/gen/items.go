package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// itemText is everything the generator says about one item: the fixture's
// literal, probe and expected answer; the message that states it in the
// event log; how a summary carries it in paraphrase and how one inverts
// it; and, for instructions, other words a user restates it in.
type itemText struct {
	Class   fixture.Class
	Topic   string // two items of one conversation never share a topic
	Literal string
	Probe   string
	Expect  string
	Say     string // the message stating it; contains Literal
	Role    string // who says it: "user" or "assistant"
	// Para is the item in a summary's own words: [0] the incumbent's
	// terse ledger style, [1] the candidate's prose.
	Para [2]string
	// Inverted is what a summary that contradicts the item says, and
	// InvertedAnswer the judge's answer to the probe against it.
	Inverted, InvertedAnswer string
	// Subject names what the item is about, for an absent answer.
	Subject string
	// Restate holds the instruction in other words (constraints only),
	// without a restatement marker.
	Restate []string
	// Hedge marks an item that is a hedge or a condition a summariser
	// can invert into an approval.
	Hedge bool
}

// picker draws an item's parameters.
type picker struct {
	r  *rand.Rand
	th *theme
}

func (p picker) pick(xs []string) string { return pick(p.r, xs) }

func (p picker) file() string { return pick(p.r, p.th.Files) }

// lastElem is the last element of a slash-separated path.
func lastElem(path string) string {
	path = strings.TrimSuffix(path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// The templates, by class. Each draws its parameters and returns the
// item's text; a template without parameters can serve only once per
// quarter's fixture set, which the fixture designer enforces by literal.
var templates = map[fixture.Class][]func(p picker) itemText{
	fixture.Constraint: {
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
	},
	fixture.Commitment: {
		func(p picker) itemText {
			br := p.pick(branches)
			return itemText{Topic: "prbranch",
				Literal: "I'll open the PR against " + br + ", not main",
				Probe:   "Which branch should the PR target?", Expect: br,
				Para: [2]string{
					fmt.Sprintf("PR to target %s (not main).", br),
					fmt.Sprintf("The pull request will go to %s rather than main.", br)},
				Inverted:       "The PR will be opened against main.",
				InvertedAnswer: "main",
				Subject:        "which branch the PR targets"}
		},
		func(p picker) itemText {
			bug, f := p.pick(bugs), p.file()
			return itemText{Topic: "regression:" + f,
				Literal: "I'll add a regression test for " + bug + " before touching " + f,
				Probe:   fmt.Sprintf("What will the agent do before changing %s?", f), Expect: "add a regression test for " + bug,
				Para: [2]string{
					fmt.Sprintf("Plan: regression test for %s first, then edit %s.", bug, f),
					fmt.Sprintf("Before %s changes, a test reproducing %s gets written.", f, bug)},
				Inverted:       fmt.Sprintf("The agent will edit %s straight away and skip the regression test.", f),
				InvertedAnswer: fmt.Sprintf("nothing — it edits %s directly, no test first", f),
				Subject:        "any plan for a regression test"}
		},
		func(p picker) itemText {
			ep, ver := p.pick(endpoints), p.pick([]string{"4.2", "5.0", "3.18", "6.1", "2.9"})
			return itemText{Topic: "keepold:" + ep, Hedge: true,
				Literal: "I'll keep the old " + ep + " endpoint until the mobile app ships " + ver,
				Probe:   fmt.Sprintf("When will the old %s endpoint be removed?", ep), Expect: "not before the mobile app ships " + ver,
				Para: [2]string{
					fmt.Sprintf("Old %s stays up until mobile %s is out.", ep, ver),
					fmt.Sprintf("Removal of the old %s endpoint waits for the %s mobile release.", ep, ver)},
				Inverted:       fmt.Sprintf("The old %s endpoint is to be removed in this PR.", ep),
				InvertedAnswer: "now, in this PR",
				Subject:        "the fate of the old " + ep + " endpoint"}
		},
		func(p picker) itemText {
			return itemText{Topic: "migration-pr",
				Literal: "I'll put the schema migration in a separate PR",
				Probe:   "Will the schema migration ship in this PR?", Expect: "no — in a separate PR",
				Para: [2]string{
					"Schema migration to go out on its own PR.",
					"The migration is being kept out of this change and will follow separately."},
				Inverted:       "The schema migration is bundled into this PR.",
				InvertedAnswer: "yes — it ships in this PR",
				Subject:        "where the migration ships"}
		},
		func(p picker) itemText {
			doc := p.pick(docFiles)
			return itemText{Topic: "doc:" + doc,
				Literal: "I'll update " + doc + " once the benchmarks are in",
				Probe:   fmt.Sprintf("When will %s be updated?", doc), Expect: "after the benchmarks are in",
				Para: [2]string{
					fmt.Sprintf("%s gets updated after benchmarking.", doc),
					fmt.Sprintf("The %s update waits on the benchmark results.", doc)},
				Inverted:       fmt.Sprintf("%s has already been updated; no further change is planned.", doc),
				InvertedAnswer: "it is already done",
				Subject:        "updating " + doc}
		},
		func(p picker) itemText {
			th := p.pick(things)
			return itemText{Topic: "delete:" + th, Hedge: true,
				Literal: "I'll ask before deleting any " + th,
				Probe:   fmt.Sprintf("May the agent delete %s without asking?", th), Expect: "no — it will ask first",
				Para: [2]string{
					fmt.Sprintf("Deleting %s requires the user's confirmation.", th),
					fmt.Sprintf("The agent checks with the user before removing %s.", th)},
				Inverted:       fmt.Sprintf("The agent is cleared to delete stale %s on its own.", th),
				InvertedAnswer: fmt.Sprintf("yes — the context says it may delete %s", th),
				Subject:        "deleting " + th}
		},
		func(p picker) itemText {
			f := p.file()
			base := strings.TrimSuffix(lastElem(f), p.th.Lang.Ext)
			a, b := base+"_read"+p.th.Lang.Ext, base+"_write"+p.th.Lang.Ext
			return itemText{Topic: "split:" + f,
				Literal: "I'll split " + f + " into " + a + " and " + b,
				Probe:   fmt.Sprintf("How will %s be restructured?", f), Expect: "split into " + a + " and " + b,
				Para: [2]string{
					fmt.Sprintf("%s to become two files: %s (reads) and %s (writes).", f, a, b),
					fmt.Sprintf("The plan divides %s into a reading half, %s, and a writing half, %s.", f, a, b)},
				Inverted:       fmt.Sprintf("%s stays as a single file.", f),
				InvertedAnswer: "it is not restructured",
				Subject:        "restructuring " + f}
		},
		func(p picker) itemText {
			ver := fmt.Sprintf("%d.%d.0", between(p.r, 1, 7), between(p.r, 0, 19))
			return itemText{Topic: "version",
				Literal: "I'll bump the version to " + ver + " only in the release commit",
				Probe:   fmt.Sprintf("Where does the version bump to %s go?", ver), Expect: "only in the release commit",
				Para: [2]string{
					fmt.Sprintf("Version %s lands in the release commit, nowhere else.", ver),
					fmt.Sprintf("The %s version change is reserved for the release commit.", ver)},
				Inverted:       fmt.Sprintf("The version is bumped to %s in every commit of the branch.", ver),
				InvertedAnswer: "in every commit",
				Subject:        "the version bump"}
		},
		func(p picker) itemText {
			suite := p.pick(suites)
			return itemText{Topic: "suite",
				Literal: "I'll run the full " + suite + " suite before pushing",
				Probe:   "What will the agent run before pushing?", Expect: "the full " + suite + " suite",
				Para: [2]string{
					fmt.Sprintf("Run all %s tests prior to any push.", suite),
					fmt.Sprintf("Nothing is pushed until the complete %s tests have passed.", suite)},
				Inverted:       fmt.Sprintf("Pushing without the %s tests is fine; CI will run them.", suite),
				InvertedAnswer: "nothing — CI runs them",
				Subject:        "tests to run before pushing"}
		},
		func(p picker) itemText {
			fl := p.pick(flags)
			return itemText{Topic: "flag:" + fl, Hedge: true,
				Literal: "I'll leave " + fl + " behind the flag until QA signs off",
				Probe:   fmt.Sprintf("Will %s be enabled before QA signs off?", fl), Expect: "no",
				Para: [2]string{
					fmt.Sprintf("%s stays flagged off pending QA sign-off.", fl),
					fmt.Sprintf("Until QA approves, %s remains dark behind its flag.", fl)},
				Inverted:       fmt.Sprintf("%s ships enabled; QA sign-off is not needed.", fl),
				InvertedAnswer: "yes — it ships enabled",
				Subject:        "when " + fl + " is enabled"}
		},
		func(p picker) itemText {
			return itemText{Topic: "squash",
				Literal: "I'll squash the fixup commits before requesting review",
				Probe:   "What happens to the fixup commits before review?", Expect: "they get squashed",
				Para: [2]string{
					"Fixups to be folded into their parent commits before review.",
					"The branch will be tidied, fixups squashed, ahead of review."},
				Inverted:       "The fixup commits stay as they are for review.",
				InvertedAnswer: "they stay",
				Subject:        "the fixup commits"}
		},
		func(p picker) itemText {
			doc := p.pick(docFiles)
			return itemText{Topic: "p95:" + doc,
				Literal: "I'll post the p95 numbers in " + doc,
				Probe:   "Where will the p95 latency numbers be reported?", Expect: doc,
				Para: [2]string{
					fmt.Sprintf("p95 results go into %s.", doc),
					fmt.Sprintf("Latency percentiles (p95) are to be written up in %s.", doc)},
				Inverted:       "The p95 numbers will only be posted in the PR description.",
				InvertedAnswer: "the PR description",
				Subject:        "where latency numbers go"}
		},
		func(p picker) itemText {
			lib := p.pick(libs)
			ver := fmt.Sprintf("v%d.%d.%d", between(p.r, 1, 9), between(p.r, 0, 30), between(p.r, 0, 9))
			return itemText{Topic: "pin:" + lib,
				Literal: "I'll keep " + lib + " pinned at " + ver,
				Probe:   fmt.Sprintf("Which %s version will the change use?", lib), Expect: ver + ", pinned",
				Para: [2]string{
					fmt.Sprintf("%s stays locked to %s.", lib, ver),
					fmt.Sprintf("The %s dependency is held at %s.", lib, ver)},
				Inverted:       fmt.Sprintf("%s will be upgraded to its latest release.", lib),
				InvertedAnswer: "the latest release",
				Subject:        "the " + lib + " version"}
		},
	},
	fixture.OpenQuestion: {
		func(p picker) itemText {
			col := p.pick(columns)
			return oq("enum:"+col, "Would an enum be better than a varchar for "+col+"?",
				fmt.Sprintf("Has the user decided whether %s becomes an enum?", col),
				[2]string{fmt.Sprintf("Undecided: enum or varchar for %s.", col), fmt.Sprintf("Whether %s should become an enum is still an open question.", col)},
				fmt.Sprintf("Decision: %s becomes an enum.", col), fmt.Sprintf("yes — %s becomes an enum", col), "the type of "+col)
		},
		func(p picker) itemText {
			pr := p.pick(providers)
			return oq("webhooks:"+pr, "Should we retry failed "+pr+" webhooks or drop them after three attempts?",
				fmt.Sprintf("Has the retry policy for failed %s webhooks been settled?", pr),
				[2]string{fmt.Sprintf("Open: retry vs drop-after-3 for %s webhooks.", pr), fmt.Sprintf("Nobody has yet chosen between retrying failed %s webhooks and dropping them after three tries.", pr)},
				fmt.Sprintf("Decided: failed %s webhooks are dropped after three attempts.", pr), "yes — they are dropped after three attempts", pr+" webhook retries")
		},
		func(p picker) itemText {
			ver := p.pick([]string{"3.0", "4.0", "4.5", "2.8", "5.2"})
			return oq("oldclients", "Do we still need to support clients older than "+ver+"?",
				fmt.Sprintf("Has the user said whether clients older than %s must still be supported?", ver),
				[2]string{fmt.Sprintf("Unresolved: support for pre-%s clients.", ver), fmt.Sprintf("It is not yet known whether clients below %s still need support.", ver)},
				fmt.Sprintf("Support for clients older than %s has been dropped.", ver), fmt.Sprintf("yes — clients older than %s are no longer supported", ver), "old client support")
		},
		func(p picker) itemText {
			lib := p.pick(libs)
			return oq("major:"+lib, "Is it OK to bump "+lib+" to the next major version, or do we pin it?",
				fmt.Sprintf("Has the user decided whether %s moves to its next major version?", lib),
				[2]string{fmt.Sprintf("Pending: major upgrade of %s vs pinning.", lib), fmt.Sprintf("The choice between upgrading %s a major version and pinning it has not been made.", lib)},
				fmt.Sprintf("Approved: %s moves to the next major version.", lib), fmt.Sprintf("yes — %s gets the major upgrade", lib), "the "+lib+" upgrade")
		},
		func(p picker) itemText {
			c := p.pick(caches)
			return oq("ttl:"+c, "Should the "+c+" cache TTL be per-tenant or global?",
				fmt.Sprintf("Has it been decided whether the %s cache TTL is per-tenant or global?", c),
				[2]string{fmt.Sprintf("Open: per-tenant vs global TTL for the %s cache.", c), fmt.Sprintf("How the %s cache expiry should be scoped, per tenant or globally, is still undecided.", c)},
				fmt.Sprintf("Decided: the %s cache uses one global TTL.", c), "yes — a single global TTL", "the "+c+" cache TTL")
		},
		func(p picker) itemText {
			tbl := p.pick(tables)
			a, b := p.pick(services), p.pick(services)
			if a == b {
				b = "platform"
			}
			return oq("owner:"+tbl, "Does "+a+" own the "+tbl+" table, or does "+b+"?",
				fmt.Sprintf("Has it been settled which service owns the %s table?", tbl),
				[2]string{fmt.Sprintf("Ownership of %s (%s or %s) not settled.", tbl, a, b), fmt.Sprintf("Whether %s belongs to %s or to %s remains open.", tbl, a, b)},
				fmt.Sprintf("Settled: %s owns the %s table.", a, tbl), fmt.Sprintf("yes — %s owns it", a), "ownership of "+tbl)
		},
		func(p picker) itemText {
			ep := p.pick(endpoints)
			return oq("paginate:"+ep, "Should "+ep+" paginate with cursors or offsets?",
				fmt.Sprintf("Has the user chosen cursor or offset pagination for %s?", ep),
				[2]string{fmt.Sprintf("Undecided: cursors vs offsets on %s.", ep), fmt.Sprintf("The pagination style for %s — cursor or offset — is still to be chosen.", ep)},
				fmt.Sprintf("Decided: %s paginates with cursors.", ep), "yes — cursors", "pagination of "+ep)
		},
		func(p picker) itemText {
			col := p.pick(columns)
			return oq("backfill:"+col, "Do we backfill "+col+" for old rows or leave them NULL?",
				fmt.Sprintf("Has the user decided whether to backfill %s for existing rows?", col),
				[2]string{fmt.Sprintf("Open: backfill %s or leave old rows NULL.", col), fmt.Sprintf("Whether %s gets backfilled for existing rows or stays NULL is unresolved.", col)},
				fmt.Sprintf("Decided: %s is backfilled for all old rows.", col), "yes — old rows get backfilled", "backfilling "+col)
		},
		func(p picker) itemText {
			pkg := p.pick([]string{p.th.Dir, "pkg/client", "internal/store", "pkg/queue", "lib/http"})
			return oq("errors:"+pkg, "Should errors from "+pkg+" be wrapped or returned as sentinel values?",
				fmt.Sprintf("Has the error style for %s (wrapping vs sentinels) been decided?", pkg),
				[2]string{fmt.Sprintf("Pending: wrapped errors vs sentinels in %s.", pkg), fmt.Sprintf("How %s should report errors, wrapped or as sentinels, is not decided.", pkg)},
				fmt.Sprintf("Decided: %s returns sentinel errors.", pkg), "yes — sentinel errors", "error handling in "+pkg)
		},
		func(p picker) itemText {
			ep, ms := p.pick(endpoints), p.pick([]string{"150", "200", "250", "300", "400", "800"})
			return oq("p99:"+ep, "Is "+ms+" ms an acceptable p99 for "+ep+"?",
				fmt.Sprintf("Has the user agreed that a %s ms p99 is acceptable for %s?", ms, ep),
				[2]string{fmt.Sprintf("Unconfirmed: whether %s ms p99 is OK for %s.", ms, ep), fmt.Sprintf("It is still open whether a p99 of %s ms would be good enough on %s.", ms, ep)},
				fmt.Sprintf("The user accepted a %s ms p99 for %s.", ms, ep), fmt.Sprintf("yes — %s ms is accepted", ms), "the latency target for "+ep)
		},
		func(p picker) itemText {
			fl := p.pick(flags)
			return oq("keepflag:"+fl, "Do we keep the "+fl+" flag after launch?",
				fmt.Sprintf("Has it been decided whether %s stays after launch?", fl),
				[2]string{fmt.Sprintf("Open: keep or remove %s post-launch.", fl), fmt.Sprintf("Whether %s survives the launch is not settled yet.", fl)},
				fmt.Sprintf("Decided: %s is removed after launch.", fl), "yes — it is removed after launch", "the future of "+fl)
		},
		func(p picker) itemText {
			rep := p.pick(reports)
			return oq("softdel:"+rep, "Should the "+rep+" CSV export include soft-deleted rows?",
				fmt.Sprintf("Has the user decided whether the %s export includes soft-deleted rows?", rep),
				[2]string{fmt.Sprintf("Undecided: soft-deleted rows in the %s CSV.", rep), fmt.Sprintf("Nobody has said yet whether deleted rows belong in the %s export.", rep)},
				fmt.Sprintf("Decided: the %s export includes soft-deleted rows.", rep), "yes — they are included", "soft-deleted rows in the "+rep+" export")
		},
		func(p picker) itemText {
			rt := p.pick(runtimes)
			return oq("drop:"+rt, "Can we drop support for "+rt+"?",
				fmt.Sprintf("Has the user decided whether support for %s can be dropped?", rt),
				[2]string{fmt.Sprintf("Open: dropping %s.", rt), fmt.Sprintf("Whether %s can be retired is still an open question.", rt)},
				fmt.Sprintf("Support for %s is being dropped.", rt), "yes — it is dropped", "support for "+rt)
		},
	},
	fixture.Reference: {
		func(p picker) itemText {
			doc, rev := p.pick(docFiles), between(p.r, 3, 40)
			lit := fmt.Sprintf("%s rev %d", doc, rev)
			return itemText{Topic: "doc:" + doc, Literal: lit,
				Probe: "Where is the write-up being kept, and at what revision?", Expect: fmt.Sprintf("%s, rev %d", doc, rev),
				Say:  pick(p.r, []string{"I'm keeping the write-up in " + lit + ".", "Latest draft is " + lit + ".", "Numbers are going into " + lit + "."}),
				Role: pick(p.r, []string{"user", "assistant"}),
				Para: [2]string{
					fmt.Sprintf("Write-up: %s, revision %d.", doc, rev),
					fmt.Sprintf("The write-up lives in %s, now at revision %d.", doc, rev)},
				Inverted:       fmt.Sprintf("The write-up is in %s at revision %d.", doc, rev-2),
				InvertedAnswer: fmt.Sprintf("%s, rev %d", doc, rev-2),
				Subject:        "the write-up"}
		},
		func(p picker) itemText {
			key := fmt.Sprintf("%s-%d", p.pick(ticketKey), between(p.r, 120, 4800))
			lit := "ticket " + key
			return itemText{Topic: "ticket", Literal: lit,
				Probe: "Which ticket tracks this work?", Expect: key,
				Say:  pick(p.r, []string{"This is " + lit + ", for the record.", "Link everything to " + lit + ".", "Context is in " + lit + "."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Tracked under %s.", key),
					fmt.Sprintf("The work is tracked as %s.", key)},
				Inverted:       fmt.Sprintf("The work is tracked under %s.", bumpKey(key)),
				InvertedAnswer: bumpKey(key),
				Subject:        "a tracking ticket"}
		},
		func(p picker) itemText {
			n := between(p.r, 180, 9800)
			lit := fmt.Sprintf("PR #%d", n)
			return itemText{Topic: "priorpr", Literal: lit,
				Probe: "Which pull request holds the earlier attempt?", Expect: fmt.Sprintf("#%d", n),
				Say:  pick(p.r, []string{"The earlier attempt was " + lit + "; it got reverted.", "See " + lit + " for the first try.", lit + " tried this before and was closed."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Earlier attempt: pull request %d (reverted).", n),
					fmt.Sprintf("A previous attempt exists as pull request %d.", n)},
				Inverted:       fmt.Sprintf("The earlier attempt is pull request %d.", n+17),
				InvertedAnswer: fmt.Sprintf("#%d", n+17),
				Subject:        "the earlier pull request"}
		},
		func(p picker) itemText {
			n, ci := between(p.r, 1200, 99000), p.pick(ciNames)
			lit := fmt.Sprintf("build %d on %s", n, ci)
			return itemText{Topic: "build", Literal: lit,
				Probe: "Which CI build showed the flaky failure?", Expect: fmt.Sprintf("build %d (%s)", n, ci),
				Say:  pick(p.r, []string{"It failed in " + lit + ".", "The flake shows up in " + lit + ".", "Look at " + lit + " for the failure."}),
				Role: pick(p.r, []string{"user", "assistant"}),
				Para: [2]string{
					fmt.Sprintf("Flaky failure seen in %s run %d.", ci, n),
					fmt.Sprintf("The flaky failure appeared in %s, run number %d.", ci, n)},
				Inverted:       fmt.Sprintf("The flaky failure appeared in %s run %d.", ci, n-1),
				InvertedAnswer: fmt.Sprintf("build %d (%s)", n-1, ci),
				Subject:        "the failing CI build"}
		},
		func(p picker) itemText {
			sha := fmt.Sprintf("%07x", p.r.Uint32()&0xfffffff)
			lit := "commit " + sha
			return itemText{Topic: "commit", Literal: lit,
				Probe: "Which commit introduced the regression?", Expect: sha,
				Say:  pick(p.r, []string{"Bisect points at " + lit + ".", "The regression came in with " + lit + ".", "git bisect says " + lit + " is the first bad one."}),
				Role: "assistant",
				Para: [2]string{
					fmt.Sprintf("Regression bisected to %s.", sha),
					fmt.Sprintf("Bisecting blamed %s for the regression.", sha)},
				Inverted:       "The regression predates the last release and was not bisected.",
				InvertedAnswer: "none — the context says it was not bisected",
				Subject:        "the bisected commit"}
		},
		func(p picker) itemText {
			f, line := p.file(), between(p.r, 40, 900)
			lit := fmt.Sprintf("%s:%d", f, line)
			return itemText{Topic: "line:" + f, Literal: lit,
				Probe: "Where is the off-by-one?", Expect: fmt.Sprintf("%s, line %d", f, line),
				Say:  pick(p.r, []string{"Found the off-by-one at " + lit + ".", "The off-by-one is at " + lit + "."}),
				Role: "assistant",
				Para: [2]string{
					fmt.Sprintf("Off-by-one located: line %d of %s.", line, f),
					fmt.Sprintf("The off-by-one sits at line %d in %s.", line, f)},
				Inverted:       fmt.Sprintf("The off-by-one is at line %d of %s.", line+12, f),
				InvertedAnswer: fmt.Sprintf("%s, line %d", f, line+12),
				Subject:        "the location of the off-by-one"}
		},
		func(p picker) itemText {
			d, n := p.pick(dashboard), between(p.r, 2, 14)
			lit := fmt.Sprintf("the %s dashboard, panel %d", d, n)
			return itemText{Topic: "dashboard", Literal: lit,
				Probe: "Which dashboard panel shows the latency spike?", Expect: fmt.Sprintf("%s dashboard, panel %d", d, n),
				Say:  pick(p.r, []string{"The spike is visible on " + lit + ".", "Watch " + lit + " while it deploys."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Spike visible on %s (panel %d).", d, n),
					fmt.Sprintf("Panel %d of the %s board shows the spike.", n, d)},
				Inverted:       fmt.Sprintf("The spike is on the %s dashboard, panel %d.", d, n+3),
				InvertedAnswer: fmt.Sprintf("%s dashboard, panel %d", d, n+3),
				Subject:        "where the spike is visible"}
		},
		func(p picker) itemText {
			a, b := between(p.r, 2, 9), between(p.r, 1, 12)
			lit := fmt.Sprintf("runbook section %d.%d", a, b)
			return itemText{Topic: "runbook", Literal: lit,
				Probe: "Which runbook section covers the rollback?", Expect: fmt.Sprintf("section %d.%d", a, b),
				Say:  pick(p.r, []string{"Rollback steps are in " + lit + ".", "If it goes wrong, follow " + lit + "."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Rollback: see §%d.%d of the runbook.", a, b),
					fmt.Sprintf("The rollback procedure is §%d.%d in the runbook.", a, b)},
				Inverted:       fmt.Sprintf("The rollback procedure is §%d.%d in the runbook.", a+1, b),
				InvertedAnswer: fmt.Sprintf("section %d.%d", a+1, b),
				Subject:        "the rollback procedure"}
		},
		func(p picker) itemText {
			snap := fmt.Sprintf("stg-2026-%02d-%02d", between(p.r, 1, 3), between(p.r, 1, 28))
			lit := "snapshot " + snap
			return itemText{Topic: "snapshot", Literal: lit,
				Probe: "Which database snapshot are the tests seeded from?", Expect: snap,
				Say:  pick(p.r, []string{"Seed the test database from " + lit + ".", "Use " + lit + " for the fixtures."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Test DB seeded from %s.", snap),
					fmt.Sprintf("Tests load the %s staging copy.", snap)},
				Inverted:       "Tests seed from the latest nightly dump.",
				InvertedAnswer: "the latest nightly dump",
				Subject:        "the test data source"}
		},
		func(p picker) itemText {
			n := between(p.r, 1000, 9999)
			lit := fmt.Sprintf("bench baseline run %d", n)
			return itemText{Topic: "bench", Literal: lit,
				Probe: "Which benchmark run is the baseline?", Expect: fmt.Sprintf("run %d", n),
				Say:  pick(p.r, []string{"Compare against " + lit + ".", "Use " + lit + " as the reference."}),
				Role: pick(p.r, []string{"user", "assistant"}),
				Para: [2]string{
					fmt.Sprintf("Benchmarks compare with baseline %d.", n),
					fmt.Sprintf("Benchmark comparisons use run %d as the baseline.", n)},
				Inverted:       fmt.Sprintf("Benchmarks compare with baseline %d.", n+40),
				InvertedAnswer: fmt.Sprintf("run %d", n+40),
				Subject:        "the benchmark baseline"}
		},
		func(p picker) itemText {
			doc, sec := p.pick(docFiles), between(p.r, 2, 11)
			lit := fmt.Sprintf("%s §%d", doc, sec)
			return itemText{Topic: "doc:" + doc, Literal: lit,
				Probe: "Which section of which document specifies the behaviour?", Expect: fmt.Sprintf("%s, section %d", doc, sec),
				Say:  pick(p.r, []string{"The behaviour is specified in " + lit + ".", "Spec is " + lit + "; follow it."}),
				Role: "user",
				Para: [2]string{
					fmt.Sprintf("Spec: section %d of %s.", sec, doc),
					fmt.Sprintf("Section %d of %s defines the expected behaviour.", sec, doc)},
				Inverted:       fmt.Sprintf("Section %d of %s defines the expected behaviour.", sec+1, doc),
				InvertedAnswer: fmt.Sprintf("%s, section %d", doc, sec+1),
				Subject:        "the specification"}
		},
	},
}

// oq builds an open question: the user asks it, nobody answers it, and
// any correct context still says it is open.
func oq(topic, literal, probe string, para [2]string, inverted, invertedAnswer, subject string) itemText {
	return itemText{Topic: topic, Literal: literal, Probe: probe, Expect: "no — still open",
		Para: para, Inverted: inverted, InvertedAnswer: invertedAnswer, Subject: subject, Hedge: true}
}

// bumpKey returns another ticket key of the same project.
func bumpKey(key string) string {
	i := strings.LastIndexByte(key, '-')
	var n int
	fmt.Sscanf(key[i+1:], "%d", &n)
	return fmt.Sprintf("%s-%d", key[:i], n+1)
}

// drawItem draws the text of one item of class c, framing its message.
func drawItem(r *rand.Rand, th *theme, c fixture.Class) itemText {
	t := pick(r, templates[c])(picker{r, th})
	t.Class = c
	if t.Say == "" {
		switch c {
		case fixture.Constraint:
			t.Role = "user"
			t.Say = pick(r, []string{"Before you start: ", "One rule for this task: ", "Important: ", "Also, ", "Please keep this in mind: ", "Ground rule: "}) + t.Literal + "."
		case fixture.Commitment:
			t.Role = "assistant"
			t.Say = t.Literal + "." + pick(r, []string{"", " Starting with the tests.", " Noted in my plan.", " Moving on to the handler."})
		case fixture.OpenQuestion:
			t.Role = "user"
			t.Say = pick(r, []string{"", "Question for later: ", "Something I haven't decided: ", "Not for now, but: ", "Thinking ahead. "}) + t.Literal
		}
	}
	return t
}

// restatement markers: how users restate an instruction they gave. The
// background messages never use them.
var restateMarkers = []string{"I said %s.", "Again: %s.", "As I mentioned, %s.", "Reminder: %s.", "I already told you: %s.", "Like I said earlier, %s.", "Once more: %s.", "Please remember, %s."}

// restatement phrases a constraint again, in other words.
func restatement(r *rand.Rand, t itemText) string {
	return fmt.Sprintf(pick(r, restateMarkers), pick(r, t.Restate))
}
