#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/plot-bench.sh CSV_DIR PNG_DIR: draws the benchmark plots (gnuplot, PNG) from the CSVs the bench/bench-*.sh
# parts wrote (`make bench` runs it; docs/benchmarks.md and README.md show the PNGs committed under docs/bench/):
#
#   reaction-freq-a.png  policy1's frequency over time in scenario (a), one line per governor (reaction-freq-a.csv)
#   reaction-cdf.png     CDF of the reaction latency per governor, one panel per scenario, idle and loaded
#                        (reaction.csv)
#   rss-tasks.png        the daemon's peak RSS against live tasks (memory.csv)
#   scale.png            replay cost per event against emulated CPUs (scale.csv)
#   overhead.png         workload slowdown per governor (overhead.csv)
#
# A plot whose CSV is missing is left out with a note; a CSV that is there but unreadable is an error.
set -eu

CSV=${1:?usage: plot-bench.sh CSV_DIR PNG_DIR}
OUT=${2:?usage: plot-bench.sh CSV_DIR PNG_DIR}
command -v gnuplot >/dev/null || { echo "plot-bench: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$OUT"
DAT=$(mktemp -d /tmp/schedfreqd-plot.XXXXXX)
trap 'rm -rf "$DAT"' EXIT

# One colour per governor, the same in every plot.
color() {
	case $1 in
	schedfreqd) echo '#1f77b4' ;;
	schedfreqd-local) echo '#17becf' ;;
	schedfreqd-immediate) echo '#2ca02c' ;;
	ondemand) echo '#ff7f0e' ;;
	cpufreqd) echo '#d62728' ;;
	perf-record) echo '#9467bd' ;;
	none) echo '#7f7f7f' ;;
	*) echo '#2ca02c' ;;
	esac
}

TERM_PNG="set terminal pngcairo size 1000,560 font 'DejaVu Sans,10' noenhanced"

have() { # CSV name
	[ -s "$CSV/$1" ] && return 0
	echo "plot-bench: no $CSV/$1, $2 left out" >&2
	return 1
}

governors() { # CSV [COLUMN] -> the governors in column COLUMN (1), in order of appearance
	awk -F, -v c="${2:-1}" 'NR > 1 && !seen[$c]++ { print $c }' "$1"
}

plot_freq_a() {
	local g plots=() f
	have reaction-freq-a.csv reaction-freq-a.png || return 0
	for g in $(governors "$CSV/reaction-freq-a.csv"); do
		f="$DAT/freq-$g"
		awk -F, -v g="$g" 'NR > 1 && $1 == g { print $2, $3 / 1000 }' "$CSV/reaction-freq-a.csv" >"$f"
		plots+=("'$f' using 1:2 with steps lw 2 lc rgb '$(color "$g")' title '$g'")
	done
	gnuplot <<-EOF
	set terminal pngcairo size 1400,520 font 'DejaVu Sans,10' noenhanced
	set output '$OUT/reaction-freq-a.png'
	set multiplot layout 1,2 title "Scenario (a): policy1's frequency around the heavy task's wake-up (t = 0) on CPU 1, one trial per governor"
	set ylabel 'MHz'
	set key bottom right
	set grid
	set yrange [700:2500]
	set title 'the first 300 ms'
	set xlabel 'ms since the wake-up'
	set xrange [-20:300]
	plot $(IFS=,; echo "${plots[*]}")
	set title 'zoom: the first 2 ms'
	set xrange [-0.2:2]
	plot $(IFS=,; echo "${plots[*]}")
	unset multiplot
	EOF
}

plot_cdf() {
	local s g load plots f title
	have reaction.csv reaction-cdf.png || return 0
	{
		echo "$TERM_PNG"
		echo "set terminal pngcairo size 1400,480 font 'DejaVu Sans,10' noenhanced"
		echo "set output '$OUT/reaction-cdf.png'"
		echo "set multiplot layout 1,3 title 'Reaction latency: trigger to the first raise of policy1 (solid: idle, dashed: loaded)'"
		echo "set logscale x; set xtics ('10 µs' 10, '100 µs' 100, '1 ms' 1000, '10 ms' 10000, '100 ms' 100000, '1 s' 1e6, '10 s' 1e7)"
		echo "set xlabel 'latency (log scale)'; set ylabel 'fraction of trials'; set grid; set yrange [0:1]"
		echo "set key top left; set xrange [10:2e6]"
		for s in a b c; do
			case $s in
			a) title='(a) remote wake-up of a heavy task' ;;
			b) title='(b) a hog starts on an idle CPU' ;;
			c) title='(c) an RT task wakes' ;;
			esac
			plots=()
			for g in $(governors "$CSV/reaction.csv"); do
				for load in idle loaded; do
					f="$DAT/cdf-$s-$g-$load"
					awk -F, -v s="$s" -v g="$g" -v l="$load" 'NR > 1 && $1 == g && $2 == s && $3 == l && $5 > 0 { print $5 }' \
						"$CSV/reaction.csv" | sort -g | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$f"
					[ -s "$f" ] || continue
					# One legend entry per governor: its idle line, or its loaded one if it ran loaded only.
					if [ "$load" = idle ]; then
						plots+=("'$f' using 1:2 with lines lw 2 lc rgb '$(color "$g")' title '$g'")
					elif [ -s "$DAT/cdf-$s-$g-idle" ]; then
						plots+=("'$f' using 1:2 with lines lw 2 dt 2 lc rgb '$(color "$g")' notitle")
					else
						plots+=("'$f' using 1:2 with lines lw 2 dt 2 lc rgb '$(color "$g")' title '$g (loaded only)'")
					fi
				done
			done
			echo "set title '$title'"
			[ ${#plots[@]} -gt 0 ] && echo "plot $(IFS=,; echo "${plots[*]}")"
		done
		echo "unset multiplot"
	} | gnuplot
}

plot_rss() {
	have memory.csv rss-tasks.png || return 0
	awk -F, 'NR > 1 && $1 == "tasks" && $2 == 2 { print $3, $4 / 1024 }' "$CSV/memory.csv" | sort -n >"$DAT/rss"
	[ -s "$DAT/rss" ] || { echo "plot-bench: memory.csv has no 2-CPU rows, rss-tasks.png left out" >&2; return 0; }
	gnuplot <<-EOF
	$TERM_PNG
	set output '$OUT/rss-tasks.png'
	set title "schedfreqd's peak RSS against live tasks (2 CPUs)"
	set xlabel 'live tasks'
	set ylabel 'peak RSS (MiB)'
	set yrange [0:*]
	set grid
	set key off
	plot '$DAT/rss' using 1:2 with linespoints lw 2 pt 7 lc rgb '$(color schedfreqd)'
	EOF
}

plot_scale() {
	have scale.csv scale.png || return 0
	awk -F, 'NR > 1 { print $1, $6 }' "$CSV/scale.csv" | sort -n >"$DAT/scale"
	gnuplot <<-EOF
	$TERM_PNG
	set output '$OUT/scale.png'
	set title 'schedfreqd replay: cost per event against CPUs (synthetic traces)'
	set xlabel 'CPUs (log)'
	set ylabel 'ns per event'
	set logscale x 2
	set yrange [0:*]
	set grid
	set key off
	plot '$DAT/scale' using 1:2 with linespoints lw 2 pt 7 lc rgb '$(color schedfreqd)'
	EOF
}

plot_overhead() {
	local w g i=0 base
	have overhead.csv overhead.png || return 0
	# workload,governor,run,seconds,ops_per_s,...: the median cost per (workload, governor) relative to "none";
	# the cost is 1/ops_per_s where the workload reports a throughput (stress-ng), else its seconds.
	: >"$DAT/overhead"
	for w in $(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$CSV/overhead.csv"); do
		base=$(awk -F, -v w="$w" 'NR > 1 && $1 == w && $2 == "none" { print ($5 > 0) ? 1 / $5 : $4 }' "$CSV/overhead.csv" | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		[ -n "$base" ] || continue
		for g in $(governors "$CSV/overhead.csv" 2); do
			[ "$g" = none ] && continue
			awk -F, -v w="$w" -v g="$g" 'NR > 1 && $1 == w && $2 == g { print ($5 > 0) ? 1 / $5 : $4 }' "$CSV/overhead.csv" | sort -g |
				awk -v b="$base" -v w="$w" -v g="$g" -v i="$i" -v c="$((16#$(color "$g" | tr -d "#")))" '{ v[NR] = $1 } END { if (!NR) exit; m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d \"%s\\n%s\" %.2f %d\n", i, w, g, 100 * (m / b - 1), c }' >>"$DAT/overhead"
			i=$((i + 1))
		done
	done
	[ -s "$DAT/overhead" ] || return 0
	gnuplot <<-EOF
	$TERM_PNG
	set output '$OUT/overhead.png'
	set title 'Workload slowdown with each governor running (median wall time against none)'
	set ylabel '% slower'
	set style fill solid 0.7
	set boxwidth 0.6
	set grid ytics
	set key off
	set xtics rotate by -30
	set bmargin 6
	plot '$DAT/overhead' using 1:3:4:xtic(2) with boxes lc rgb variable
	EOF
}

plot_freq_a
plot_cdf
plot_rss
plot_scale
plot_overhead
ls "$OUT"/*.png 2>/dev/null | sed 's/^/plot-bench: wrote /'
