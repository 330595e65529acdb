#!/usr/bin/env bash
# The library's modules depend one way. lib/ has one folder per layer
# (lib/<layer>/X.c; scripts/layers.txt orders them, lowest first). Reports
# every import circle among lib's modules, and every call or #include
# from a layer to one above it. A module's calls are read from its
# object's symbols (nm: what build/lib/<layer>/X.o leaves undefined and
# another lib object defines), the truth about who calls whom, macros and
# inline helpers included; its includes from its #include "X.h" of lib's
# headers (a header's layer is its folder; X.h and X_internal.h are
# module X's). Prints each circle or upward step with the symbols or
# header that make it; exits 1 if there is one. BUILD names the build
# folder (build by default; `make lib` first).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LAYERS=${LAYERS:-scripts/layers.txt}

objs=()
for c in lib/*/*.c; do
	[ -f "$c" ] || continue
	o=$BUILD/${c%.c}.o
	[ -f "$o" ] || { echo "check-layers: $o missing (make lib first)" >&2; exit 2; }
	objs+=("$o")
done

# "module U symbol" and "module D symbol", one a line
for o in ${objs[@]+"${objs[@]}"}; do
	m=$(basename "$o" .o)
	nm "$o" | awk -v m="$m" '
		NF == 2 && $1 == "U" { print m, "U", $2 }
		NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print m, "D", $3 }'
done | python3 -c '
import glob, os, re, sys
defs, uses = {}, {}
bad = 0
# each module lives in the folder of its layer: lib/<layer>/<module>.c
src, folder = {}, {}
for c in sorted(glob.glob("lib/*/*.c")):
	d, m = c.split("/")[1], os.path.basename(c)[:-2]
	if m in src:
		print("%s and %s: two modules of one name" % (src[m], c))
		bad = 1
	src[m], folder[m] = c, d
for c in sorted(glob.glob("lib/*.c")):
	print("%s is in no layer: move it to lib/<layer>/" % c)
	bad = 1
# the headers of lib, by name: the folder (layer) each lives in
hdir = {os.path.basename(h)[:-2]: h.split("/")[1] for h in glob.glob("lib/*/*.h")}
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
	bad = 1

# The layers, lowest first: "layers: util sys ..." names the folders of lib in
# order; "allow: a -> b  # why" lets one upward step wait (each must
# still happen, or the check fails).
lpath = sys.argv[1]
order, allow = [], {}
if os.path.exists(lpath):
	for line in open(lpath):
		line = line.split("#", 1)[0].strip()
		if not line:
			continue
		key, _, rest = line.partition(":")
		if key == "allow":
			a, _, b = rest.partition("->")
			allow[(a.strip(), b.strip())] = False
		elif key == "layers":
			order += rest.split()
		else:
			print("%s: unknown line %r" % (lpath, line))
			bad = 1
	rank = {l: i for i, l in enumerate(order)}
	for d in sorted(set(folder.values()) | set(hdir.values())):
		if d not in rank:
			print("lib/%s/ is no layer of %s" % (d, lpath))
			bad = 1
	# includes: the layer of a header is its folder; X.h and X_internal.h
	# belong to module X, zstd_wrap.h to zstd (shared ones are named as such)
	inc = {m: {} for m in g}
	hlayer = {}
	for m in g:
		for h in re.findall(r"^#include \"([a-z0-9_]+)\.h\"", open(src[m]).read(), re.M):
			if h not in hdir:
				continue
			o = re.sub(r"_(internal|wrap)$", "", h)
			o = o if o in g else h + ".h"
			if o != m:
				inc[m].setdefault(o, []).append(h + ".h")
				hlayer[o] = hdir[h]
	def layer_of(x):
		return rank.get(folder.get(x, hlayer.get(x)))
	for a in sorted(g):
		for b, why in sorted(list((b, "calls " + syms(a, b)) for b in g[a]) +
				     list((b, "includes " + ", ".join(h)) for b, h in inc[a].items())):
			la, lb = layer_of(a), layer_of(b)
			if la is None or lb is None or la >= lb:
				continue
			if (a, b) in allow:
				allow[(a, b)] = True
				continue
			print("upward: %s (%s) -> %s (%s): %s" % (a, order[la], b, order[lb], why))
			bad = 1
	for (a, b), seen in sorted(allow.items()):
		if not seen:
			print("allowed %s -> %s no longer happens: drop it from %s" % (a, b, lpath))
			bad = 1
if not bad:
	print("no circles among %d library modules%s" % (len(g), ", each calls and includes only its layer and those below (%s)" % " < ".join(order) if order else ""))
sys.exit(bad)
' "$LAYERS"
