#!/usr/bin/env bash
# run.sh: slow (it starts first in the pool)
# tally report's pictures, checked by their real readers:
#  --pprof: `go tool pprof -top` lists the functions and shares tally
#    report does; `protoc --decode` reads it against profile.proto and its
#    sample counts sum to the file's samples.
#  --flamegraph: headless Chromium runs the SVG's script: a search
#    highlights the frames and says the share tally report gives; a click
#    (playwright-core driving Chromium) zooms, Reset Zoom restores.
#  --speedscope: speedscope's page (its npm bundle, in Chromium) imports
#    it: a profile per thread, opened on the busiest, each thread's samples
#    in time order as tally script has them.
#  --firefox: the Firefox Profiler's own importer (npm profiler-cli, which
#    bundles it) loads the file; its sample count and shares are tally's.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); pqpid=
trap '[ -n "$pqpid" ] && kill "$pqpid" 2>/dev/null; mountpoint -q "$d/small" && umount "$d/small"; rm -rf "$d"' EXIT
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
# the flame graph alone is drawn from the histogram, not from the stacks: the same file
"$TALLY" report -i "$d/t.data" --flamegraph "$d/fg1.svg" 2>/dev/null
check "--flamegraph alone (no stacks made) writes the file --pprof's stacks draw" \
	cmp -s "$d/fg.svg" "$d/fg1.svg"
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
	# source lines from DWARF: burn (built -g) as -lines and -list show it
	"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/b.data" -- "$HELPERS/burn" 300 >/dev/null 2>&1
	"$TALLY" report -i "$d/b.data" --pprof "$d/b.pb.gz" 2>/dev/null
	src=$ROOT/tests/helpers/burn.c
	(cd "$ROOT" && go tool pprof -lines -top -sample_index=samples "$d/b.pb.gz") >"$d/btop" 2>&1
	for f in burn_a burn_b burn_c; do
		line=$(grep -n "void $f(" "$src" | cut -d: -f1)
		check "pprof -lines: $f at burn.c:$line, its definition's line" \
			grep -Eq " $f (.*/)?tests/helpers/burn\.c:$line\$" "$d/btop"
	done
	(cd "$ROOT" && go tool pprof -list '^burn_a$' -sample_index=samples "$d/b.pb.gz") >"$d/blist" 2>&1
	check "pprof -list burn_a: the routine is in burn.c" grep -Eq "^ROUTINE =+ burn_a in (.*/)?tests/helpers/burn\.c" "$d/blist"
	want=$("$TALLY" report --stdio --no-children --sort sym -g none -n -i "$d/b.data" 2>/dev/null |
		awk '$NF == "burn_a" { print $2; exit }')
	check "pprof -list burn_a: its source line holds its $want samples (flat)" \
		grep -Eq "^ +$want +[0-9]+ +[0-9]+:.*void burn_a\(" "$d/blist"
	# chains perf drops (a garbage context marker): the sampled frame stays,
	# so pprof's flat column is report's self one (the map is at 0x400000)
	python3 "$ROOT/tests/it/craft_data.py" bad-context "$d/bad.data"
	"$TALLY" report -i "$d/bad.data" --pprof "$d/bad.pb.gz" 2>/dev/null
	go tool pprof -top -addresses -sample_index=samples "$d/bad.pb.gz" >"$d/badtop" 2>&1
	"$TALLY" report --stdio --no-children --sort sym -g none -i "$d/bad.data" 2>/dev/null |
		awk '$2 == "[.]" { print $1, $3 }' | while read -r pct a; do
			printf '%s %016x\n' "$pct" $((0x400000 + a)); done >"$d/badwant"
	got=$(awk '$6 ~ /^[0-9a-f]+$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { print $2, $6 }' "$d/badtop" | sort)
	check "dropped chains: pprof's flat shares are report's self ones ($(echo $got))" \
		test -s "$d/badwant" -a "$got" = "$(sort "$d/badwant")"
	go tool pprof -raw "$d/b.pb.gz" >"$d/braw" 2>&1
	bid=$(readelf -n "$HELPERS/burn" | awk '/Build ID/ { print $3 }')
	check "pprof: the program's mapping has its build id and lines" \
		grep -Eq "$HELPERS/burn $bid \[FN\]\[FL\]\[LN\]" "$d/braw"
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
	PW=${PW_DIR:-$NPM_DIR}
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
		# (leaf's frames: under top, and under side outside it; a loaded machine
		# can add a chain that lost a caller (a sample at leaf's entry): so
		# some, not a count, are hidden)
		check "click on top: the leaf outside it is hidden" \
			node -e "const r=$r; process.exit(r && r.leaves >= 2 && r.leaves_in >= 1 && r.leaves_in < r.leaves ? 0 : 1)"
		check "Search (a dialog) ^leaf\$: the share shown" \
			node -e "const r=$r; process.exit(r && /Matched: [0-9.]+%/.test(r.matched) ? 0 : 1)"
		check "Reset Zoom: top back to its width" \
			node -e "const r=$r; process.exit(r && Math.abs(r.back - r.before) < 0.5 ? 0 : 1)"
	else
		missing "playwright-core could not be installed from npm: the click is not tried"
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
# speedscope's own importer, in its page (playwright-core driving Chromium):
# phases runs phase_a, phase_b, phase_a in a worker after a short warm-up
# on the main thread. What the page imported is read back through its own
# export (Ctrl+S: the profiles as it holds them, each in time order).
SS_HTML=$NPM_DIR/node_modules/speedscope/dist/release/index.html
PW=${PW_DIR:-$NPM_DIR}
if [ -z "$CHROME" ]; then
	skip "chromium is not installed: speedscope's page is not tried (make deps installs it)"
elif [ ! -f "$SS_HTML" ]; then
	missing "speedscope's page ($SS_HTML, npm speedscope) is not installed: make deps"
elif [ ! -d "$PW/node_modules/playwright-core" ]; then
	missing "playwright-core (npm) is not installed: speedscope's page is not tried (make deps)"
else
	cc -O1 -g -fno-omit-frame-pointer -pthread -o "$d/phases" "$ROOT/tests/data/progs/phases.c"
	"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/ph.data" -- "$d/phases" 40 >/dev/null 2>&1
	"$TALLY" report -i "$d/ph.data" --speedscope "$d/ph.json" 2>/dev/null
	# tally script's samples, in time order: "tid leaf phase" each
	"$TALLY" script -F comm,tid,ip,sym -i "$d/ph.data" 2>/dev/null | awk '
		function out() { if (tid != "") print tid, leaf, (ph == "" ? "-" : ph) }
		/^[^ \t]/ { out(); tid = $2; leaf = ""; ph = "" }
		/^\t/ { if (leaf == "") leaf = $2; if ($2 == "phase_a") ph = "a"; if ($2 == "phase_b") ph = "b" }
		END { out() }' >"$d/ph.script"
	wtid=$(awk '{ n[$1]++ } END { for (t in n) if (n[t] > m) { m = n[t]; b = t }; print b }' "$d/ph.script")
	awk -v t="$wtid" '$1 == t' "$d/ph.script" >"$d/ph.w"
	cat >"$d/ss.js" <<'EOF'
const fs = require('fs'), path = require('path');
const [pw, chrome, html, file, want, period] = process.argv.slice(2);
const { chromium } = require(pw + '/node_modules/playwright-core');
(async () => {
	const b = await chromium.launch({ executablePath: chrome, args: ['--no-sandbox'] });
	const p = await (await b.newContext({ acceptDownloads: true })).newPage();
	// as speedscope's own command line does: a script hands the file to the page
	const loader = file + '.load.js';
	fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
		JSON.stringify(fs.readFileSync(file).toString('base64')) + ')');
	await p.goto('file://' + html + '#localProfilePath=' + loader);
	await p.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 20000 });
	// the toolbar names the profile on screen: "NAME (i/N)"
	const shown = await p.$$eval('span', ss => ss.map(s => s.textContent).find(t => / \(\d+\/\d+\)$/.test(t)));
	const [dl] = await Promise.all([p.waitForEvent('download'), p.keyboard.press('Control+s')]);
	const x = JSON.parse(fs.readFileSync(await dl.path()));
	const f = x.shared.frames, prof = x.profiles.find(q => q.name === want);
	// the time order: between two events, the stack then open is that of
	// (next.at - e.at) / period samples
	const segs = [], st = [], runs = [];
	prof.events.forEach((e, i) => {
		if (e.type === 'O') st.push(f[e.frame].name); else st.pop();
		const next = prof.events[i + 1];
		if (next && next.at > e.at && st.length) segs.push([st.slice(), (next.at - e.at) / period]);
	});
	// the phases' runs: "phase:samples" each, samples in neither left out
	for (const [s, n] of segs) {
		const ph = s.includes('phase_a') ? 'a' : s.includes('phase_b') ? 'b' : '';
		if (ph && runs.length && runs.at(-1)[0] === ph) runs.at(-1)[1] += n;
		else if (ph) runs.push([ph, n]);
	}
	const seq = runs.map(r => r.join(':')).join(' ');
	// (an address no symbol holds: tally names it, tally script says [unknown])
	const leaf = s => s[0].at(-1).replace(/^0x[0-9a-f]+$/, '[unknown]');
	console.log([await p.title(), shown.replace(/ \(\d+\/\d+\)$/, ''), x.profiles[x.activeProfileIndex].name,
		seq, leaf(segs[0]), leaf(segs.at(-1)), x.profiles.map(q => q.name).sort().join(';')].join('\n'));
	await b.close();
})().catch(e => { console.error(e); process.exit(1); });
EOF
	timeout 60 node "$d/ss.js" "$PW" "$CHROME" "$SS_HTML" "$d/ph.json" "phases ($wtid)" 100000 >"$d/ss.page" 2>"$d/ss.err"
	is "speedscope's page imports the file" "$?" 0
	{ read -r title; read -r shown; read -r active; read -r seq; read -r first; read -r last
	  read -r names; } <"$d/ss.page"
	# a sample before its thread's COMM is ":TID" in script; the pictures
	# name it as the thread's rows do, by the name it got next
	want=$("$TALLY" script -F comm,tid -i "$d/ph.data" 2>/dev/null |
		awk '{ c[NR] = $1; t[NR] = $2; if ($1 !~ /^:/) name[$2] = $1 }
		     END { for (i = 1; i <= NR; i++)
				print (c[i] ~ /^:/ && (t[i] in name) ? name[t[i]] : c[i]) " (" t[i] ")" }' |
		sort -u | paste -sd';')
	is "speedscope: a profile per thread, named 'comm (tid)'" "$names" "$want"
	is "speedscope: it opens on the busiest thread, tally script's tid $wtid" \
		"$active/$shown" "phases ($wtid)/phases ($wtid)"
	# runs of a phase and their samples: phase_a, phase_b, phase_a again, as tally script's
	want=$(awk '$3 != "-" { if ($3 != p && p != "") printf "%s:%d ", p, n; if ($3 != p) n = 0; p = $3; n++ }
		END { if (p != "") printf "%s:%d", p, n }' "$d/ph.w")
	check "tally script: the worker ran phase_a, phase_b, phase_a ($want)" \
		sh -c "echo '$want' | grep -Eq '^a:[0-9]+ b:[0-9]+ a:[0-9]+\$'"
	is "speedscope: the worker's phases in time order, each run's samples tally script's" "$seq" "$want"
	is "speedscope: the time order's first sample is tally script's first" \
		"$first" "$(awk 'NR == 1 { print $2 }' "$d/ph.w")"
	is "speedscope: the time order's last sample is tally script's last" \
		"$last" "$(awk 'END { print $2 }' "$d/ph.w")"
	is "speedscope: the group's name is the recorded command and its event" \
		"${title##* -- }" "$d/phases 40 (cpu-clock) - speedscope"
fi

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
# the profiler's importer, as profiler.firefox.com runs it on a dropped file
PQ=$NPM_DIR/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js
NODE24=$NPM_DIR/node_modules/.bin/node
if [ -f "$PQ" ] && [ -x "$NODE24" ]; then
	export PROFILER_CLI_SESSION_DIR=$d/pq PROFILER_CLI_NO_SYMBOLICATE=1
	pq() { timeout 150 "$NODE24" "$PQ" "$@" --session t; }
	# its daemon loads the file and says so in its log. No client is
	# asked before: one that reads the session's metadata while the
	# daemon writes it takes the session for dead and deletes it (a busy
	# machine)
	"$NODE24" "$PQ" --daemon "$d/ff.json" --session t >"$d/pq.daemon" 2>&1 & pqpid=$!
	end=$((SECONDS + 120))
	while [ "$SECONDS" -lt "$end" ] && kill -0 "$pqpid" 2>/dev/null &&
	      ! grep -Eq 'Profile loaded successfully|Failed to load profile' "$d/pq/t.log" 2>/dev/null; do
		sleep 0.2
	done
	for _ in 1 2 3; do  # a client's connect times out after 1 s: once more
		pq status >"$d/pq.st" 2>&1 && grep -q 'Selected thread' "$d/pq.st" && break
		sleep 1
	done
	why=$( (head -3 "$d/pq.st"; tail -2 "$d/pq.daemon"; tail -3 "$d/pq/t.log" 2>/dev/null) | tr '\n' ' ')
	grep -q 'Selected thread' "$d/pq.st" || echo "# importer: $why"
	check "the Firefox Profiler's importer takes the file" grep -q 'Selected thread' "$d/pq.st"
	pq thread samples --include-idle --json >"$d/pq.json" 2>&1
	got=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const l = r.topFunctionsByTotal.find(f => f.name.startsWith("leaf "));
		console.log(r.categoryBreakdown.totalSamples, l ? l.totalPercentage.toFixed(2) : "")' \
		"$d/pq.json" 2>/dev/null)
	is "firefox importer: the samples are the file's" "${got% *}" "$samples"
	want=$(child_pct leaf); got=${got#* }
	check "firefox importer: leaf's total share $got% is tally report's children $want%" \
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	pq stop >/dev/null 2>&1
	wait "$pqpid" 2>/dev/null; pqpid=
else
	missing "the Firefox Profiler's importer (npm profiler-cli, node@24) is not installed: make deps"
fi

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
	got=$(grep -o '<tr[^>]*><td class="n" data-v="[0-9]*">[0-9.]*%</td><td class="n" data-v="[0-9]*">[0-9.]*%</td><td>leaf<' \
		"$d/pdom" | head -1 | grep -o '>[0-9.]*%' | head -1 | tr -d '>%')
	want=$(self_pct leaf)
	check "page: leaf's self share $got% is tally report's $want%" \
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	check "page: the flame graph and the callers' icicle are there" \
		sh -c "grep -q 'iframe id=.flamegraph' '$d/pdom' && grep -q 'iframe id=.icicle' '$d/pdom'"
	check "page: no annotation open at first" sh -c "! grep -q 'class=.ann open' '$d/pdom'"
	# leaf opened at load (#ann=leaf): its hottest instruction with perf annotate's share
	"$CHROME" --headless=new --no-sandbox --disable-gpu --virtual-time-budget=3000 \
		--dump-dom "file://$d/page.html#ann=leaf" >"$d/adom" 2>/dev/null
	open=$(grep -o '<section class="ann open" id="ann-[0-9]*" data-fn="[^"]*"' "$d/adom" | grep -o 'data-fn="[^"]*"')
	is "page: #ann=leaf opens leaf's annotation, and only it" "$open" 'data-fn="leaf"'
	hot=$(awk '/<section class="ann open"/ { on = 1 } on && /class="i hottest"/ { print; exit }' "$d/adom" |
		grep -o 'data-p="[0-9.]*"' | grep -o '[0-9.]*')
	if have_perf; then
		want=$(perf annotate --stdio -s leaf -i "$d/t.data" 2>/dev/null |
			awk '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:/ { if ($1 + 0 > m) m = $1 + 0 } END { printf "%.2f", m }')
		check "page: leaf's hottest instruction $hot% is perf annotate's $want%" \
			awk -v a="$hot" -v b="$want" 'BEGIN { exit !(a != "" && (a - b) ^ 2 < 0.0001) }'
	fi
fi
# the page's annotations stay bounded: only functions with >= 1% of the
# samples, at most 16, each at most 2000 lines; a function without code
# says so instead
nsec=$(grep -c '<section class="ann"' "$d/page.html")
check "page: hot functions annotated ($nsec), at most 16" [ "$nsec" -ge 1 -a "$nsec" -le 16 ]
rows=$(grep -c '<tr data-ann=' "$d/page.html")
is "page: a row opens each annotation" "$rows" "$nsec"
bad=$(grep -o '<tr data-ann="ann-[0-9]*"><td class="n" data-v="[0-9]*">[0-9.]*%' "$d/page.html" |
	grep -o '>[0-9.]*%' | tr -d '>%' | awk '$1 < 1' | wc -l)
is "page: every annotated function has >= 1% of the samples" "$bad" 0
big=$(awk '/<section class="ann/ { n = 0 } /<tr class="i/ { if (++n > m) m = n } END { print m + 0 }' "$d/page.html")
check "page: at most 2000 instructions per function ($big)" [ "$big" -le 2000 ]
# 24 functions of ~4% each: 16 annotated, the hottest first, the page bounded
{ echo 'volatile long x;'
  for i in $(seq 0 23); do echo "__attribute__((noinline)) void f$i(long n) { for (long k = 0; k < n; k++) x += k ^ $i; }"; done
  echo 'int main(void) {'; for i in $(seq 0 23); do echo "f$i(6000000);"; done; echo 'return 0; }'; } >"$d/many.c"
cc -O1 -g -o "$d/many" "$d/many.c"
"$TALLY" record -q -e cpu-clock -c 100000 -g -o "$d/many.data" -- "$d/many" >/dev/null 2>&1
"$TALLY" report -i "$d/many.data" --html "$d/many.html" 2>/dev/null
nsec=$(grep -c '<section class="ann"' "$d/many.html")
is "24 hot functions: 16 annotated" "$nsec" 16
later=$(grep -o '<tr data-ann="ann-[0-9]*"><td class="n" data-v="[0-9]*"' "$d/many.html" | grep -o '[0-9]*"$' | tr -d '"' | sort -n | head -1)
rest=$(grep -o '<tr><td class="n" data-v="[0-9]*"' "$d/many.html" | grep -o '[0-9]*"$' | tr -d '"' | sort -n | tail -1)
check "24 hot functions: the 16 hottest annotated (least $later >= any other's $rest)" [ "${later:-0}" -ge "${rest:-0}" ]
size=$(stat -c %s "$d/many.html")
check "24 hot functions: the page is $size bytes, under 2 MB" [ "$size" -lt 2097152 ]
# JIT code (named in perf-PID.map): no file holds its bytes, the page says so
if [ "$(uname -m)" = x86_64 ] && cc -O1 -o "$d/jit" "$ROOT/tests/data/progs/jit.c" 2>/dev/null; then
	"$TALLY" record -q -F 999 -o "$d/jit.data" -- "$d/jit" >/dev/null 2>&1
	"$TALLY" report -i "$d/jit.data" --html "$d/jit.html" 2>/dev/null
	check "page: JIT code's annotation says there is none, and why" \
		sh -c "grep -A2 'data-fn=\"jitted_loop\"' '$d/jit.html' | grep -q 'No annotation: .*JIT'"
	"$TALLY" script -F pid -i "$d/jit.data" 2>/dev/null | sort -u |
		sed 's|^ *\([0-9]*\).*|/tmp/perf-\1.map|' | xargs rm -f
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

# a file without samples: perf's words and status, and no picture written
"$TALLY" record -q -e cpu-clock -c 1000000000 -o "$d/none.data" -- true >/dev/null 2>&1
"$TALLY" report -i "$d/none.data" --flamegraph "$d/none.svg" --pprof "$d/none.pb.gz" \
	--speedscope "$d/none.json" --html "$d/none.html" 2>"$d/none.err"; rc=$?
check "no samples: no picture written" \
	sh -c "! ls '$d'/none.svg '$d'/none.pb.gz '$d'/none.json '$d'/none.html 2>/dev/null | grep -q ."
if have_perf; then
	perf report --stdio -i "$d/none.data" >/dev/null 2>"$d/pnone.err"; prc=$?
	is "no samples: the exit status is perf report's" "$rc" "$prc"
	is "no samples: the message is perf report's" "$(cat "$d/none.err")" "$(cat "$d/pnone.err")"
else
	check "no samples: said" grep -q 'has no samples' "$d/none.err"
fi
# no call chains: the flame graph is one level deep, said once with the reason
"$TALLY" record -q -e cpu-clock -c 100000 -o "$d/flat.data" -- "$d/tree" >/dev/null 2>&1
"$TALLY" report -i "$d/flat.data" --flamegraph "$d/flat.svg" --html "$d/flat.html" 2>"$d/flat.err"
is "no chains: exits 0, the graph written" "$?/$(grep -c '<svg' "$d/flat.svg")" "0/1"
is "no chains: said once that the graph is one level deep" "$(grep -c 'one level deep' "$d/flat.err")" 1
check "no chains: and why" grep -q 'recorded without -g/--call-graph' "$d/flat.err"
"$TALLY" report -i "$d/flat.data" --flamegraph "$d/flat1.svg" 2>"$d/flat1.err"
check "no chains: the graph alone is the same, the reason said once" \
	sh -c "cmp -s '$d/flat.svg' '$d/flat1.svg' && [ \$(grep -c 'one level deep' '$d/flat1.err') = 1 ]"

# a full disk: the path named with ENOSPC's words, no half picture left
"$TALLY" report -i "$d/t.data" --flamegraph /dev/full 2>"$d/e"; rc=$?
check "/dev/full: fails (rc $rc)" [ $rc -ne 0 ]
check "/dev/full: 'No space left on device', the path named" \
	grep -q '/dev/full: .*No space left on device' "$d/e"
check "/dev/full: still the device" test -c /dev/full
mkdir "$d/small"
if mount -t tmpfs -o size=64k tmpfs "$d/small" 2>/dev/null; then
	echo old >"$d/small/page.html"
	# nothing left: a write fails at its first flush
	dd if=/dev/zero of="$d/small/filler" bs=4k count=15 2>/dev/null
	for o in "--html page.html" "--flamegraph fg.svg" "--speedscope ss.json" "--firefox ff.json"; do
		set -- $o
		"$TALLY" report -i "$d/t.data" "$1" "$d/small/$2" 2>"$d/e"; rc=$?
		check "64k tmpfs, $1: fails (rc $rc), says 'No space left on device' naming the path" \
			sh -c "[ $rc -ne 0 ] && grep -q '$d/small/$2: .*No space left on device' '$d/e'"
	done
	is "64k tmpfs: no half picture nor temporary left, the old page intact" \
		"$(ls "$d/small" | tr '\n' ' ')/$(cat "$d/small/page.html")" "filler page.html /old"
	umount "$d/small"
else
	skip "cannot mount a tmpfs (not root?): the full disk is tried on /dev/full alone"
fi

# bad input: an unwritable path is named, the exit status says so
"$TALLY" report -i "$d/t.data" --pprof /nonexistent/dir/p.pb.gz 2>"$d/e"; rc=$?
check "unwritable --pprof path: fails (rc $rc)" [ $rc -ne 0 ]
check "unwritable --pprof path: named" grep -q '/nonexistent/dir/p.pb.gz' "$d/e"
done_testing
