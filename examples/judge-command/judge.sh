#!/bin/sh
# A keyword judge for `tally check --judge command`: a complete, working
# example of the command judge's protocol, in POSIX sh and awk only.
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
#    out) and finds the context line holding most of them: none on any
#    line is "absent"; otherwise "supported", with that line as the
#    answer. (It never answers "contradicted" itself: tally's agreement
#    question, below, catches a supported answer that is not the
#    expected one.)
#  - The agreement prompt starts with "Two answers were given" and holds
#    the fixture's expected answer between <first_answer> tags and the
#    judge's answer between <second_answer> tags. This judge agrees when
#    every word of the expected answer is in the judge's answer.
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
		n2 = words(second, w2)
		for (i = 1; i <= n2; i++) have[w2[i]] = 1
		n1 = words(first, w1)
		agree = (n1 > 0) ? "yes" : "no"
		for (i = 1; i <= n1; i++) if (!(w1[i] in have)) agree = "no"
		printf "{\"agree\": \"%s\"}\n", agree
		exit 0
	}
	nk = 0
	n = words(probe, pw)
	for (i = 1; i <= n; i++) {
		w = pw[i]
		if (length(w) >= 4 && !(w in stop) && !(w in iskey)) { iskey[w] = 1; nk++ }
	}
	best = 0; line = ""
	for (l = 1; l <= nctx; l++) {
		if (ctx[l] ~ /^(system|user|assistant|tool):$/) continue
		split("", seen)
		m = words(ctx[l], cw); score = 0
		for (i = 1; i <= m; i++) if ((cw[i] in iskey) && !(cw[i] in seen)) { seen[cw[i]] = 1; score++ }
		if (score > best) { best = score; line = ctx[l] }
	}
	if (best == 0) {
		printf "{\"reasoning\": %s, \"answer\": \"\", \"verdict\": \"absent\"}\n", \
			jsonstr("none of the " nk " probe keywords is in the context")
		exit 0
	}
	sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
	printf "{\"reasoning\": %s, \"answer\": %s, \"verdict\": \"supported\"}\n", \
		jsonstr(best " of the " nk " probe keywords on one line of the context"), jsonstr(line)
}
'
