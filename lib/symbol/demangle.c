// SPDX-License-Identifier: MIT
/*
 * Symbol demangling as Debian's perf 6.1 does it (built without libbfd):
 * C++ through libstdc++'s __cxa_demangle, cut to what libiberty prints
 * with DMGL_NO_OPTS (perf's default: no parameters, no return type,
 * "ns::Acc<double>::add" for "void ns::Acc<double>::add(double)"; no
 * GCC clone suffix either, "f [clone .isra.0]" is "f", since libiberty
 * reads ".isra.0" only with DMGL_PARAMS; but a thunk or a local name
 * keeps the inner function's signature, which libiberty prints in full:
 * "virtual thunk to A::f(long)", "foo(int)::x"),
 * then Rust legacy names lose
 * their "::h<16 hex>" hash (perf's rust_demangle_sym). Rust v0 (_R)
 * names stay as they are, which is what that perf shows too.
 */
#include <ctype.h>
#include <stdio.h>
#include "internal.h"
#include "symbols_internal.h"
#include "dso_internal.h"

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

/* " const", " &&", ...: what may follow a member function's parameters. */
static bool only_qualifiers(const char *s)
{
	static const char *const quals[] = {
		" const", " volatile", " restrict", " &&", " &", " noexcept", " transaction_safe",
	};

	while (*s) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(quals); i++)
			if (!strncmp(s, quals[i], strlen(quals[i])))
				break;
		if (i == ARRAY_SIZE(quals))
			return false;
		s += strlen(quals[i]);
	}
	return true;
}

/*
 * Drop the parameter list (and the cv/ref qualifiers after it) and a
 * template function's return type, in place. Brackets are counted so
 * "(anonymous namespace)", "{lambda(int)#1}" and template arguments
 * survive; a group followed by more name ("foo(int)::x", a local
 * name) is the enclosing function's, which libiberty prints whole.
 */
static void strip_signature(char *s)
{
	size_t n = strlen(s), params = 0, close = 0, name_start = 0;
	int depth = 0;
	bool have_params = false;

	/* Forward scan: the last top-level '(' group. */
	for (size_t i = 0; i < n; i++) {
		size_t ol = (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ') ?
			    operator_len(s + i) : 0;

		if (ol) {
			i += ol - 1;
			/* "operator<< <char>": the space after an operator's name ends no return type */
			if (i + 1 < n && s[i + 1] == ' ')
				i++;
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
			if (depth && !--depth && s[i] == ')')
				close = i;
			break;
		case ' ':
			/* A top-level space before the params ends a return type. */
			if (!depth && !have_params && i + 1 < n &&
			    !(i >= 8 && !strncmp(s + i - 8, "operator", 8)))
				name_start = i + 1;
			break;
		}
	}
	/* "(anonymous namespace)::f" begins with a group that is no parameter list. */
	if (!have_params || params == 0 || close < params || !only_qualifiers(s + close + 1))
		return;
	s[params] = '\0';
	if (name_start && name_start < params)
		memmove(s, s + name_start, params - name_start + 1);
}

/* libiberty's special names that wrap a whole encoding, printed with it. */
static bool wraps_encoding(const char *s)
{
	static const char *const pre[] = {
		"virtual thunk to ", "non-virtual thunk to ", "covariant return thunk to ",
		"transaction clone for ", "non-transaction clone for ", "hidden alias for ",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pre); i++)
		if (!strncmp(s, pre[i], strlen(pre[i])))
			return true;
	return false;
}

char *tally_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return tally__err_ptr(EINVAL);
	out = __cxa_demangle(name, NULL, NULL, &status);
	if ((!out || status) && strchr(name, '.')) {
		/* "_ZL3foo.part.0": libiberty without DMGL_PARAMS reads the
		 * encoding and ignores the rest; __cxa_demangle refuses it. */
		char *enc = strndup(name, strcspn(name, "."));

		free(out);
		out = enc ? __cxa_demangle(enc, NULL, NULL, &status) : NULL;
		free(enc);
	}
	if (!out || status) {
		free(out);
		return tally__err_ptr(EINVAL);
	}
	/* Clone suffixes come last, each " [clone .xxx]": all go. */
	char *clone = strstr(out, " [clone .");

	if (clone)
		*clone = '\0';
	size_t n = strlen(out);

	if (rust_hash_at(out, n)) {
		out[n - 19] = '\0';
		rust_unescape(out);
		return out;
	}
	if (!wraps_encoding(out))
		strip_signature(out);
	return out;
}

/*
 * "name@plt" with name demangled, cut as synth_plt cuts it (perf
 * demangles each PLT entry at load: a C++ program's libstdc++ entries
 * were 900 demangles a run); NULL when name is not mangled.
 */
char *tally__demangle_plt(const char *s)
{
	size_t n = strlen(s);
	char buf[512], *name, *dm;

	if (n < 4 || strcmp(s + n - 4, "@plt"))
		return tally_demangle(s);	/* the file's own symbol there */
	if (!(name = strndup(s, n - 4)))
		return NULL;
	dm = tally_demangle(name);
	free(name);
	if (!dm)
		return NULL;
	snprintf(buf, sizeof(buf), "%s@plt", dm);
	free(dm);
	return strdup(buf);
}
