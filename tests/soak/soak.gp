# SPDX-License-Identifier: GPL-2.0-or-later
# Plots of a soak run (tests/soak/run-soak.sh): the daemon's RSS, and the events/s it took, over time.
#   gnuplot -e "csv='build/soak/soak.csv'; outdir='docs'; warmup=60; rss_ref=5000; band=2" tests/soak/soak.gp
# rss_ref: the RSS (kB) at the end of the warm-up, band: the allowed deviation from it in %.
# CSV columns: t_s,rss_kb,fds,daemon_cpu_pct,events_seen,events_lost,events_late,events_per_s,ctxt_per_s,
# forks_per_s,threads_per_s,roundtrips_per_s,policy0_khz,policy1_khz,current0_khz,current1_khz

set datafile separator ","
set terminal pngcairo size 900,420 font "DejaVu Sans,10"
set grid
set key outside bottom center horizontal
set xlabel "time under load (s)"
set arrow 1 from warmup, graph 0 to warmup, graph 1 nohead dashtype 2 linecolor rgb "gray40"
set label 1 "end of warm-up" at warmup, graph 0.95 offset 0.5, 0 textcolor rgb "gray40"

set output outdir . "/soak-rss.png"
set title "schedfreqd RSS under load (VmRSS, sampled every second)"
set ylabel "RSS (kB)"
set format y "%.0f"
lo = rss_ref * (1 - band / 100.0)
hi = rss_ref * (1 + band / 100.0)
stats csv every ::1 using 2 name "RSS" nooutput
ymin = (RSS_min < lo ? RSS_min : lo)
ymax = (RSS_max > hi ? RSS_max : hi)
set yrange [ymin - (ymax - ymin) * 0.1 : ymax + (ymax - ymin) * 0.1]
plot csv every ::1 using 1:2 with lines linewidth 2 linecolor rgb "#1f77b4" title "RSS", \
     lo with lines dashtype 3 linecolor rgb "#d62728" \
        title sprintf("RSS after the warm-up (%d kB) +-%g %%", rss_ref, band), \
     hi with lines dashtype 3 linecolor rgb "#d62728" notitle

set output outdir . "/soak-events.png"
set title "Scheduler events taken by schedfreqd (10 s averages), and the load"
set yrange [0:*]
set ylabel "events per second (thousands)"
set y2label "forks, threads per second"
set y2range [0:1500]
set y2tics
set ytics nomirror
# Events/s over 10 s windows of the cumulative EventsSeen (column 5): a sample delayed by a stall of the VM
# makes the next one-second figure a spike, and its neighbour a dip.
stats csv every ::1 using 1 name "N" nooutput
array T[N_records]
array E[N_records]
i = 0
stats csv every ::1 using (i = i + 1, T[i] = $1, E[i] = $5, 0) name "FILL" nooutput
W = 10
rate(j) = (j > W ? (E[j] - E[j - W]) / (T[j] - T[j - W]) : NaN)
plot E using (T[$1]):(rate(int($1)) / 1000) with lines linewidth 2 linecolor rgb "#1f77b4" \
        title "events/s (EventsSeen, 10 s average)", \
     csv every ::1 using 1:10 axes x1y2 with lines linecolor rgb "#ff7f0e" title "forks/s", \
     csv every ::1 using 1:11 axes x1y2 with lines linecolor rgb "#9467bd" title "threads/s"
