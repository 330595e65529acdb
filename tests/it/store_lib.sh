# Real servers for the agent's tests: ClickHouse (Debian's 18.16) and
# Prometheus, started as ordinary processes on free ports, with configs
# and data of their own under a scratch directory, stopped at exit.
# Source after lib.sh. Each start_* sets the port in a variable named
# by its caller and registers the process for the EXIT trap.
_store_pids=""
_store_dirs=""
store_cleanup() {
	for p in $_store_pids; do kill "$p" 2>/dev/null; done
	for p in $_store_pids; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	for d in $_store_dirs; do rm -rf "$d"; done
}
trap store_cleanup EXIT

# free_port: a TCP port nothing listens on now (the kernel's pick), and
# none handed out in the last 10 minutes to this test or another one run
# beside it (a port is only taken when its server binds it: two calls in a
# row may otherwise get the same one)
free_port() {
	python3 - <<'PY'
import fcntl, os, socket, time
path = "/tmp/tally-test-ports"
with open(path, "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    now = time.time()
    recent = {}
    for line in f:
        try:
            port, t = line.split()
            if now - float(t) < 600:
                recent[int(port)] = float(t)
        except ValueError:
            pass
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port not in recent:
            break
    recent[port] = now
    f.seek(0); f.truncate()
    f.writelines("%d %f\n" % (p, t) for p, t in recent.items())
    print(port)
PY
}

have_clickhouse() { command -v clickhouse-server >/dev/null 2>&1; }
have_prometheus() { command -v prometheus >/dev/null 2>&1; }

# ch_config DIR HTTP TCP [REMOTE_SERVERS_XML]: a server's config in DIR
ch_config() {
	local d=$1 http=$2 tcp=$3 remote=${4:-}
	mkdir -p "$d/data" "$d/tmp" "$d/uf" "$d/fs"
	cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log</log><errorlog>$d/err.log</errorlog></logger>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/uf/</user_files_path>
  <format_schema_path>$d/fs/</format_schema_path>
  <mark_cache_size>5368709</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  $remote
</yandex>
XML
	cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default>
    <agent><password>s3cret</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></agent>
  </users>
  <quotas><default></default></quotas>
</yandex>
XML
}

# ch_run DIR: start (or restart) the server of DIR, wait until it answers.
# Its pid in CH_PID. 0 or 1.
ch_run() {
	local d=$1 port
	port=$(sed -n 's:.*<http_port>\([0-9]*\)</http_port>.*:\1:p' "$d/config.xml")
	clickhouse-server --config-file="$d/config.xml" >"$d/out" 2>&1 &
	CH_PID=$!
	_store_pids="$_store_pids $CH_PID"
	for _ in $(seq 200); do
		curl -sf "http://127.0.0.1:$port/ping" >/dev/null 2>&1 && return 0
		kill -0 "$CH_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# clickhouse-server did not start:" >&2; tail -5 "$d/out" "$d/err.log" >&2 2>/dev/null
	return 1
}

# ch_stop PID: the server dies at once, as a crashed or cut-off one (its
# data stays; a graceful stop waits for its clients up to a minute)
ch_stop() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# start_clickhouse VAR: a fresh server; VAR gets its HTTP port, CH_DIR its
# directory, CH_PID its pid
start_clickhouse() {
	local http tcp
	CH_DIR=$(mktemp -d /tmp/tally-ch.XXXXXX)
	_store_dirs="$_store_dirs $CH_DIR"
	http=$(free_port); tcp=$(free_port)
	ch_config "$CH_DIR" "$http" "$tcp" "${CH_REMOTE:-}"
	ch_run "$CH_DIR" || return 1
	eval "$1=$http"
}

# chq PORT SQL: a query's answer (TSV) through the HTTP interface
chq() { curl -sS "http://127.0.0.1:$1/?allow_experimental_low_cardinality_type=1" --data-binary "$2"; }

# start_prometheus VAR TARGET [INTERVAL]: a server scraping TARGET
# (HOST:PORT) every INTERVAL (default 1s); VAR gets its port
start_prometheus() {
	local d port
	d=$(mktemp -d /tmp/tally-prom.XXXXXX)
	_store_dirs="$_store_dirs $d"
	port=$(free_port)
	cat >"$d/prometheus.yml" <<YML
global:
  scrape_interval: ${3:-1s}
  evaluation_interval: ${3:-1s}
scrape_configs:
  - job_name: tally
    static_configs:
      - targets: ['$2']
YML
	prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="127.0.0.1:$port" >"$d/out" 2>&1 &
	_store_pids="$_store_pids $!"
	for _ in $(seq 200); do
		curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && { eval "$1=$port"; return 0; }
		sleep 0.1
	done
	echo "# prometheus did not start:" >&2; tail -5 "$d/out" >&2
	return 1
}
