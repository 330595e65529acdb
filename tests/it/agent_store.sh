#!/usr/bin/env bash
# run.sh: slow (it starts first in the pool)
# tally agent against a real ClickHouse (Debian's 18.16, started here on
# free ports): what the agent says it sent is what the store counts; a
# server stopped for 20 s loses nothing; a full queue drops only what it
# counts; a batch retried after a lost reply counts once; a rejected batch
# names the server's message; a replay's totals; two shards behind a
# Distributed table.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_lib.sh"

if ! have_clickhouse; then
	missing "clickhouse-server is not installed (make deps)"
	done_testing; exit 0
fi
start_clickhouse P || { fail "clickhouse-server starts"; done_testing; exit 0; }
tmp=$(mktemp -d); _store_dirs="$_store_dirs $tmp"
URL="http://127.0.0.1:$P/?database=prof"

# field N of the agent's end line in FILE: taken, sent, queued, dropped
endf() {
	sed -n 's/^tally agent: \([0-9]*\) samples taken, [0-9]* batches sent (\([0-9]*\) samples), \([0-9]*\) samples queued, \([0-9]*\) samples dropped.*/\1 \2 \3 \4/p' "$1" |
		tail -1 | cut -d' ' -f"$2"
}
# the store's count of HOST's samples, each batch once
stored() { chq "$P" "SELECT sum(value) FROM ${2:-prof}.samples FINAL WHERE host = '$1'"; }
# samples whose stack the store lacks
orphans() {
	chq "$P" "SELECT count() FROM ${2:-prof}.samples WHERE host = '$1' AND stack_id NOT IN (SELECT stack_id FROM ${2:-prof}.stacks)"
}

"$HELPERS/burn" 600000 >/dev/null 2>&1 &
burn=$!
_store_pids="$_store_pids $burn"

# 1. live: the end line and the store agree, stacks resolved with build ids
"$TALLY" agent --store "$URL" --host-name live1 --interval 1s --duration 4s 2>"$tmp/live.err"
is "agent exits 0 after --duration" "$?" 0
taken=$(endf "$tmp/live.err" 1); sent=$(endf "$tmp/live.err" 2)
check "the agent took samples ($taken)" test "${taken:-0}" -gt 20
is "every sample taken was sent" "$sent" "$taken"
is "the store counts what the agent sent" "$(stored live1)" "$sent"
is "every sample's stack is in the store" "$(orphans live1)" 0
bid=$(readelf -n "$HELPERS/burn" | sed -n 's/.*Build ID: //p')
is "burn's frames carry its function and build id" \
	"$(chq "$P" "SELECT count() > 0 FROM prof.stacks ARRAY JOIN funcs AS f, build_ids AS b WHERE f = 'burn_a' AND b = '$bid'")" 1
is "samples name their process, thread and executable" \
	"$(chq "$P" "SELECT count() > 0 FROM prof.samples WHERE host = 'live1' AND comm = 'burn' AND thread = 'burn' AND exe = '$(readlink -f "$HELPERS/burn")' AND pid = $burn")" 1
is "periods are the clock's nanoseconds (19 Hz: ~52.6 ms each)" \
	"$(chq "$P" "SELECT round(sum(period) / sum(value) / 1e6) BETWEEN 40 AND 70 FROM prof.samples FINAL WHERE host = 'live1'")" 1
# --symbol-cache-size: a budget under one table lets tables go at each interval's end
# and loads them again at their next sample, naming every frame as before
"$TALLY" agent -v --store "$URL" --host-name small1 --symbol-cache-size 4K --interval 1s --duration 4s \
	2>"$tmp/small.err"
is "--symbol-cache-size 4K: exits 0" "$?" 0
line=$(grep 'symbol tables:' "$tmp/small.err")
echo "# $line"
check "--symbol-cache-size 4K: tables let go and loaded again" \
	sh -c "echo '$line' | grep -q ', [1-9][0-9]* let go, [1-9][0-9]* loaded again'"
is "--symbol-cache-size 4K: the store counts what the agent sent" "$(stored small1)" "$(endf "$tmp/small.err" 2)"
is "--symbol-cache-size 4K: burn's frames named" \
	"$(chq "$P" "SELECT count() > 0 FROM prof.stacks ARRAY JOIN funcs AS f WHERE f = 'burn_a' AND stack_id IN (SELECT stack_id FROM prof.samples WHERE host = 'small1')")" 1
is "--symbol-cache-size 4K: each address of a file has the name it has with every table kept" \
	"$(chq "$P" "SELECT count() FROM (SELECT d, o FROM prof.stacks ARRAY JOIN dsos AS d, offsets AS o, funcs AS f
		WHERE stack_id IN (SELECT stack_id FROM prof.samples WHERE host IN ('live1', 'small1')) GROUP BY d, o HAVING uniqExact(f) > 1)")" 0
"$TALLY" agent --store "$URL" --symbol-cache-size 1x --duration 1s 2>"$tmp/small2.err"
is "--symbol-cache-size 1x: a usage error" "$?" 129
# --srcline: the frames' file:line as resolved on the host
"$TALLY" agent --store "$URL" --host-name src1 --srcline --interval 1s --duration 2s 2>/dev/null
is "--srcline: burn's frames carry burn.c's lines" \
	"$(chq "$P" "SELECT count() > 0 FROM prof.stacks ARRAY JOIN funcs AS f, srclines AS l WHERE f = 'burn_a' AND l LIKE 'burn.c:%'")" 1
is "--srcline: no line is unknown ('??')" \
	"$(chq "$P" "SELECT countIf(l LIKE '??%') FROM prof.stacks ARRAY JOIN srclines AS l")" 0
# --upload-symbols: each sampled file's functions, keyed by its build id, once
# 4 s: under ASan in a busy pool 2 s once stored none of burn's; -v says each upload
"$TALLY" agent -v --store "$URL" --host-name up1 --upload-symbols --interval 1s --duration 4s 2>"$tmp/up.err"
is "--upload-symbols: burn's functions are in the store under its build id" \
	"$(chq "$P" "SELECT countIf(name = 'burn_a') FROM prof.symbols WHERE build_id = '$bid'")" 1
grep -i 'upload' "$tmp/up.err" | head -8 | sed 's/^/# /'
"$TALLY" agent --store "$URL" --host-name up2 --upload-symbols --interval 1s --duration 2s 2>/dev/null
is "--upload-symbols: a second agent does not upload the same build again" \
	"$(chq "$P" "SELECT count() = uniqExact(start) FROM prof.symbols WHERE build_id = '$bid'")" 1
kill "$burn" 2>/dev/null	# the rest needs samples, not a busy CPU: the idle ones do

# 2. ClickHouse stopped for 20 s: said, queued, delivered after, nothing lost
"$TALLY" agent --store "$URL" --host-name fault1 --interval 1s 2>"$tmp/fault.err" &
agent=$!
sleep 2
ch_stop "$CH_PID"
sleep 20
check "the agent says the store is unreachable and what it queues" \
	grep -q "Couldn't connect to server; retrying with backoff, [0-9]* batches ([0-9]* bytes, [0-9]* samples) queued" "$tmp/fault.err"
check "the agent kept sampling while the store was down" kill -0 "$agent"
ch_run "$CH_DIR" || fail "clickhouse restarts"
for _ in $(seq 60); do grep -q "answers again" "$tmp/fault.err" && break; sleep 1; done
check "the agent says when the store answers again" grep -q "answers again: sending the [0-9]* batches queued" "$tmp/fault.err"
sleep 2
kill -TERM "$agent"; wait "$agent"
is "SIGTERM: the agent flushes and exits 0" "$?" 0
taken=$(endf "$tmp/fault.err" 1); sent=$(endf "$tmp/fault.err" 2)
is "after the outage nothing is queued" "$(endf "$tmp/fault.err" 3)" 0
is "after the outage nothing was dropped" "$(endf "$tmp/fault.err" 4)" 0
is "every sample taken during the outage was sent after it" "$sent" "$taken"
is "the store counts what the agent sent, the outage's included" "$(stored fault1)" "$sent"

# 3. a small queue while the store is down: the oldest batches go, counted; their stacks do not
"$TALLY" agent --store "$URL" --host-name queue1 --interval 300ms --queue-size 6K 2>"$tmp/queue.err" &
agent=$!
sleep 1
ch_stop "$CH_PID"
sleep 6
ch_run "$CH_DIR" || fail "clickhouse restarts"
for _ in $(seq 60); do grep -q "answers again" "$tmp/queue.err" && break; sleep 1; done
sleep 2
kill -TERM "$agent"; wait "$agent"
taken=$(endf "$tmp/queue.err" 1); sent=$(endf "$tmp/queue.err" 2); dropped=$(endf "$tmp/queue.err" 4)
check "the full queue dropped batches ($dropped samples) and said so" \
	sh -c "test ${dropped:-0} -gt 0 && grep -q 'queue full (6144 bytes, --queue-size): dropped a batch of' '$tmp/queue.err'"
is "taken = sent + dropped: nothing went uncounted" "$((sent + dropped))" "$taken"
is "the store counts what the agent sent" "$(stored queue1)" "$sent"
is "a dropped batch's stacks still reach the store (no sample without its stack)" "$(orphans queue1)" 0

# 4. a reply lost after the server took the batch: the retry is the same batch, counted once
pport=$(free_port)
python3 - "$pport" "$P" "$tmp/proxy.log" <<'PY' &
import http.client, http.server, sys, threading, urllib.parse
port, ch, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
drop = {"n": 1}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        q = urllib.parse.unquote(self.path)
        c = http.client.HTTPConnection("127.0.0.1", ch, timeout=30)
        c.request("POST", self.path, body)
        r = c.getresponse(); data = r.read()
        if "INSERT INTO prof.samples" in q:
            with open(log, "a") as f:
                f.write("%s\n" % body.split(b"\t")[3].decode())
            if drop["n"] > 0:          # the server has it; the agent never hears
                drop["n"] -= 1
                self.close_connection = True
                self.connection.shutdown(2)
                return
        self.send_response(r.status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
proxy=$!
_store_pids="$_store_pids $proxy"
for _ in $(seq 50); do curl -s "http://127.0.0.1:$pport/" -d 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
"$TALLY" agent --store "http://127.0.0.1:$pport/?database=prof" --host-name retry1 --interval 1s --duration 3s 2>"$tmp/retry.err"
taken=$(endf "$tmp/retry.err" 1); sent=$(endf "$tmp/retry.err" 2)
is "the proxy saw one batch id twice (the retry)" "$(sort "$tmp/proxy.log" | uniq -d | wc -l)" 1
is "after the retry every sample taken was sent" "$sent" "$taken"
is "the store counts the retried batch once" "$(stored retry1)" "$sent"
kill "$proxy" 2>/dev/null

# 5. a store that rejects batches (a column dropped by hand): the server's message
"$TALLY" agent --store "http://127.0.0.1:$P/?database=broken" --replay /dev/null >/dev/null 2>&1
chq "$P" "ALTER TABLE broken.samples DROP COLUMN cgroup"
"$TALLY" agent --store "http://127.0.0.1:$P/?database=broken" --no-create --host-name bad1 --interval 1s --duration 3s 2>"$tmp/bad.err"
check "a rejected batch is said with the server's own message" grep -q "ClickHouse at .*: HTTP 500: Code: [0-9]*, e.displayText() = DB::Exception" "$tmp/bad.err"
is "a rejected batch is not counted as sent" "$(endf "$tmp/bad.err" 2)" 0

# 6. credentials from a file, never argv; a wrong password is the server's refusal
printf 'user=agent\npassword=s3cret\n' >"$tmp/auth"
"$TALLY" agent --store "$URL" --store-auth-file "$tmp/auth" --host-name auth1 --interval 1s --duration 2s 2>"$tmp/auth.err"
is "the agent's user writes" "$(stored auth1)" "$(endf "$tmp/auth.err" 2)"
printf 'agent:wrong\n' >"$tmp/auth2"
"$TALLY" agent --store "$URL" --store-auth-file "$tmp/auth2" --duration 1s 2>"$tmp/auth2.err"
is "a wrong password: exit 1" "$?" 1
check "a wrong password: the server's message" grep -q "Code: 193.*[Ww]rong password" "$tmp/auth2.err"
TALLY_STORE_USER=agent TALLY_STORE_PASSWORD=s3cret "$TALLY" agent --store "$URL" --host-name auth2 --interval 1s --duration 1s 2>/dev/null
check "credentials from the environment" test "$(stored auth2)" -gt 0

# 7. a replay: every batch accepted, the totals the file's times the repeats
f=$tmp/rec.data
"$TALLY" record -q -g -F 2000 -o "$f" -- "$HELPERS/burn" 400 >/dev/null 2>&1
n=$(perf script -i "$f" -F tid 2>/dev/null | wc -l)
"$TALLY" agent --store "$URL" --replay "$f" --host-name rep1 --replay-repeat 5 --interval 100ms 2>"$tmp/rep.err"
is "replay exits 0" "$?" 0
is "replay: the agent sent the file's samples 5 times" "$(endf "$tmp/rep.err" 2)" "$((5 * n))"
is "replay: the store counts them" "$(stored rep1)" "$((5 * n))"
is "replay: nothing queued or dropped" "$(endf "$tmp/rep.err" 3)/$(endf "$tmp/rep.err" 4)" "0/0"
is "replay: the repeats span time back to back" \
	"$(chq "$P" "SELECT uniqExact(time) >= 5 FROM prof.samples WHERE host = 'rep1'")" 1
"$TALLY" agent --store "$URL" --replay "$tmp/none.data" --host-name x 2>"$tmp/rep2.err"
is "replay of a missing file: exit 1" "$?" 1
check "replay of a missing file: said" grep -q "replay $tmp/none.data: No such file" "$tmp/rep2.err"

# 10. DWARF chains for chosen processes: code without frame pointers gets its whole stack
cc -O2 -fomit-frame-pointer -g -o "$tmp/dwprog" "$(dirname "$0")/../data/progs/dw.c"
"$tmp/dwprog" 100000 & dwp=$!
_store_pids="$_store_pids $dwp"
"$TALLY" agent --store "$URL" --host-name dw1 --dwarf-comm dwprog --interval 1s --duration 3s 2>"$tmp/dw1.err"
"$TALLY" agent --store "$URL" --host-name dw2 --dwarf-pid "$dwp" --interval 1s --duration 3s 2>"$tmp/dw2.err"
"$TALLY" agent --store "$URL" --host-name fp1 --interval 1s --duration 3s 2>/dev/null
kill "$dwp" 2>/dev/null
# its stacks, leaf first, as 'c,b,a,main' strings
chain() {
	chq "$P" "SELECT DISTINCT arrayStringConcat(arraySlice(funcs, 1, 4), ',') FROM prof.stacks
		WHERE stack_id IN (SELECT stack_id FROM prof.samples WHERE host = '$1' AND comm = 'dwprog')"
}
check "--dwarf-comm: the process's stacks are whole (c, b, a, main)" sh -c "echo '$(chain dw1)' | grep -qx 'c,b,a,main'"
check "--dwarf-pid: the same" sh -c "echo '$(chain dw2)' | grep -qx 'c,b,a,main'"
check "frame pointers alone: not whole (the oracle holds)" sh -c "! echo '$(chain fp1)' | grep -qx 'c,b,a,main'"
is "--dwarf-comm: every sample taken was sent" "$(endf "$tmp/dw1.err" 2)" "$(endf "$tmp/dw1.err" 1)"
is "--dwarf-comm: the store counts them" "$(stored dw1)" "$(endf "$tmp/dw1.err" 2)"

# 9. retention: --retention DAYS drops the older days' partitions, today's stay
chq "$P" "INSERT INTO prof.samples (date, time, host, batch_id, stack_id, value) VALUES ('2020-01-01', 1577836800, 'old1', 1, 1, 5)"
chq "$P" "INSERT INTO prof.stacks (date, stack_id) VALUES ('2020-01-01', 1)"
before=$(chq "$P" "SELECT count() FROM prof.samples WHERE date = today()")
"$TALLY" agent --store "$URL" --host-name ret1 --retention 7 --interval 1s --duration 2s 2>"$tmp/ret.err"
check "--retention says what it dropped" grep -q -- "--retention 7: dropped 2 old partitions" "$tmp/ret.err"
is "--retention: the old day is gone from both tables" \
	"$(chq "$P" "SELECT (SELECT count() FROM prof.samples WHERE date < today() - 7) + (SELECT count() FROM prof.stacks WHERE date < today() - 7)")" 0
check "--retention: today's rows stay" test "$(chq "$P" "SELECT count() FROM prof.samples WHERE date = today()")" -gt "$before"

# 8. two shards, a Distributed table over them: each host on its own shard, read across both
t1=$(free_port); t2=$(free_port); h2=$(free_port)
R="<remote_servers><fleet><shard><replica><host>127.0.0.1</host><port>$t1</port></replica></shard><shard><replica><host>127.0.0.1</host><port>$t2</port></replica></shard></fleet></remote_servers>"
s1=$tmp/s1; s2=$tmp/s2
ch_config "$s1" "$(free_port)" "$t1" "$R"; ch_config "$s2" "$h2" "$t2" "$R"
ch_run "$s1" && p1=$(sed -n 's:.*<http_port>\([0-9]*\)</http_port>.*:\1:p' "$s1/config.xml")
ch_run "$s2" || fail "the second shard starts"
"$TALLY" agent --store "http://127.0.0.1:$p1/?database=prof" --replay "$f" --host-name shard1 2>/dev/null
"$TALLY" agent --store "http://127.0.0.1:$h2/?database=prof" --replay "$f" --host-name shard2 --replay-repeat 2 2>/dev/null
chq "$p1" "CREATE DATABASE fleet"
chq "$p1" "CREATE TABLE fleet.samples AS prof.samples ENGINE = Distributed(fleet, prof, samples, cityHash64(host))"
chq "$p1" "CREATE TABLE fleet.stacks AS prof.stacks ENGINE = Distributed(fleet, prof, stacks, stack_id)"
is "the Distributed table reads both shards' hosts" \
	"$(chq "$p1" "SELECT host, sum(value) FROM fleet.samples FINAL GROUP BY host ORDER BY host" | tr '\t\n' ' ')" \
	"shard1 $n shard2 $((2 * n)) "
is "the Distributed stacks serve both shards' samples" \
	"$(chq "$p1" "SELECT count() FROM fleet.samples WHERE stack_id GLOBAL NOT IN (SELECT stack_id FROM fleet.stacks)")" 0

done_testing
