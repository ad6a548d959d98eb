#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/structure/check-layers.sh [--report]: the source tree's shape against docs/architecture.md (issue #26).
#
# daemon/ holds one folder a subsystem, ranked below by the data flow (a scheduler event goes up from events/ to
# model/, governor/ and actuator/; replay/ and service/ drive them; schedfreqctl/ is the client). A file may
# include headers of its own folder and of folders ranked below it, never above; a folder's private headers
# (daemon/F/*.h) are found only by its own files (#include "x.h" looks beside the including file first), what
# others may use is in include/. Checked here, from the #include lines of daemon/ and include/ (the tests,
# white-box, may include private headers and are not checked):
#   - every daemon/F/*.c is in a ranked folder;
#   - include/ holds one public header a folder (include/F.h) and the shared helpers' headers, nothing else;
#   - no include points to a folder ranked above the includer's (an "upward" include);
#   - no private header is included from outside its folder;
#   - no two modules include each other (a module: x.c with x.h and x-internal.h);
#   - docs/architecture.md, the map, has a row for every source and every header that is not just its .c's.
# --legacy measures a tree from before the public headers (include/X.h then belonged to X.c), for the figures of
# issue #26's closing note.
# Prints TAP-style "ok"/"not ok" lines for tests/run-tests; --report also prints the figures (files per folder,
# includes, upward includes, mutual pairs) that docs/architecture.md quotes.
set -u
cd "$(dirname "$0")/../.."
report=0
legacy=0	# --legacy: a tree from before the public headers (include/X.h belongs to X.c), for before/after figures
for a in "$@"; do
	case $a in
	--report) report=1 ;;
	--legacy) legacy=1 ;;
	*) echo "usage: $0 [--report] [--legacy]" >&2; exit 2 ;;
	esac
done

# Lowest first. schedfreqctl, the D-Bus client, is a program of its own above everything.
RANKS="shared topology config events model governor actuator replay service schedfreqctl"

# One line a source file: "FILE<TAB>INCLUDE" for each quoted #include, and "FILE<TAB>" for every file.
{
	find daemon -path daemon/governor/bpf -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print
	find include -maxdepth 1 -type f -name '*.h' -print
} | sort | while read -r f; do
	printf '%s\t\n' "$f"
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do printf '%s\t%s\n' "$f" "$h"; done
done | awk -F'\t' -v ranks="$RANKS" -v report="$report" -v legacy="$legacy" '
function base(p,   b) { b = p; sub(/.*\//, "", b); sub(/\.[ch]$/, "", b); return b }
function dir(p,   d) { d = p; sub(/\/[^\/]*$/, "", d); return d }
# The folder (subsystem) that owns a file: daemon/F/... is F; include/F.h is F'"'"'s, every other header in include/
# a shared helper'"'"'s.
function owner(p,   b) {
	if (p ~ /^daemon\//) { split(p, parts, "/"); return parts[2] }
	b = base(p)
	if (legacy && (b in cfile)) return folder_of[cfile[b]]
	return (b in rank) ? b : "shared"
}
# A module: the path without its extension and without "-internal" (engine-internal.h is engine'"'"'s). A
# folder'"'"'s public header (include/F.h) is that folder'"'"'s interface, a module of its own that its files
# implement; a shared helper'"'"'s header is the module of its .c.
function module(p,   b) {
	b = base(p); sub(/-internal$/, "", b)
	if (p ~ /^include\// && (b in rank) && !legacy) return "include/" b
	if (p ~ /^include\// && (b in cfile)) { p = cfile[b]; sub(/\.[ch]$/, "", p); return p }
	return dir(p) "/" b
}
BEGIN {
	n = split(ranks, r, " "); for (i = 1; i <= n; i++) rank[r[i]] = i
	# The shared helpers with a header and no .c.
	split("macro string-table time-util schedfreqd-dbus", ho, " "); for (i in ho) header_only[ho[i]] = 1
}
{
	if (!($1 in seen)) { seen[$1] = 1; files[++nfiles] = $1 }
	if ($1 ~ /\.c$/) cfile[base($1)] = $1
	if ($1 ~ /^daemon\/.*\.h$/) { hb = $1; sub(/.*\//, "", hb); private_path[hb] = $1 }
	if ($2 != "") { inc_from[++ninc] = $1; inc_name[ninc] = $2 }
	exists[$1] = 1
}
END {
	for (i = 1; i <= nfiles; i++) { f = files[i]; folder_of[f] = owner(f) }
	bad_folder = 0
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (f ~ /^daemon\// && !(folder_of[f] in rank)) { print "# not in a ranked folder: " f; bad_folder++ }
		if (f ~ /^daemon\/[^\/]*\.[ch]$/) { print "# outside any folder: " f; bad_folder++ }
		if (f ~ /\.c$/) count[folder_of[f]]++
	}
	# include/ holds each folder'"'"'s one public header and the shared helpers'"'"' headers, nothing else.
	bad_public = 0
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (f !~ /^include\// || (base(f) in rank) || (base(f) in cfile && folder_of[cfile[base(f)]] == "shared") ||
		    base(f) in header_only)
			continue
		print "# in include/ but neither a folder'"'"'s public header nor a shared helper'"'"'s: " f; bad_public++
	}
	up = 0; private_bad = 0; resolved = 0
	for (i = 1; i <= ninc; i++) {
		f = inc_from[i]; h = inc_name[i]
		if ((dir(f) "/" h) in exists) t = dir(f) "/" h
		else if (("include/" h) in exists) t = "include/" h
		else if (h in private_path) t = private_path[h]	# found only through an -I: another folder'"'"'s
		else continue	# a system or generated header (version.h, the BPF skeleton)
		resolved++
		a = folder_of[f]; b = folder_of[t]
		if (rank[b] > rank[a]) { up++; print "# upward: " f " (" a ") includes " t " (" b ")" }
		if (t ~ /^daemon\// && dir(t) != dir(f)) { private_bad++; print "# private: " f " includes " t }
		m1 = module(f); m2 = module(t)
		if (m1 != m2) edge[m1 SUBSEP m2] = 1
	}
	pairs = 0
	for (e in edge) {
		split(e, ab, SUBSEP)
		if (ab[1] < ab[2] && ((ab[2] SUBSEP ab[1]) in edge)) { pairs++; print "# mutual: " ab[1] " <-> " ab[2] }
	}
	if (report) {
		for (i = 1; i <= n; i++) printf "# folder %-13s %3d .c files\n", r[i], count[r[i]]
		printf "# includes between files %d, upward %d, mutual module pairs %d\n", resolved, up, pairs
	}
	if (nfiles == 0) { print "# no sources found under daemon/ and include/"; bad_folder++ }
	print (bad_folder ? "not ok" : "ok") " - every daemon source is in a ranked subsystem folder"
	# docs/architecture.md is the map: every source, and every header that is not just its .c'"'"'s, has its row.
	unmapped = 0
	while ((getline line < "docs/architecture.md") > 0) if (match(line, /^\| `[^`]+` \|/)) row[substr(line, 4, RLENGTH - 6)] = 1
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (f ~ /\.h$/ && (base(f) in cfile) && dir(cfile[base(f)]) == dir(f)) continue
		if (f ~ /^include\// && (base(f) in cfile)) continue
		if (!(f in row)) { print "# not in docs/architecture.md'"'"'s map: " f; unmapped++ }
	}
	print (unmapped ? "not ok" : "ok") " - docs/architecture.md names every source file and every header of its own"
	print (bad_public ? "not ok" : "ok") " - include/ holds one public header a folder and the shared helpers'"'"' only"
	print (up ? "not ok" : "ok") " - no include points to a folder ranked above its own (" up " do)"
	print (private_bad ? "not ok" : "ok") " - private headers are included only from their own folder"
	print (pairs ? "not ok" : "ok") " - no two modules include each other (" pairs " pairs)"
}'
