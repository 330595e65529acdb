// SPDX-License-Identifier: MIT
/*
 * Symbol demangling as Debian's perf 6.1 does it (built without libbfd):
 * C++ through libstdc++'s __cxa_demangle, cut to what libiberty prints
 * with DMGL_NO_OPTS (perf's default: no parameters, no return type,
 * "ns::Acc<double>::add" for "void ns::Acc<double>::add(double)"),
 * then Rust legacy names lose
 * their "::h<16 hex>" hash (perf's rust_demangle_sym). Rust v0 (_R)
 * names stay as they are, which is what that perf shows too.
 */
#include <ctype.h>
#include "internal.h"
#include "symbols_internal.h"

/* The C ABI entry of abi::__cxa_demangle (libstdc++, -lstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* "...::h0123456789abcdef" at the end: a Rust legacy hash. */
static bool rust_hash_at(const char *s, size_t n)
{
	if (n < 19 || memcmp(s + n - 19, "::h", 3))
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Rust legacy escapes left by the C++ demangler: $LT$, $u20$, .. -> :: */
static void rust_unescape(char *s)
{
	static const struct { const char *from, *to; } esc[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
		{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" },
		{ "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
		{ "$u2b$", "+" }, { "$u22$", "\"" },
	};
	char *w = s;

	for (char *r = s; *r;) {
		size_t i;

		/* "_$" opens a segment that starts with an escape: drop the '_'. */
		if (r[0] == '_' && r[1] == '$' && (r == s || (r > s + 1 && r[-1] == ':'))) {
			r++;
			continue;
		}
		if (*r == '$') {
			for (i = 0; i < ARRAY_SIZE(esc); i++) {
				size_t l = strlen(esc[i].from);

				if (!strncmp(r, esc[i].from, l)) {
					size_t t = strlen(esc[i].to);

					memcpy(w, esc[i].to, t);	/* t <= l */
					w += t;
					r += l;
					break;
				}
			}
			if (i < ARRAY_SIZE(esc))
				continue;
		}
		if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Length of "operator<<=" and friends at s, whose <>() must not count as
 * brackets; 0 when s is not an operator name. */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {
		"operator<<=", "operator>>=", "operator<=>", "operator->*",
		"operator<<", "operator>>", "operator<=", "operator>=", "operator->",
		"operator()", "operator<", "operator>",
	};

	if (strncmp(s, "operator", 8))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strncmp(s, ops[i], strlen(ops[i])))
			return strlen(ops[i]);
	return 8;
}

/*
 * Drop the parameter list (and the cv/ref qualifiers after it) and a
 * template function's return type, in place. Brackets are counted so
 * "(anonymous namespace)", "{lambda(int)#1}" and template arguments
 * survive.
 */
static void strip_signature(char *s)
{
	size_t n = strlen(s), params = 0, name_start = 0;
	int depth = 0;
	bool have_params = false;

	/* Forward scan: the last top-level '(' whose group ends the name. */
	for (size_t i = 0; i < n; i++) {
		size_t ol = (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ') ?
			    operator_len(s + i) : 0;

		if (ol) {
			i += ol - 1;
			continue;
		}
		switch (s[i]) {
		case '(':
			if (!depth) {
				params = i;
				have_params = true;
			}
			/* fallthrough */
		case '<': case '[': case '{':
			depth++;
			break;
		case ')': case '>': case ']': case '}':
			if (depth)
				depth--;
			break;
		case ' ':
			/* A top-level space before the params ends a return type. */
			if (!depth && !have_params && i + 1 < n &&
			    !(i >= 8 && !strncmp(s + i - 8, "operator", 8)))
				name_start = i + 1;
			break;
		}
	}
	if (!have_params)
		return;
	/* "(anonymous namespace)::f" begins with a group that is no parameter list. */
	if (params == 0)
		return;
	/* "f() [clone .cold]": libiberty keeps the clone suffix. */
	char *clone = strstr(s + params, " [clone ");
	size_t cl = clone ? strlen(clone) : 0;

	memmove(s + params, clone ? clone : "", cl + 1);
	if (name_start && name_start < params)
		memmove(s, s + name_start, params + cl - name_start + 1);
}

char *tally_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return tally__err_ptr(EINVAL);
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (!out || status)
		return tally__err_ptr(EINVAL);
	size_t n = strlen(out);

	if (rust_hash_at(out, n)) {
		out[n - 19] = '\0';
		rust_unescape(out);
		return out;
	}
	strip_signature(out);
	return out;
}
