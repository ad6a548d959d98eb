#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/event-path.sh [TRACE] [TOPOLOGY]: the files one scheduler event's path goes through, from
# engine_event() (where the live source, after the ring and tp-decode, and replay, after trace-parse, hand it
# over) to the decision it causes (the engine's commit callback, where the live daemon writes scaling_setspeed and
# replay prints), and how many times that path re-enters a source file it left (issue #26 item 5). A function
# inlined from a header counts as its caller's file (a static inline is written where it is used).
#
# Builds its own schedfreqd with every daemon object compiled with -finstrument-functions (and -O2 -g, as the
# build) and bench/event-path/func-trace.c's hooks, in $BUILD/event-path/ (BUILD, default build), replays TRACE (default tests/fixtures/traces/article.txt) over TOPOLOGY (default
# tests/fixtures/traces/two-dt.ini), takes the first engine_event() call that reaches the commit callback
# (EVENT_PATH_NTH=N: the Nth such call) and prints the files in the order the path enters them up to the
# callback, then:
#   entries     functions entered on the way (inlined ones too: -finstrument-functions reports them)
#   switches    moves from one file to another (a call into another file, or a return to one)
#   re-entries  switches into a file the path had already been in and left
# and the switches by pair of files (EVENT_PATH_CALLS=1: also the calls from one file into another, by function).
# Works on any tree of the project (it lists daemon/**/*.c itself), so that
# an older commit can be measured with this script copied into it. Needs gcc and binutils' addr2line.
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
BUILD=${BUILD:-build}
TRACE=${1:-tests/fixtures/traces/article.txt}
TOPOLOGY=${2:-tests/fixtures/traces/two-dt.ini}
NTH=${EVENT_PATH_NTH:-1}
OUT=$BUILD/event-path
PKGS="libsystemd libnl-3.0 libnl-genl-3.0 inih libtraceevent libtracefs libtracecmd zlib"

rm -rf "$OUT/obj"
mkdir -p "$OUT/obj" "$OUT/include"
printf '#define VERSION "event-path"\n#define VERSION_STRING "event-path"\n' >"$OUT/include/version.h"
# Every daemon source but the client's and the BPF program's; private headers are found beside each file.
mapfile -t SRC < <(find daemon -name '*.c' ! -path 'daemon/schedfreqctl/*' ! -path '*/bpf/*' | sort)
CFLAGS="-std=gnu11 -O2 -g -D_GNU_SOURCE -DSCHEDFREQD_NO_BPF -finstrument-functions -Iinclude -I$OUT/include \
$(pkg-config --cflags $PKGS)"
printf '%s\n' "${SRC[@]}" | xargs -P "$(nproc)" -I{} sh -c \
	'gcc $3 -c -o "$1/obj/$(echo "$2" | tr / _).o" "$2"' _ "$OUT" {} "$CFLAGS"
gcc -std=gnu11 -O2 -g -D_GNU_SOURCE -c -o "$OUT/func-trace.o" bench/event-path/func-trace.c
gcc -o "$OUT/schedfreqd" "$OUT"/obj/*.o "$OUT/func-trace.o" $(pkg-config --libs $PKGS) -lcpupower -lm -ldl

SCHEDFREQD_FUNC_TRACE=$OUT/calls.txt "$OUT/schedfreqd" replay --topology "$TOPOLOGY" "$TRACE" >"$OUT/replay.txt"
# Offsets to function and file.
awk '{print $2}' "$OUT/calls.txt" | sort -u >"$OUT/offsets.txt"
addr2line -f -e "$OUT/schedfreqd" $(sed 's/^/0x/' "$OUT/offsets.txt") | paste - - |
	paste "$OUT/offsets.txt" - | awk -v repo="$REPO/" '{ f = $3; sub(/:.*/, "", f); sub(repo, "", f); print $1, $2, f }' \
	>"$OUT/symbols.txt"

awk -v nth="$NTH" '
FNR == NR { fn[$1] = $2; file[$1] = $3; next }
{ kind = $1; off = $2 }
# The window: one engine_event() call, from its entry to its exit; kept if the commit callback ran inside.
!inwin && kind == "E" && fn[off] == "engine_event" { inwin = 1; depth = 0; n = 0; committed = 0 }
inwin {
	seq_kind[++n] = kind; seq_off[n] = off
	if (kind == "E") depth++; else depth--
	if (kind == "E" && (fn[off] == "on_replay_decision" || fn[off] == "on_commit") && !committed) committed = n
	if (depth == 0) {
		inwin = 0
		if (committed && ++found == nth) { report(); exit 0 }
	}
}
function report(   i, sp, cur, prev, visited, path, entries, switches, reentries, pair, k, a) {
	sp = 0; cur = ""
	for (i = 1; i < committed; i++) {
		# A header'"'"'s inline function is its caller'"'"'s code.
		if (seq_kind[i] == "E") {
			fstack[sp + 1] = file[seq_off[i]] ~ /\.h$/ ? fstack[sp] : fn[seq_off[i]]
			stack[++sp] = file[seq_off[i]] ~ /\.h$/ ? cur : file[seq_off[i]]; entries++
			if (sp > 1 && stack[sp] != stack[sp - 1]) call[fstack[sp - 1] " -> " fstack[sp]]++
		} else sp--
		if (sp == 0) break
		prev = cur; cur = stack[sp]
		if (cur == prev) continue
		if (prev != "") {
			switches++
			pair[(prev < cur) ? prev " <-> " cur : cur " <-> " prev]++
			if (cur in visited) reentries++
		}
		visited[cur] = 1
		path = path (path == "" ? "" : " > ") cur
	}
	print "path: " path
	printf "entries %d, switches %d, re-entries %d\n", entries, switches, reentries
	for (k in pair) printf "%5d  %s\n", pair[k], k | "sort -rn"
	close("sort -rn")
	if (ENVIRON["EVENT_PATH_CALLS"] == 1) {
		print "calls between files (caller -> callee):"
		for (k in call) printf "%5d  %s\n", call[k], k | "sort -rn"
		close("sort -rn")
	}
}
END { if (!found || found < nth) { print "event-path: no engine_event() call reached a decision" > "/dev/stderr"; exit 1 } }
' "$OUT/symbols.txt" "$OUT/calls.txt"
