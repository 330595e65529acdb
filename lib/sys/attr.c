// SPDX-License-Identifier: MIT
/*
 * The perf_event_attr field table: every field and flag bit of
 * perf_event_open(2), settable and readable by name, so the event parser,
 * the CLI and `tally stat -vv` share one description of the ABI.
 */
#include <stdio.h>
#include <tally/sys.h>
#include "internal.h"

enum fkind { F_U32, F_S32, F_U16, F_U64, F_BIT };
enum fshow { SHOW_DEC, SHOW_HEX };

/* When a union member is the one to print (fprint). */
enum falias {
	A_NONE,
	A_PERIOD, A_FREQ,		/* by attr.freq */
	A_WAKE_EV, A_WAKE_WM,		/* by attr.watermark */
	A_BP, A_CFG, A_NEVER,		/* by type == BREAKPOINT */
};

struct field {
	const char *name;
	enum fkind kind;
	unsigned short off;	/* byte offset (not F_BIT) */
	unsigned char shift;	/* F_BIT: bit in the flags word */
	unsigned char width;	/* F_BIT: bits */
	enum fshow show;
	enum falias alias;
};

#define OFF(f) ((unsigned short)__builtin_offsetof(struct perf_event_attr, f))
#define U64(f, show) { #f, F_U64, OFF(f), 0, 0, show, A_NONE }
#define U64A(f, show, a) { #f, F_U64, OFF(f), 0, 0, show, a }
#define U32(f) { #f, F_U32, OFF(f), 0, 0, SHOW_DEC, A_NONE }
#define U32A(f, a) { #f, F_U32, OFF(f), 0, 0, SHOW_DEC, a }
#define U16(f) { #f, F_U16, OFF(f), 0, 0, SHOW_DEC, A_NONE }
#define BIT(f, s, w) { #f, F_BIT, 0, s, w, SHOW_DEC, A_NONE }

/*
 * The flags word follows read_format. Bit positions are the kernel ABI
 * (include/uapi/linux/perf_event.h); the unit test checks each one
 * against the compiler's bit-field layout.
 */
#define FLAGS_OFF (OFF(read_format) + sizeof(uint64_t))

static const struct field fields[] = {
	U32(type),
	U32(size),
	U64(config, SHOW_HEX),
	U64A(sample_period, SHOW_DEC, A_PERIOD),
	U64A(sample_freq, SHOW_DEC, A_FREQ),
	U64(sample_type, SHOW_HEX),
	U64(read_format, SHOW_HEX),
	BIT(disabled, 0, 1),
	BIT(inherit, 1, 1),
	BIT(pinned, 2, 1),
	BIT(exclusive, 3, 1),
	BIT(exclude_user, 4, 1),
	BIT(exclude_kernel, 5, 1),
	BIT(exclude_hv, 6, 1),
	BIT(exclude_idle, 7, 1),
	BIT(mmap, 8, 1),
	BIT(comm, 9, 1),
	BIT(freq, 10, 1),
	BIT(inherit_stat, 11, 1),
	BIT(enable_on_exec, 12, 1),
	BIT(task, 13, 1),
	BIT(watermark, 14, 1),
	BIT(precise_ip, 15, 2),
	BIT(mmap_data, 17, 1),
	BIT(sample_id_all, 18, 1),
	BIT(exclude_host, 19, 1),
	BIT(exclude_guest, 20, 1),
	BIT(exclude_callchain_kernel, 21, 1),
	BIT(exclude_callchain_user, 22, 1),
	BIT(mmap2, 23, 1),
	BIT(comm_exec, 24, 1),
	BIT(use_clockid, 25, 1),
	BIT(context_switch, 26, 1),
	BIT(write_backward, 27, 1),
	BIT(namespaces, 28, 1),
	BIT(ksymbol, 29, 1),
	BIT(bpf_event, 30, 1),
	BIT(aux_output, 31, 1),
	BIT(cgroup, 32, 1),
	BIT(text_poke, 33, 1),
	BIT(build_id, 34, 1),
	BIT(inherit_thread, 35, 1),
	BIT(remove_on_exec, 36, 1),
	BIT(sigtrap, 37, 1),
	U32A(wakeup_events, A_WAKE_EV),
	U32A(wakeup_watermark, A_WAKE_WM),
	U32(bp_type),
	U64A(bp_addr, SHOW_HEX, A_BP),
	U64A(kprobe_func, SHOW_HEX, A_NEVER),
	U64A(uprobe_path, SHOW_HEX, A_NEVER),
	U64A(config1, SHOW_HEX, A_CFG),
	U64A(bp_len, SHOW_DEC, A_BP),
	U64A(kprobe_addr, SHOW_HEX, A_NEVER),
	U64A(probe_offset, SHOW_HEX, A_NEVER),
	U64A(config2, SHOW_HEX, A_CFG),
	U64(branch_sample_type, SHOW_HEX),
	U64(sample_regs_user, SHOW_HEX),
	U32(sample_stack_user),
	{ "clockid", F_S32, OFF(clockid), 0, 0, SHOW_DEC, A_NONE },
	U64(sample_regs_intr, SHOW_HEX),
	U32(aux_watermark),
	U16(sample_max_stack),
	U32(aux_sample_size),
	U64(sig_data, SHOW_HEX),
	/* config3 (Linux 6.3) is not in this UAPI header: nothing to name. */
};

static const struct field *find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

void tally_attr__init(struct perf_event_attr *attr, uint32_t type, uint64_t config)
{
	if (!attr)
		return;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

static uint64_t get_raw(const struct perf_event_attr *attr, const struct field *f)
{
	const unsigned char *p = (const unsigned char *)attr;
	uint64_t v64;
	uint32_t v32;
	int32_t s32;
	uint16_t v16;

	switch (f->kind) {
	case F_U64:
		memcpy(&v64, p + f->off, sizeof(v64));
		return v64;
	case F_U32:
		memcpy(&v32, p + f->off, sizeof(v32));
		return v32;
	case F_S32:
		memcpy(&s32, p + f->off, sizeof(s32));
		return (uint64_t)(int64_t)s32;
	case F_U16:
		memcpy(&v16, p + f->off, sizeof(v16));
		return v16;
	case F_BIT:
		memcpy(&v64, p + FLAGS_OFF, sizeof(v64));
		return (v64 >> f->shift) & ((1ull << f->width) - 1);
	}
	return 0;
}

int tally_attr__set(struct perf_event_attr *attr, const char *name, uint64_t val)
{
	const struct field *f = find(name);
	unsigned char *p = (unsigned char *)attr;
	uint64_t v64, mask;
	uint32_t v32;
	uint16_t v16;

	if (!attr)
		return tally__err(EINVAL);
	if (!f)
		return tally__err(ENOENT);
	switch (f->kind) {
	case F_U64:
		memcpy(p + f->off, &val, sizeof(val));
		return 0;
	case F_U32:
		if (val > UINT32_MAX)
			return tally__err(ERANGE);
		v32 = (uint32_t)val;
		memcpy(p + f->off, &v32, sizeof(v32));
		return 0;
	case F_S32:
		/* clockid: accept a non-negative id or a sign-extended negative one. */
		if (val > INT32_MAX && val < (uint64_t)INT32_MIN)
			return tally__err(ERANGE);
		v32 = (uint32_t)val;
		memcpy(p + f->off, &v32, sizeof(v32));
		return 0;
	case F_U16:
		if (val > UINT16_MAX)
			return tally__err(ERANGE);
		v16 = (uint16_t)val;
		memcpy(p + f->off, &v16, sizeof(v16));
		return 0;
	case F_BIT:
		mask = (1ull << f->width) - 1;
		if (val > mask)
			return tally__err(ERANGE);
		memcpy(&v64, p + FLAGS_OFF, sizeof(v64));
		v64 = (v64 & ~(mask << f->shift)) | (val << f->shift);
		memcpy(p + FLAGS_OFF, &v64, sizeof(v64));
		return 0;
	}
	return tally__err(EINVAL);
}

int tally_attr__get(const struct perf_event_attr *attr, const char *name, uint64_t *val)
{
	const struct field *f = find(name);

	if (!attr || !val)
		return tally__err(EINVAL);
	if (!f)
		return tally__err(ENOENT);
	*val = get_raw(attr, f);
	return 0;
}

const char *tally_attr__field_name(size_t i)
{
	return i < ARRAY_SIZE(fields) ? fields[i].name : NULL;
}

/* For a union, print the member that this attr means. */
static bool alias_shown(const struct perf_event_attr *a, enum falias al)
{
	switch (al) {
	case A_NONE:
		return true;
	case A_PERIOD:
		return !a->freq;
	case A_FREQ:
		return a->freq;
	case A_WAKE_EV:
		return !a->watermark;
	case A_WAKE_WM:
		return a->watermark;
	case A_BP:
		return a->type == PERF_TYPE_BREAKPOINT;
	case A_CFG:
		return a->type != PERF_TYPE_BREAKPOINT;
	case A_NEVER:
		return false;
	}
	return true;
}

int tally_attr__fprint(const struct perf_event_attr *attr, FILE *fp)
{
	int total = 0;

	if (!attr || !fp)
		return tally__err(EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];
		uint64_t v = get_raw(attr, f);
		int n;

		if (!v || !alias_shown(attr, f->alias))
			continue;
		if (f->kind == F_S32)
			n = fprintf(fp, "  %-32s %d\n", f->name, (int)(int64_t)v);
		else if (f->show == SHOW_HEX)
			n = fprintf(fp, "  %-32s %#llx\n", f->name, (unsigned long long)v);
		else
			n = fprintf(fp, "  %-32s %llu\n", f->name, (unsigned long long)v);
		if (n < 0)
			return tally__err(errno ? errno : EIO);
		total += n;
	}
	return total;
}
