import os, statistics, sys, time
argvs = [a.split() for a in sys.argv[2:]]
runs = int(sys.argv[1])
dn = os.open(os.devnull, os.O_WRONLY)
def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, dn, 1), (os.POSIX_SPAWN_DUP2, dn, 2)])
    os.wait4(pid, 0)
    return time.perf_counter_ns() - t0
res = [[] for _ in argvs]
for i in range(runs):
    order = list(range(len(argvs)))
    if i % 2: order.reverse()
    for k in order:
        res[k].append(run(argvs[k]))
base = res[-1]
for k, a in enumerate(argvs):
    ratios = [x / y for x, y in zip(res[k], base)]
    print("%-60s median %.3f ms  ratio-to-last median %.3f" % (" ".join(a)[:60], statistics.median(res[k]) / 1e6, statistics.median(ratios)))
