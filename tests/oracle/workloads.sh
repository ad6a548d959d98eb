# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The oracle's workloads, one definition for every harness that compares something with the kernel over them
# (run-oracle.sh: the model; run-bpf-fidelity.sh: the BPF source), so that a workload of a given name is the
# same in both comparisons. Source it with HELPERS set (BUILD/tests/helpers).
#
#   oracle_workload_cmd NAME SECONDS   prints NAME's command line; 1 for an unknown NAME
#     pN       a task on CPU 1 at N % of a 16 ms period (tests/helpers/hog --duty)
#     storm    200 children/s of ~1 ms each (tests/helpers/storm)
#     migrate  a busy task moved between CPU 0 and 1 every 100 ms (tests/helpers/migrator)
#     rt50     p50 as SCHED_FIFO 50
#     phase    one process on CPU 1 stepping its duty cycle 20 → 50 → 80 → 100 → 0 → 40 % in equal parts
oracle_workload_cmd() { # NAME SECONDS
	local s=$2
	case $1 in
	p[0-9]*) echo "$HELPERS/hog --cpu 1 --seconds $s --duty ${1#p} --period-ms 16" ;;
	storm) echo "$HELPERS/storm --seconds $s --rate 200 --run-ms 1" ;;
	migrate) echo "$HELPERS/migrator --seconds $s --interval-ms 100 --cpus 0,1" ;;
	rt50) echo "$HELPERS/hog --cpu 1 --seconds $s --duty 50 --period-ms 16 --fifo 50" ;;
	phase) echo "$HELPERS/hog --cpu 1 --seconds $s --steps 20,50,80,100,0,40 --period-ms 16" ;;
	*) return 1 ;;
	esac
}
