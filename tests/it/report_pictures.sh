#!/usr/bin/env bash
# tally report's pictures, checked by their real readers:
#  --pprof: `go tool pprof -top` lists the functions and shares tally
#    report does; `protoc --decode` reads it against profile.proto and its
#    sample counts sum to the file's samples.
#  --flamegraph: headless Chromium runs the SVG's script: a search
#    highlights the frames and says the share tally report gives; a click
#    (playwright-core driving Chromium) zooms, Reset Zoom restores.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
ROOT=$(cd "$(dirname "$0")/../.." && pwd)


cp "$ROOT/tests/data/progs/tree.c" "$d/tree.c"
cc -O1 -g -fno-omit-frame-pointer -o "$d/tree" "$d/tree.c"
"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/t.data" -- "$d/tree" >/dev/null 2>&1
samples=$("$TALLY" script -F comm -i "$d/t.data" 2>/dev/null | wc -l)
check "the recording has samples ($samples)" [ "$samples" -gt 100 ]

"$TALLY" report -i "$d/t.data" --flamegraph "$d/fg.svg" --pprof "$d/p.pb.gz" 2>"$d/err"; rc=$?
is "report --flamegraph --pprof exits 0" "$rc" 0
check "the flame graph is written" [ -s "$d/fg.svg" ]
check "the profile is gzip" sh -c "gzip -t '$d/p.pb.gz'"
# tally's own shares: self (no-children) and with callers (children)
self_pct() { "$TALLY" report --stdio --no-children --sort sym -g none -i "$d/t.data" 2>/dev/null |
	awk -v f="$1" '$NF == f { sub(/%/, "", $1); print $1; exit }'; }
child_pct() { "$TALLY" report --stdio --children --sort sym -g none -i "$d/t.data" 2>/dev/null |
	awk -v f="$1" '$NF == f { sub(/%/, "", $1); print $1; exit }'; }

# ---- pprof, read by go tool pprof and protoc
if command -v go >/dev/null; then
	export HOME=${HOME:-/root} GOCACHE=$d/gocache GOFLAGS=-mod=mod
	go tool pprof -top -sample_index=samples -nodecount=100 "$d/p.pb.gz" >"$d/top" 2>"$d/top.err"
	is "go tool pprof reads it" "$?" 0
	check "pprof: the total is the file's samples" grep -q "of $samples total" "$d/top"
	for f in leaf; do
		want=$(self_pct $f); got=$(awk -v f=$f '$NF == f { sub(/%/, "", $2); print $2 }' "$d/top")
		check "pprof: $f's flat share $got% is tally report's $want%" \
			awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	done
	# (leaf keeps no frame of its own at -O1: its caller's frame is skipped)
	for f in main top; do
		want=$(child_pct $f); got=$(awk -v f=$f '$NF == f { sub(/%/, "", $5); print $5 }' "$d/top")
		check "pprof: $f's cumulative share $got% is tally report's children $want%" \
			awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	done
	check "pprof: the main binary is the program" grep -q "^File: tree" "$d/top"
else
	skip "go (golang-go) is not installed: make deps installs it"
fi
if command -v protoc >/dev/null; then
	gunzip -c "$d/p.pb.gz" | protoc --decode perftools.profiles.Profile \
		--proto_path="$ROOT/proto" profile.proto >"$d/dec" 2>"$d/dec.err"
	is "protoc --decode reads it against profile.proto" "$?" 0
	# each sample's first value is its count
	sum=$(awk '/^sample \{/ { s = 1; v = 0 } s && /^  value:/ { if (!v++) t += $2 } /^}/ { s = 0 } END { print t }' "$d/dec")
	is "protoc: the samples' counts sum to the file's samples" "$sum" "$samples"
	check "protoc: functions and mappings are there" \
		sh -c "grep -q '^function {' '$d/dec' && grep -q '^mapping {' '$d/dec'"
else
	skip "protoc (protobuf-compiler) is not installed: make deps installs it"
fi

# ---- the flame graph in Chromium
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
	"$CHROME" --headless=new --no-sandbox --disable-gpu --virtual-time-budget=3000 \
		--dump-dom "file://$d/fg.svg#s=%5Eleaf%24" >"$d/dom" 2>/dev/null
	check "chromium ran the flame graph's script" grep -q 'data-match="1"' "$d/dom"
	want=$(child_pct leaf); got=$(grep -o 'Matched: [0-9.]*%' "$d/dom" | grep -o '[0-9.]*')
	check "search ^leaf\$: 'Matched: $got%' is leaf's children share ($want%)" \
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.01) }'
	check "the frames are named" grep -q 'data-n="top"' "$d/dom"
	# a real click, through playwright-core (npm) driving the same Chromium
	PW=${PW_DIR:-${BUILD:+$ROOT/$BUILD/npm}}
	PW=${PW:-$d/npm}
	if [ ! -d "$PW/node_modules/playwright-core" ] && command -v npm >/dev/null; then
		timeout 120 npm install --silent --no-audit --no-fund --prefix "$PW" playwright-core \
			>/dev/null 2>&1
	fi
	if [ -d "$PW/node_modules/playwright-core" ]; then
		cat >"$d/click.js" <<'EOF'
const { chromium } = require(process.argv[2] + '/node_modules/playwright-core');
(async () => {
	const b = await chromium.launch({ executablePath: process.argv[3], args: ['--no-sandbox'] });
	const p = await b.newPage();
	await p.goto('file://' + process.argv[4]);
	const width = (name) => p.$eval(`g.f[data-n="${name}"] rect`, r => +r.getAttribute('width'));
	const shown = (name) => p.$$eval(`g.f[data-n="${name}"]`,
		gs => gs.filter(g => g.style.display !== 'none').length);
	const before = await width('top'), leaves = await shown('leaf');
	await p.click('g.f[data-n="top"] rect');
	const after = await width('top'), leaves_in = await shown('leaf');
	p.on('dialog', d => d.accept('^leaf$'));
	await p.click('#search');
	const matched = await p.$eval('#matched', t => t.textContent);
	await p.click('#reset');
	const back = await width('top');
	console.log(JSON.stringify({ before, after, leaves, leaves_in, matched, back }));
	await b.close();
})().catch(e => { console.error(e); process.exit(1); });
EOF
		node "$d/click.js" "$PW" "$CHROME" "$d/fg.svg" >"$d/click.out" 2>"$d/click.err"
		is "playwright drove the page" "$?" 0
		r=$(cat "$d/click.out"); r=${r:-null}
		check "click on top: it fills the width ($r)" \
			node -e "const r=$r; process.exit(r && r.after > 1170 && r.before < r.after ? 0 : 1)"
		check "click on top: the leaf outside it is hidden" \
			node -e "const r=$r; process.exit(r && r.leaves == 2 && r.leaves_in == 1 ? 0 : 1)"
		check "Search (a dialog) ^leaf\$: the share shown" \
			node -e "const r=$r; process.exit(r && /Matched: [0-9.]+%/.test(r.matched) ? 0 : 1)"
		check "Reset Zoom: top back to its width" \
			node -e "const r=$r; process.exit(r && Math.abs(r.back - r.before) < 0.5 ? 0 : 1)"
	else
		skip "playwright-core could not be installed from npm: the click is not tried"
	fi
else
	skip "chromium is not installed: make deps installs it"
fi

# ---- speedscope: the published schema's shape, counts equal to the file's
"$TALLY" report -i "$d/t.data" --speedscope "$d/ss.json" 2>/dev/null
is "--speedscope exits 0" "$?" 0
python3 - "$d/ss.json" "$samples" 100000 >"$d/ss.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); samples = int(sys.argv[2]); period = int(sys.argv[3])
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json", "schema"
frames = d["shared"]["frames"]
assert frames and all(isinstance(f["name"], str) and f["name"] for f in frames), "frames"
assert all(isinstance(f.get("file", ""), str) for f in frames), "files"
total = 0
for p in d["profiles"]:
    assert p["type"] == "sampled" and isinstance(p["name"], str), "profile type"
    assert p["unit"] in ("none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes")
    assert len(p["samples"]) == len(p["weights"]), "samples and weights"
    assert all(0 <= i < len(frames) for st in p["samples"] for i in st), "frame index"
    assert p["startValue"] == 0 and p["endValue"] == sum(p["weights"]), "end value"
    total += sum(p["weights"]) // (period if p["unit"] == "nanoseconds" else 1)
assert total == samples, "weights %d vs samples %d" % (total, samples)
print("ok")
EOF
is "speedscope: schema checks pass, weights sum to the samples" "$(tail -1 "$d/ss.out")" ok

# ---- Firefox Profiler (Gecko JSON): the tables' shapes, times in order, the samples all there
"$TALLY" report -i "$d/t.data" --firefox "$d/ff.json" 2>/dev/null
is "--firefox exits 0" "$?" 0
python3 - "$d/ff.json" "$samples" >"$d/ff.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); samples = int(sys.argv[2])
assert isinstance(d["meta"]["version"], int) and isinstance(d["meta"]["interval"], (int, float))
assert d["meta"]["categories"] and all("name" in c for c in d["meta"]["categories"])
total = 0
for t in d["threads"]:
    for k in ("name", "pid", "tid", "samples", "stackTable", "frameTable", "stringTable", "markers"):
        assert k in t, k
    st, ft, strs = t["stackTable"], t["frameTable"], t["stringTable"]
    for table in (t["samples"], st, ft, t["markers"]):
        n = len(table["schema"])
        assert all(len(row) == n for row in table["data"]), "row width"
    ts = t["samples"]["schema"]; ss = st["schema"]; fs = ft["schema"]
    for i, row in enumerate(st["data"]):
        p, f = row[ss["prefix"]], row[ss["frame"]]
        assert p is None or 0 <= p < i, "prefix before its stack"
        assert 0 <= f < len(ft["data"]), "frame index"
    assert all(0 <= row[fs["location"]] < len(strs) for row in ft["data"]), "location string"
    times = [row[ts["time"]] for row in t["samples"]["data"]]
    assert times == sorted(times), "times in order"
    assert all(row[ts["stack"]] is None or 0 <= row[ts["stack"]] < len(st["data"])
               for row in t["samples"]["data"]), "sample stack"
    total += len(t["samples"]["data"])
assert total == samples, "samples %d vs %d" % (total, samples)
print("ok")
EOF
is "firefox: the Gecko tables check, every sample there with its time" "$(tail -1 "$d/ff.out")" ok

# ---- the HTML page: offline, and what it shows agrees with tally report
"$TALLY" report -i "$d/t.data" --html "$d/page.html" 2>/dev/null
is "--html exits 0" "$?" 0
check "the page loads nothing from the network" \
	sh -c "! grep -Eq '(src|href)=.(https?:)?//' '$d/page.html'"
if [ -n "$CHROME" ]; then
	"$CHROME" --headless=new --no-sandbox --disable-gpu --virtual-time-budget=3000 \
		--dump-dom "file://$d/page.html" >"$d/pdom" 2>/dev/null
	is "page: the samples in the summary" \
		"$(grep -o '<td id="samples">[0-9]*' "$d/pdom" | grep -o '[0-9]*$')" "$samples"
	got=$(grep -o '<tr><td class="n" data-v="[0-9]*">[0-9.]*%</td><td class="n" data-v="[0-9]*">[0-9.]*%</td><td>leaf<' \
		"$d/pdom" | head -1 | grep -o '>[0-9.]*%' | head -1 | tr -d '>%')
	want=$(self_pct leaf)
	check "page: leaf's self share $got% is tally report's $want%" \
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	check "page: the flame graph and the callers' icicle are there" \
		sh -c "grep -q 'iframe id=.flamegraph' '$d/pdom' && grep -q 'iframe id=.icicle' '$d/pdom'"
fi
# tally record --html: the data and the page in one step
"$TALLY" record -q -g -o "$d/r.data" --html "$d/r.html" -- "$d/tree" >/dev/null 2>&1
is "record --html exits with the workload's status" "$?" 0
check "record --html: the page is written" grep -q '<h2>Flame graph</h2>' "$d/r.html"
"$TALLY" record -q -o - --html "$d/x.html" -- true >/dev/null 2>"$d/e"; rc=$?
is "record -o - --html: usage error" "$rc" 129
# a page that cannot be written is said before the workload runs, not after
for o in "--html /nonexistent/dir/x.html" "-o /nonexistent/dir/x.data" "--html $d"; do
	rm -f "$d/ran"
	"$TALLY" record -q -o "$d/y.data" $o -- touch "$d/ran" >/dev/null 2>"$d/e"; rc=$?
	is "record $o: exit 1, as -o" "$rc" 1
	check "record $o: the workload did not run" [ ! -e "$d/ran" ]
	check "record $o: tally record names the path and why" \
		grep -qE "^tally record: .*${o#* }: (No such file or directory|Is a directory)" "$d/e"
done

# bad input: an unwritable path is named, the exit status says so
"$TALLY" report -i "$d/t.data" --pprof /nonexistent/dir/p.pb.gz 2>"$d/e"; rc=$?
check "unwritable --pprof path: fails (rc $rc)" [ $rc -ne 0 ]
check "unwritable --pprof path: named" grep -q '/nonexistent/dir/p.pb.gz' "$d/e"
done_testing
