#!/usr/bin/env bash
# The library's modules depend one way: report every import circle among
# lib/*.c. A module's calls are read from its object's symbols (nm: what
# build/lib/X.o leaves undefined and another lib object defines), which
# is the truth about who calls whom, macros and inline helpers included.
# Prints each circle with the symbols that make each step; exits 1 if
# there is one. BUILD names the build folder (build by default; `make lib`
# first).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

objs=()
for c in lib/*.c; do
	o=$BUILD/${c%.c}.o
	[ -f "$o" ] || { echo "check-layers: $o missing (make lib first)" >&2; exit 2; }
	objs+=("$o")
done

# "module U symbol" and "module D symbol", one a line
for o in "${objs[@]}"; do
	m=$(basename "$o" .o)
	nm "$o" | awk -v m="$m" '
		NF == 2 && $1 == "U" { print m, "U", $2 }
		NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print m, "D", $3 }'
done | python3 -c '
import sys
defs, uses = {}, {}
for line in sys.stdin:
	m, k, s = line.split()
	uses.setdefault(m, set())
	if k == "D":
		defs.setdefault(s, m)
	else:
		uses[m].add(s)
# edge a -> b: a calls (or reads) what b defines
g = {m: {} for m in uses}
for a, syms in uses.items():
	for s in syms:
		b = defs.get(s)
		if b and b != a:
			g[a].setdefault(b, []).append(s)

# strongly connected components (Tarjan, iterative)
index, low, on, stack, sccs, n = {}, {}, set(), [], [], 0
for root in sorted(g):
	if root in index:
		continue
	work = [(root, iter(sorted(g[root])))]
	index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
	while work:
		v, it = work[-1]
		w = next(it, None)
		if w is not None:
			if w not in index:
				index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
				work.append((w, iter(sorted(g[w]))))
			elif w in on:
				low[v] = min(low[v], index[w])
			continue
		work.pop()
		if work:
			low[work[-1][0]] = min(low[work[-1][0]], low[v])
		if low[v] == index[v]:
			comp = []
			while True:
				w = stack.pop(); on.discard(w); comp.append(w)
				if w == v:
					break
			if len(comp) > 1:
				sccs.append(sorted(comp))

# each elementary circle of a component, from its first module (capped)
def circles(comp):
	out, members = [], set(comp)
	for i, s in enumerate(comp):
		allowed = set(comp[i:])
		path = [s]
		def dfs(v):
			for w in sorted(g[v]):
				if len(out) >= 50 or w not in allowed:
					continue
				if w == s:
					out.append(path + [s])
				elif w not in path:
					path.append(w); dfs(w); path.pop()
		dfs(s)
	return out

def syms(a, b):
	s = sorted(g[a][b])
	return ", ".join(s[:4]) + (", ..." if len(s) > 4 else "")

for comp in sccs:
	for c in circles(comp):
		print("circle: " + " -> ".join(c))
		for a, b in zip(c, c[1:]):
			print("    %s -> %s: %s" % (a, b, syms(a, b)))
if sccs:
	print("%d group(s) of modules call each other in a circle: move the shared "
	      "helper to a module of its own below its users" % len(sccs))
	sys.exit(1)
print("no circles among %d library modules" % len(g))
'
