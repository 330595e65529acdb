#!/usr/bin/env bash
# Self-monitoring read cost: prints the "Self-monitoring reads" section of
# bench/RESULTS.md (bench/run.sh collects it). Needs build/bench/selfmon
# (make bench builds it).
set -eu
BUILD=${BUILD:-build}
bin=$BUILD/bench/selfmon
iters=${SELFMON_ITERS:-200000}
echo "## Self-monitoring reads (bench/selfmon.sh)"
echo
if [ ! -x "$bin" ]; then
	echo "$bin is missing (make bench builds it)."
	exit 0
fi
pmu=$(ls /sys/bus/event_source/devices | tr '\n' ' ')
echo "Command: \`$bin $iters\`. ns per read of a group of 1, 4 and 8 software"
echo "events (task-clock, page-faults, context-switches, cpu-migrations,"
echo "minor-faults, major-faults, cpu-clock, context-switches:u) on the calling"
echo "thread, best of 7 interleaved runs of $iters reads each. The same events"
echo "for every column; PAPI $(dpkg-query -W -f='${Version}' libpapi-dev 2>/dev/null || echo '?')"
echo "reads them through its perf_event component (libpfm4 perf:: names)."
echo "PMUs here: $pmu."
echo
out=$("$bin" "$iters")
echo "$out"
echo
if grep -q '| read |' <<<"$out"; then
	echo "No hardware PMU here, so every event is index 0 on its mmap page and"
	echo "tally_selfmon__read takes the fallback: exactly one group read()."
	echo "Its cost is the group read() within noise (the ratio column; this"
	echo "2-CPU VM is shared, so single runs vary by several percent either"
	echo "way), below PAPI_read (which does the same read() plus its own"
	echo "bookkeeping) and far below one read() per event from 4 events up."
	echo "A lone event is read without PERF_FORMAT_GROUP, which is why the"
	echo "1-event row matches \"read() per event\" rather than the group read()."
	echo "The rdpmc fast path and the bare-rdpmc column need a PMU: on such a"
	echo "machine the same command fills them in."
fi
