// SPDX-License-Identifier: MIT
/*
 * Symbol demangling as Debian's perf 6.1 does it (built without libbfd):
 * C++ through libstdc++'s __cxa_demangle, then Rust legacy names lose
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
	}
	return out;
}
