// SPDX-License-Identifier: MIT
/*
 * A probe argument by its DWARF name, turned into the fetch text that
 * uprobe_events takes, as perf 6.1 writes it: the variable's location at
 * the probe address (a register, a frame offset through the CFA, a
 * static's @name), then one dereference per '->' and pointer index, the
 * member offsets added, and the type: the cast given, else s/x and the
 * width of the DWARF type (x for unsigned and pointers, as perf).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_dbg.h"

/* x86-64 DWARF register numbers as the kernel's fetch args name them */
static const char *const x86_64_regs[] = {
	"%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp",
	"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
};

static const char *reg_name(unsigned n)
{
	return n < sizeof(x86_64_regs) / sizeof(x86_64_regs[0]) ? x86_64_regs[n] : NULL;
}

#define MAX_REFS 16

/* perf's probe_trace_arg: a base ("%di", "@name") and dereferences */
struct fetch {
	char base[128];
	long refs[MAX_REFS];	/* refs[0] applies first (innermost) */
	int nr_refs;
};

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &a), out) != NULL;
}

/* strip cv qualifiers (and typedefs when all) */
static bool real_type(Dwarf_Die *die, Dwarf_Die *out, bool typedefs)
{
	if (!type_of(die, out))
		return false;
	for (;;) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type &&
		    !(typedefs && tag == DW_TAG_typedef))
			return true;
		if (!type_of(out, out))
			return false;
	}
}

static int push_ref(struct fetch *f, long off)
{
	if (f->nr_refs == MAX_REFS)
		return -E2BIG;
	f->refs[f->nr_refs++] = off;
	return 0;
}

/* the frame base's first operation at addr (the CFA's rule when it is DW_OP_call_frame_cfa) */
static int frame_base(struct probe_dbg *d, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Op *out,
		      bool *have, char *err, size_t len)
{
	Dwarf_Die fn;
	Dwarf_Attribute a;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;

	*have = false;
	if (!tally__probe_realfunc_at(cu, addr, &fn) || !dwarf_attr(&fn, DW_AT_frame_base, &a))
		return 0;
	if (dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) <= 0 || !nops)
		return 0;
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		if ((!d->cfi_eh || dwarf_cfi_addrframe(d->cfi_eh, addr, &frame)) &&
		    (!d->cfi_dbg || dwarf_cfi_addrframe(d->cfi_dbg, addr, &frame))) {
			tally__probe_err(err, len, "Failed to get call frame on 0x%llx",
					 (unsigned long long)addr);
			return -ENOENT;
		}
		/* the frame owns the CFA's ops: copied out, then freed */
		if (dwarf_frame_cfa(frame, &ops, &nops) || !nops) {
			free(frame);
			tally__probe_err(err, len, "Failed to get call frame on 0x%llx",
					 (unsigned long long)addr);
			return -ENOENT;
		}
		*out = ops[0];
		*have = true;
		free(frame);
		return 0;
	}
	*out = ops[0];
	*have = true;
	return 0;
}

/* the variable's place at addr: perf's convert_variable_location */
static int locate(struct probe_dbg *d, Dwarf_Die *var, Dwarf_Die *cu, Dwarf_Addr addr,
		  struct fetch *f, char *err, size_t len, bool quiet, bool lenient)
{
	Dwarf_Attribute a;
	Dwarf_Op *op, fb;
	size_t nops;
	long offs = 0;
	bool ref = false;
	unsigned regn;
	const char *name = tally__probe_die_name(var), *r;
	int e;

	memset(f, 0, sizeof(*f));
	if (dwarf_attr(var, DW_AT_external, &a))
		goto static_var;
	if (!dwarf_attr(var, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, addr, &op, &nops, 1) <= 0 || !nops) {
		if (!quiet)
			tally__probe_err(err, len, "Failed to find the location of the '%s' variable at this address.\n"
					 " Perhaps it has been optimized out.\n"
					 " Use -V with the --range option to show '%s' location range.",
					 name, name);
		return -ENOENT;
	}
	if (op[0].atom == DW_OP_addr) {
static_var:
		snprintf(f->base, sizeof(f->base), "@%s", name ? name : "?");
		return push_ref(f, 0);
	}
	/*
	 * -V lists what perf lists: it reads an expression's first operation
	 * only. A fetch takes a value's first piece (DW_OP_piece: the value
	 * split over places, a scalar's whole in its first), no computation.
	 */
	if (nops > 1 && !lenient && op[1].atom != DW_OP_piece) {
		if (!quiet)
			tally__probe_err(err, len, "Sorry, we don't support this variable location yet.");
		return -ENOTSUP;
	}
	if (op[0].atom == DW_OP_fbreg) {
		bool have;

		if ((e = frame_base(d, cu, addr, &fb, &have, err, len)))
			return e;
		if (!have) {
			if (!quiet)
				tally__probe_err(err, len, "Sorry, we don't support this variable location yet.");
			return -ENOTSUP;
		}
		ref = true;
		offs = (long)op[0].number;
		op = &fb;
	}
	if (op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31) {
		regn = op[0].atom - DW_OP_breg0;
		offs += (long)op[0].number;
		ref = true;
	} else if (op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31) {
		regn = op[0].atom - DW_OP_reg0;
	} else if (op[0].atom == DW_OP_bregx) {
		regn = (unsigned)op[0].number;
		offs += (long)op[0].number2;
		ref = true;
	} else if (op[0].atom == DW_OP_regx) {
		regn = (unsigned)op[0].number;
	} else {
		if (!quiet)
			tally__probe_err(err, len, "Sorry, we don't support this variable location yet.");
		return -ENOTSUP;
	}
	if (!(r = reg_name(regn))) {
		if (!quiet)
			tally__probe_err(err, len, "Mapping for the register number %u missing on this architecture.",
					 regn);
		return -ERANGE;
	}
	snprintf(f->base, sizeof(f->base), "%s", r);
	return ref ? push_ref(f, offs) : 0;
}

/* member and index steps: perf's convert_variable_fields */
static int fields(const struct probe_arg *arg, Dwarf_Die *var, struct fetch *f,
		  Dwarf_Die *result, char *err, size_t len)
{
	Dwarf_Die cur = *var, type, mem;
	const char *prev = arg->var;

	for (size_t i = 0; i < arg->nr_fields; i++) {
		const struct probe_field *fl = &arg->fields[i];
		int tag;

		if (!real_type(&cur, &type, true)) {
			tally__probe_err(err, len, "Failed to get the type of %s.", prev);
			return -ENOENT;
		}
		tag = dwarf_tag(&type);
		if (!fl->name && (tag == DW_TAG_array_type || tag == DW_TAG_pointer_type)) {
			Dwarf_Die elem;
			Dwarf_Word sz;
			Dwarf_Attribute a;

			if (!real_type(&type, &elem, true)) {
				tally__probe_err(err, len, "Failed to get the type of %s.", prev);
				return -ENOENT;
			}
			if (tag == DW_TAG_pointer_type && push_ref(f, 0))
				return -E2BIG;
			if (!f->nr_refs) {
				tally__probe_err(err, len, "Structure on a register is not supported yet.");
				return -ENOTSUP;
			}
			if (dwarf_formudata(dwarf_attr(&elem, DW_AT_byte_size, &a), &sz))
				sz = (Dwarf_Word)(dwarf_bytesize(&elem) > 0 ? dwarf_bytesize(&elem) : 0);
			f->refs[f->nr_refs - 1] += (long)sz * fl->index;
			/* the element: a DIE whose type is elem's (the array's own type die) */
			cur = type;
			continue;
		}
		if (!fl->name) {
			tally__probe_err(err, len, "Semantic error: %s is not a pointer nor array.", prev);
			return -EINVAL;
		}
		if (tag == DW_TAG_pointer_type) {
			if (!fl->ref) {
				tally__probe_err(err, len, "Semantic error: %s must be referred by '->'", fl->name);
				return -EINVAL;
			}
			if (!real_type(&type, &type, true)) {
				tally__probe_err(err, len, "Failed to get the type of %s.", prev);
				return -ENOENT;
			}
			tag = dwarf_tag(&type);
			if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
			    tag != DW_TAG_class_type) {
				tally__probe_err(err, len, "%s is not a data structure nor a union.", prev);
				return -EINVAL;
			}
			if (push_ref(f, 0))
				return -E2BIG;
		} else {
			if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
			    tag != DW_TAG_class_type) {
				tally__probe_err(err, len, "%s is not a data structure nor a union.", prev);
				return -EINVAL;
			}
			if (fl->ref) {
				tally__probe_err(err, len, "Semantic error: %s must be referred by '.'", fl->name);
				return -EINVAL;
			}
			if (!f->nr_refs) {
				tally__probe_err(err, len, "Structure on a register is not supported yet.");
				return -ENOTSUP;
			}
		}
		/* the member, by name */
		{
			bool found = false;
			Dwarf_Attribute a;
			Dwarf_Word off = 0;

			if (!dwarf_child(&type, &mem)) {
				do {
					const char *n = tally__probe_die_name(&mem);

					if (dwarf_tag(&mem) == DW_TAG_member && n && !strcmp(n, fl->name)) {
						found = true;
						break;
					}
				} while (dwarf_siblingof(&mem, &mem) == 0);
			}
			if (!found) {
				tally__probe_err(err, len, "%s(type:%s) has no member %s.", prev,
						 tally__probe_die_name(&type) ? tally__probe_die_name(&type) : "",
						 fl->name);
				return -EINVAL;
			}
			if (tag != DW_TAG_union_type &&
			    dwarf_formudata(dwarf_attr(&mem, DW_AT_data_member_location, &a), &off)) {
				Dwarf_Op *ops;
				size_t n;

				/* old compilers: DW_OP_plus_uconst N */
				if (dwarf_getlocation(&a, &ops, &n) || n != 1 || ops[0].atom != DW_OP_plus_uconst) {
					tally__probe_err(err, len, "Failed to get the offset of %s.", fl->name);
					return -ENOENT;
				}
				off = ops[0].number;
			}
			f->refs[f->nr_refs - 1] += (long)off;
			cur = mem;
			prev = fl->name;
		}
	}
	*result = cur;
	return 0;
}

static bool x_type_available(void)
{
	return true;	/* x8/16/32/64 since 4.20; this tool targets newer kernels */
}

/* die: a variable/member (its DW_AT_type), or a type DIE (an array's: the element) */
static int var_type(Dwarf_Die *die, const char *cast, struct fetch *f, char *out, size_t len,
		    char *err, size_t errlen)
{
	Dwarf_Die type;
	Dwarf_Attribute a;
	Dwarf_Word bits = 0, boff = 0;
	int tag, bytes;
	char prefix;

	if (cast && strcmp(cast, "string") && strcmp(cast, "ustring") && strcmp(cast, "x") &&
	    strcmp(cast, "s") && strcmp(cast, "u")) {
		snprintf(out, len, "%s", cast);
		return 0;
	}
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_bit_size, &a), &bits) && bits) {
		Dwarf_Word total;

		if (dwarf_formudata(dwarf_attr(die, DW_AT_data_bit_offset, &a), &boff) &&
		    dwarf_formudata(dwarf_attr(die, DW_AT_bit_offset, &a), &boff))
			boff = 0;
		if (dwarf_formudata(dwarf_attr(die, DW_AT_byte_size, &a), &total)) {
			Dwarf_Die t;

			total = real_type(die, &t, true) && dwarf_bytesize(&t) > 0 ? (Dwarf_Word)dwarf_bytesize(&t) : 0;
		}
		total *= 8;
		snprintf(out, len, "b%llu@%llu/%llu", (unsigned long long)bits,
			 (unsigned long long)(total ? boff % total : boff), (unsigned long long)total);
		return 0;
	}
	if (!real_type(die, &type, true)) {
		tally__probe_err(err, errlen, "Failed to get a type information of %s.",
				 tally__probe_die_name(die) ? tally__probe_die_name(die) : "?");
		return -ENOENT;
	}
	tag = dwarf_tag(&type);
	if (cast && (!strcmp(cast, "string") || !strcmp(cast, "ustring"))) {
		Dwarf_Die elem;
		const char *en;

		if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) {
			tally__probe_err(err, errlen, "Failed to cast into string: %s(%s) is not a pointer nor array.",
					 tally__probe_die_name(die) ? tally__probe_die_name(die) : "",
					 tally__probe_die_name(&type) ? tally__probe_die_name(&type) : "");
			return -EINVAL;
		}
		if (!real_type(&type, &elem, true)) {
			tally__probe_err(err, errlen, "Failed to get a type information.");
			return -ENOENT;
		}
		if (tag == DW_TAG_pointer_type && push_ref(f, 0))
			return -E2BIG;
		en = tally__probe_die_name(&elem);
		if (!en || (strcmp(en, "char") && strcmp(en, "unsigned char"))) {
			tally__probe_err(err, errlen, "Failed to cast into string: %s is not (unsigned) char *.",
					 tally__probe_die_name(die) ? tally__probe_die_name(die) : "");
			return -EINVAL;
		}
		snprintf(out, len, "%s", cast);
		return 0;
	}
	if (cast && !strcmp(cast, "u"))
		prefix = 'u';
	else if (cast && !strcmp(cast, "s"))
		prefix = 's';
	else if (cast && !strcmp(cast, "x") && x_type_available())
		prefix = 'x';
	else {
		Dwarf_Word enc = 0;
		bool is_signed = tag == DW_TAG_base_type &&
			!dwarf_formudata(dwarf_attr(&type, DW_AT_encoding, &a), &enc) &&
			(enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_float);

		prefix = is_signed ? 's' : x_type_available() ? 'x' : 'u';
	}
	bytes = dwarf_bytesize(&type);
	if (bytes <= 0) {
		/* no size (an array): the kernel's default type */
		out[0] = '\0';
		return 0;
	}
	snprintf(out, len, "%c%d", prefix, bytes * 8 > 64 ? 64 : bytes * 8);
	return 0;
}

static void synth(const struct fetch *f, const char *type, char *buf, size_t len)
{
	size_t n = 0;
	int first = f->base[0] == '@' && f->nr_refs ? 1 : 0;

	buf[0] = '\0';
	for (int i = f->nr_refs - 1; i >= first && n < len; i--)
		n += (size_t)snprintf(buf + n, len - n, "%+ld(", f->refs[i]);
	if (n < len) {
		if (first)
			n += (size_t)snprintf(buf + n, len - n, "%s%+ld", f->base, f->refs[0]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s", f->base);
	}
	for (int i = f->nr_refs - 1; i >= first && n < len; i--)
		n += (size_t)snprintf(buf + n, len - n, ")");
	if (type && *type && n < len)
		snprintf(buf + n, len - n, ":%s", type);
}

static bool find_in(Dwarf_Die *scope, const char *name, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
			n = tally__probe_die_name(&child);
			if (n && !strcmp(n, name)) {
				*out = child;
				return true;
			}
		} else if (tag == DW_TAG_lexical_block && dwarf_haspc(&child, addr) > 0 &&
			   find_in(&child, name, addr, out)) {
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int tally__probe_fetch_var(struct probe_dbg *d, Dwarf_Die *scope, Dwarf_Die *cu,
			   Dwarf_Addr addr, const struct probe_arg *arg, Dwarf_Die *var,
			   char *buf, size_t len, char *err, size_t errlen)
{
	struct fetch f;
	Dwarf_Die v, res;
	char type[64];
	int e;

	if (var) {
		v = *var;
	} else if (!find_in(scope, arg->var, addr, &v) && !find_in(cu, arg->var, 0, &v)) {
		/* perf 6.1 says the same for a name it does not find at all */
		tally__probe_err(err, errlen, "Failed to find the location of the '%s' variable at this address.\n"
				 " Perhaps it has been optimized out.\n"
				 " Use -V with the --range option to show '%s' location range.",
				 arg->var, arg->var);
		return -ENOENT;
	}
	if ((e = locate(d, &v, cu, addr, &f, err, errlen, false, false)))
		return e;
	res = v;
	if (arg->nr_fields && (e = fields(arg, &v, &f, &res, err, errlen)))
		return e;
	/* after an index step res is the array or pointer type: its element's type counts */
	if ((e = var_type(&res, arg->type, &f, type, sizeof(type), err, errlen)))
		return e;
	synth(&f, type, buf, len);
	return 0;
}

int tally__probe_var_state(struct probe_dbg *d, Dwarf_Die *var, Dwarf_Die *cu, Dwarf_Die *fn,
			   Dwarf_Addr addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *op;
	Dwarf_Addr entry, high, base, start, end, found;
	size_t nops;
	ptrdiff_t off = 0;
	struct fetch f;
	int tag = dwarf_tag(var), state = 0;

	if (dwarf_attr(var, DW_AT_external, &a))
		return 0;
	if (!dwarf_attr(var, DW_AT_location, &a))
		return -EINVAL;
	if (dwarf_getlocation_addr(&a, addr, &op, &nops, 1) > 0)
		return nops ? locate(d, var, cu, addr, &f, NULL, 0, true, true) : -ENOENT;
	/* none at addr: perf looks further into the function, a variable then listed as [INV] */
	if (dwarf_entrypc(fn, &entry))
		return -ENOENT;
	if (tag == DW_TAG_variable)
		state = -ERANGE;
	else if (addr != entry || tag != DW_TAG_formal_parameter)
		return -ENOENT;
	if (dwarf_highpc(fn, &high))
		return -ENOENT;
	/* the first address past addr with a location, as perf's byte by byte search finds it */
	found = high + 1;
	while ((off = dwarf_getlocations(&a, off, &base, &start, &end, &op, &nops)) > 0) {
		Dwarf_Addr at = start > addr ? start : addr + 1;

		if (at < end && at < found)
			found = at;
	}
	if (found > high || dwarf_getlocation_addr(&a, found, &op, &nops, 1) <= 0 || !nops)
		return -ENOENT;
	/* what perf reads there must be a location it takes */
	return locate(d, var, cu, found, &f, NULL, 0, true, true) ? -ENOENT : state;
}

int tally__probe_collect_vars(struct probe_dbg *d, Dwarf_Die *scope, Dwarf_Die *cu,
			      Dwarf_Addr addr, bool params_only, bool children, bool listing,
			      Dwarf_Die **out, size_t *nr)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);
		struct fetch f;

		if (tag == DW_TAG_formal_parameter || (tag == DW_TAG_variable && !params_only)) {
			if (!locate(d, &child, cu, addr, &f, NULL, 0, true, listing)) {
				Dwarf_Die *nv = realloc(*out, (*nr + 1) * sizeof(*nv));

				if (!nv)
					return -ENOMEM;
				*out = nv;
				nv[(*nr)++] = child;
			}
		}
		if (children && dwarf_haspc(&child, addr) > 0) {
			int e = tally__probe_collect_vars(d, &child, cu, addr, params_only, true, listing,
							      out, nr);

			if (e)
				return e;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* perf's die_get_typename: cv dropped, typedefs by name, '*' for pointers and arrays, no void */
static int type_name(Dwarf_Die *die, char *buf, size_t len)
{
	Dwarf_Die t;
	int tag;
	const char *name, *tmp = "";

	if (!real_type(die, &t, false))
		return -ENOENT;
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type || tag == DW_TAG_pointer_type) {
		char inner[512];
		int e = type_name(&t, inner, sizeof(inner));

		if (e < 0)
			return e;	/* void underneath: perf 6.1 says (unknown_type) */
		if ((size_t)snprintf(buf, len, "%s*", inner) >= len)
			return -ERANGE;
		return 0;
	}
	if (tag == DW_TAG_subroutine_type) {
		snprintf(buf, len, "(function_type)");
		return 0;
	}
	name = tally__probe_die_name(&t);
	if (tag == DW_TAG_union_type)
		tmp = "union ";
	else if (tag == DW_TAG_structure_type)
		tmp = "struct ";
	else if (tag == DW_TAG_enumeration_type)
		tmp = "enum ";
	else if (!name)
		return -ENOENT;
	snprintf(buf, len, "%s%s", tmp, name ? name : "");
	return 0;
}

int tally__probe_var_typename(Dwarf_Die *var, char *buf, size_t len)
{
	char t[256];
	const char *n = tally__probe_die_name(var);
	int e = type_name(var, t, sizeof(t));

	if (e == -ERANGE)
		return e;
	snprintf(buf, len, "%s\t%s", e ? "(unknown_type)" : t, n ? n : "");
	return 0;
}
