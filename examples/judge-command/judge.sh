#!/bin/sh
# A keyword judge for `tally check --judge command`: a complete, working
# example of the command judge's protocol, in POSIX sh and awk only. It
# reads words, not meaning: on the bundled example it agrees with a
# careful reader, but on real summaries it finds fewer supported items
# than a model would and misses inversions said in other words. It reads
# English only: words are ASCII letters and digits (a Chinese or
# Japanese probe has none, and comes back absent) and yes/no answers are
# "yes" and "no" (a German probe expecting "nein" comes back
# contradicted). Use it to see the protocol work and to test a pipeline
# offline, in English; judge a real system with a model (--judge
# anthropic or openai, or a command that wraps one).
#
#   tally check --fixtures F --contexts C --system S -o verdicts.jsonl \
#       --judge command --command examples/judge-command/judge.sh
#
# tally runs this program once per question, writes the prompt on its
# standard input (never as an argument, through no shell) and reads the
# reply from its standard output. There are two kinds of prompt:
#
#  - The verdict prompt ends with
#      Reply with JSON: {"reasoning": ..., "answer": ..., "verdict": ...}
#    It holds the compacted context between <context> and </context>
#    lines and the probe on a line "Question: ...". This judge takes the
#    probe's keywords (words of four letters or more, common words left
#    out; when the probe quotes the item in “…”, the words inside the
#    quotes only, so tally's own wording of the probe counts for
#    nothing) and finds the context line holding most of them. Fewer
#    than two of them, or fewer than half, on any line is "absent": one
#    shared word is no evidence, unless the probe has only one and asks
#    for a file or a commit that the line names. Otherwise "supported", with that line as
#    the answer (to a probe for a file or a commit, only a line that
#    names one, by an extension or a hex string, answers); to a yes/no probe ("Does this rule … still hold: “…”?",
#    "May …?", "Is the agent forbidden to …?") the answer starts "yes"
#    or "no": "no" when one of the probe and the line is negated (not,
#    never, no, without, n't, forbidden) and the other is not. A probe
#    that asks whether the user raised something is answered "yes" when
#    found. (It never answers "contradicted" itself: tally's agreement
#    question, below, catches a supported answer that is not the
#    expected one.)
#  - The agreement prompt starts with "Two answers were given" and holds
#    the fixture's expected answer between <first_answer> tags and the
#    judge's answer between <second_answer> tags. An expected "yes" or
#    "no" agrees with an answer that starts with the same word; any
#    other expected answer agrees when each of its words is in the
#    judge's answer.
#
# Tag names carry a hash suffix ("<context-1a2b3c4d5e6f>") when the text
# inside mentions the tag itself; both forms are accepted here.
#
# A reply tally cannot parse is re-asked (--reasks) and then recorded as
# an error verdict, never as absent; a non-zero exit is a failed call.
LC_ALL=C
export LC_ALL
exec awk '
function words(s, out,    n, i, parts) {
	s = tolower(s)
	gsub(/[^a-z0-9]+/, " ", s)
	n = split(s, parts, " ")
	for (i = 1; i <= n; i++) out[i] = parts[i]
	return n
}
function jsonstr(s,    out, i, c) {
	# Character by character: awks disagree on backslashes in gsub.
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"") out = out "\\" c
		else if (c == "\t") out = out "\\t"
		else if (c == "\r") out = out "\\r"
		else if (c < " ") out = out " "
		else out = out c
	}
	return "\"" out "\""
}
# negated reports whether s says no: not, never, no, nor, without,
# cannot, forbid, forbidden, or a contraction ending in n-apostrophe-t.
function negated(s) {
	s = " " tolower(s) " "
	gsub(/n\047t|n\342\200\231t/, " not ", s)
	gsub(/[^a-z]+/, " ", s)
	return s ~ / (not|never|no|nor|without|forbidden|forbid|cannot) /
}
# hexid reports whether s holds a commit-like id: seven or more hex
# digits, with a digit and a letter among them, not inside a word.
function hexid(s,    t, ok) {
	s = tolower(s)
	while (match(s, /[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/)) {
		t = substr(s, RSTART, RLENGTH)
		ok = (RSTART == 1 || substr(s, RSTART - 1, 1) !~ /[a-z0-9_]/) && substr(s, RSTART + RLENGTH, 1) !~ /[a-z0-9_]/
		if (ok && t ~ /[0-9]/ && t ~ /[a-f]/) return 1
		s = substr(s, RSTART + RLENGTH)
	}
	return 0
}
BEGIN {
	split("what which when where whom whose does should would could will must " \
		"still agent this that there their them they with from have into about " \
		"been were your after before under over answer question", sw, " ")
	for (i in sw) stop[sw[i]] = 1
	kind = "verdict"; where = ""
}
NR == 1 && /^Two answers were given/ { kind = "agreement" }
/^<context(-[0-9a-f]+)?>$/ { where = "context"; next }
/^<\/context(-[0-9a-f]+)?>$/ { where = ""; next }
/^<first_answer(-[0-9a-f]+)?>$/ { where = "first"; next }
/^<\/first_answer(-[0-9a-f]+)?>$/ { where = ""; next }
/^<second_answer(-[0-9a-f]+)?>$/ { where = "second"; next }
/^<\/second_answer(-[0-9a-f]+)?>$/ { where = ""; next }
where == "context" { ctx[++nctx] = $0; next }
where == "first" { first = first " " $0; next }
where == "second" { second = second " " $0; next }
kind == "verdict" && /^Question: / && probe == "" { probe = substr($0, 11) }
END {
	if (kind == "agreement") {
		n1 = words(first, w1)
		n2 = words(second, w2)
		if (n1 == 1 && (w1[1] == "yes" || w1[1] == "no") && (w2[1] == "yes" || w2[1] == "no")) {
			printf "{\"agree\": \"%s\"}\n", (w1[1] == w2[1]) ? "yes" : "no"
			exit 0
		}
		for (i = 1; i <= n2; i++) have[w2[i]] = 1
		agree = (n1 > 0) ? "yes" : "no"
		for (i = 1; i <= n1; i++) if (!(w1[i] in have)) agree = "no"
		printf "{\"agree\": \"%s\"}\n", agree
		exit 0
	}
	# The words the probe quotes, when it quotes the item.
	text = probe
	qo = index(text, "\342\200\234")
	if (qo > 0) {
		rest = substr(text, qo + 3)
		qc = index(rest, "\342\200\235")
		if (qc > 0) text = substr(rest, 1, qc - 1)
	}
	nk = 0
	n = words(text, pw)
	for (i = 1; i <= n; i++) {
		w = pw[i]
		if (length(w) >= 4 && !(w in stop) && !(w in iskey)) { iskey[w] = 1; nk++ }
	}
	# A probe for a file or a commit is answered only by a line that
	# names one.
	need = ""
	if (tolower(probe) ~ /^which file/) need = "[A-Za-z0-9_-]\\.[a-z][a-z0-9]*([^A-Za-z0-9]|$)"
	else if (tolower(probe) ~ /^which commit/) need = "hex"
	best = 0; line = ""
	for (l = 1; l <= nctx; l++) {
		if (ctx[l] ~ /^(system|user|assistant|tool):$/) continue
		if (need == "hex" && !hexid(ctx[l]) || need != "" && need != "hex" && ctx[l] !~ need) continue
		split("", seen)
		m = words(ctx[l], cw); score = 0
		for (i = 1; i <= m; i++) if ((cw[i] in iskey) && !(cw[i] in seen)) { seen[cw[i]] = 1; score++ }
		if (score > best) { best = score; line = ctx[l] }
	}
	if ((best < 2 && !(need != "" && best == 1 && nk == 1)) || 2 * best < nk) {
		printf "{\"reasoning\": %s, \"answer\": \"\", \"verdict\": \"absent\"}\n", \
			jsonstr("at most " best " of the " nk " probe keywords on one line of the context")
		exit 0
	}
	sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
	answer = line
	if (tolower(probe) ~ /^did the user raise/) answer = "yes: " line
	else if (tolower(probe) ~ /^(does|do|is|are|must|may|can|should|did|has|have|will|was|were) /)
		answer = ((negated(probe) == negated(line)) ? "yes: " : "no: ") line
	printf "{\"reasoning\": %s, \"answer\": %s, \"verdict\": \"supported\"}\n", \
		jsonstr(best " of the " nk " probe keywords on one line of the context"), jsonstr(answer)
}
'
