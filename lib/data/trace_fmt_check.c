// SPDX-License-Identifier: MIT
/*
 * A tracepoint's print format, checked before libtraceevent parses it.
 * libtraceevent (1.7) trusts the text: a REC->field inside __print_flags
 * or __print_symbolic that names no field is written through a NULL
 * pointer, __get_cpumask(name) of no field is read through one, and a '/'
 * or '%' whose divisor is 0 faults when it folds the constants or prints
 * a sample. A damaged file must not take the report down, so the text is
 * cut into tokens as libtraceevent's tokenizer cuts them and refused on:
 * a byte no kernel writes there, an unclosed string, unbalanced
 * brackets, a field reference that names no field, a divisor that is not
 * a non-zero number or a sizeof of non-zero size. Kernel formats divide
 * only by constants (jiffies / 250, len / sizeof(u64)), so a divisor that
 * reads a field is refused too: a zero in the sample would fault.
 * libtraceevent fails at a statement expression "({" (the kernel's
 * own): what follows it is never parsed, so it is not checked either.
 * The text before the print format is checked too: a byte its tokenizer
 * has no type for, or the end right after a field's '[', becomes a NULL
 * token that the field parser compares with "]".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_DEPTH 64	/* libtraceevent parses nesting by recursion */

enum tk { T_END, T_ITEM, T_STR, T_DELIM, T_OP, T_BAD };

struct tok {
	enum tk t;
	const char *s;
	size_t n;
};

struct lex {
	const char *p, *end;
};

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_print(int c)
{
	return c >= 0x20 && c < 0x7f;
}

static bool is_item(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static struct tok next(struct lex *l)
{
	struct tok t = { T_END, NULL, 0 };
	const char *p;
	int c;

	while (l->p < l->end && is_space((unsigned char)*l->p))
		l->p++;
	if (l->p >= l->end)
		return t;
	p = t.s = l->p;
	c = (unsigned char)*p;
	if (is_item(c)) {
		while (p < l->end && is_item((unsigned char)*p))
			p++;
		t.t = T_ITEM;
	} else if (c == '"' || c == '\'') {
		/*
		 * As its tokenizer: the string ends at its quote or at any other
		 * byte not printable but '\n' (trace_fmt.c writes maple_tree's
		 * tabs as "\t" first), which is eaten; one escaped by '\' goes on; a byte over 0x7e,
		 * or the end, is an error. "a" "b" make one string.
		 */
		int last = 0, ch = c;

		t.t = T_STR;
		for (p++;; p++) {
			last = ch;
			ch = p < l->end ? (unsigned char)*p : 0;
			if (ch == '\\' && last == '\\')
				last = 0;
			if (ch == 0 || ch > 0x7e) {
				t.t = T_BAD;
				break;
			}
			if ((ch == c || !is_print(ch)) && last != '\\' && ch != '\n') {
				const char *q = p + 1;

				while (c == '"' && q < l->end && is_space((unsigned char)*q))
					q++;
				if (c == '"' && q < l->end && *q == '"') {
					p = q;
					continue;
				}
				break;
			}
		}
		p++;
	} else if (!is_print(c)) {
		t.t = T_BAD;
		p++;
	} else {
		/* operators glued as its tokenizer glues them: -> ++ >>= != ... */
		int nx = p + 1 < l->end ? (unsigned char)p[1] : 0;

		t.t = c == '(' || c == ')' || c == ',' ? T_DELIM : T_OP;
		p++;
		if (c == '-' && nx == '>') {
			p++;
		} else if (strchr("-+|&><", c) && nx == c) {
			p++;
			if ((c == '>' || c == '<') && p < l->end && *p == '=')
				p++;
		} else if (strchr("-+|&><!=", c) && nx == '=') {
			p++;
		}
	}
	t.n = (size_t)(p - t.s);
	l->p = p < l->end ? p : l->end;
	return t;
}

static bool is(const struct tok *t, const char *s)
{
	return t->n == strlen(s) && !memcmp(t->s, s, t->n);
}

/* An operator libtraceevent gives a precedence (get_op_prio() >= 0). */
static bool has_prio(const struct tok *t)
{
	static const char *const ops[] = {
		"~", "!", "*", "/", "%", "+", "-", "<", ">", "&", "^", "|", "?",
		"++", "--", ">>", "<<", ">=", "<=", "==", "!=", "&&", "||",
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (is(t, ops[i]))
			return true;
	return false;
}

__attribute__((format(printf, 3, 4)))
static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* The size of the field named by t, -1 if the event has none. */
static int size_of(const struct tok *t, tally__trace_field_fn field, void *ctx)
{
	char name[256];

	if (t->t != T_ITEM || t->n >= sizeof(name))
		return -1;
	memcpy(name, t->s, t->n);
	name[t->n] = '\0';
	return field(ctx, name);
}

/* The divisor after a '/' or '%': its value as libtraceevent reads it. */
static bool divisor_ok(struct lex *l, tally__trace_field_fn field, void *ctx)
{
	struct tok t = next(l), u;
	struct lex save;
	char num[32];

	if (t.t == T_ITEM && t.s[0] >= '0' && t.s[0] <= '9') {
		if (t.n >= sizeof(num))
			return false;
		memcpy(num, t.s, t.n);
		num[t.n] = '\0';
		return strtoull(num, NULL, 0) != 0;
	}
	if (!is(&t, "sizeof"))
		return false;
	/* sizeof(int), (long), (unsigned ...): 4 or 8; sizeof(REC->f): f's size */
	save = *l;
	t = next(l);
	u = next(l);
	if (!is(&t, "(") || !is(&u, "REC")) {
		*l = save;
		return true;
	}
	t = next(l);
	u = next(l);
	*l = save;
	return is(&t, "->") && size_of(&u, field, ctx) > 0;
}

int tally__trace_fmt_check(const char *text, size_t len, tally__trace_field_fn field, void *ctx,
			   char *why, size_t whylen)
{
	struct lex l = { text, text + len };
	char stack[MAX_DEPTH];
	bool guard[MAX_DEPTH + 1] = { false };
	int depth = 0;
	struct tok t, prev = { T_END, NULL, 0 };

	while ((t = next(&l)).t != T_END) {
		/*
		 * After a "? :"'s right operand or an index's ']', libtraceevent
		 * hands the next operator to process_op() with a NULL arg unless
		 * the operator has a precedence (or is ':'): the first operator
		 * at that depth must be one. REC's '->' belongs to the operand.
		 */
		if (guard[depth] && t.t == T_OP && !(is(&t, "->") && is(&prev, "REC"))) {
			if (!has_prio(&t) && !is(&t, ":"))
				return refuse(why, whylen, "a '%.*s' after a '? :' or an index",
					      (int)t.n, t.s);
			guard[depth] = false;
		}
		if (is(&t, ","))
			guard[depth] = false;
		if (t.t == T_BAD)
			return refuse(why, whylen, "%s at byte %zu",
				      t.s[0] == '"' || t.s[0] == '\'' ? "an unterminated string" :
				      "a byte that is not text", (size_t)(t.s - text));
		if (is(&t, "(") && l.p < l.end) {
			struct lex save = l;
			struct tok u = next(&l);

			/*
			 * A statement expression, "({ ... })" (kvmmmu's formats):
			 * its '{' is an operand libtraceevent refuses ("bad op
			 * token", leaking it), so it reads nothing after it.
			 */
			if (is(&u, "{"))
				return 1;
			l = save;
		}
		if (is(&t, "(") || is(&t, "[") || is(&t, "{")) {
			if (depth == MAX_DEPTH)
				return refuse(why, whylen, "brackets nested over %d deep", MAX_DEPTH);
			stack[depth++] = t.s[0] == '(' ? ')' : t.s[0] == '[' ? ']' : '}';
			guard[depth] = false;
		} else if (is(&t, ")") || is(&t, "]") || is(&t, "}")) {
			if (!depth || stack[--depth] != t.s[0])
				return refuse(why, whylen, "an unbalanced '%c'", t.s[0]);
			if (t.s[0] == ']')
				guard[depth] = true;
		} else if (is(&t, ":")) {
			guard[depth] = true;
		} else if (is(&t, "->")) {
			struct tok f = next(&l);

			if (size_of(&f, field, ctx) < 0)
				return refuse(why, whylen, "REC->%.*s names no field", (int)f.n, f.s);
		} else if (t.t == T_OP && (is(&t, "/") || is(&t, "%"))) {
			if (!divisor_ok(&l, field, ctx))
				return refuse(why, whylen, "a '%c' whose divisor can be 0", t.s[0]);
		}
		/* __get_str(f), __get_dynamic_array(f), __get_cpumask(f)...: f is a field */
		if (prev.t == T_ITEM && prev.n > 6 && !memcmp(prev.s, "__get_", 6) && is(&t, "(")) {
			struct lex save = l;
			struct tok f = next(&l);

			if (size_of(&f, field, ctx) < 0)
				return refuse(why, whylen, "%.*s(%.*s) names no field", (int)prev.n,
					      prev.s, (int)f.n, f.s);
			l = save;
		}
		prev = t;
	}
	if (depth)
		return refuse(why, whylen, "an unclosed '%c'", stack[depth - 1] == ')' ? '(' :
			      stack[depth - 1] == ']' ? '[' : '{');
	return 0;
}

int tally__trace_fmt_check_fields(const char *text, size_t len, char *why, size_t whylen)
{
	struct lex l = { text, text + len };
	struct tok t;
	bool open = false;

	/* a byte its tokenizer has no type for reads as a NULL token */
	for (size_t i = 0; i < len; i++)
		if (!is_print((unsigned char)text[i]) && !is_space((unsigned char)text[i]))
			return refuse(why, whylen, "a byte that is not text at byte %zu", i);
	/* after a field's '[', a NULL token (the end) is compared with "]" */
	while ((t = next(&l)).t != T_END) {
		if (t.t == T_BAD)
			return refuse(why, whylen, "an unterminated string at byte %zu",
				      (size_t)(t.s - text));
		if (is(&t, "["))
			open = true;
		else if (is(&t, "]"))
			open = false;
	}
	return open ? refuse(why, whylen, "an unclosed '[' in the fields") : 0;
}
