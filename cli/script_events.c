// SPDX-License-Identifier: MIT
/*
 * tally script's side-band lines: --show-task-events (COMM, FORK, EXIT),
 * --show-mmap-events (MMAP, MMAP2), --show-switch-events (SWITCH,
 * SWITCH_CPU_WIDE), --show-lost-events (LOST), --show-namespace-events,
 * --show-bpf-events (KSYMBOL, BPF_EVENT) and --show-cgroup-events
 * (CGROUP), each as perf 6.1's script prints it: the
 * sample fields of the record's event (its sample id's pid, tid, cpu and
 * time; without sample_id_all cpu 0, the record's pid/tid and time, or 0)
 * and the name of the thread the record is about, then
 * "PERF_RECORD_<TYPE>" and perf_event__fprintf's text of it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "script.h"

/* the record's event: its sample id's, else the first (perf's evlist__id2evsel) */
static int event_of(struct script_ctx *s, const struct tally_record *rec)
{
	struct tally_data_reader *rd = tally_session__reader(s->ss);
	int idx = 0;

	if (rec->has_sid && rec->sid.id && rd)
		idx = tally_data_reader__attr_of_id(rd, rec->sid.id);
	if (idx < 0 || idx >= tally_session__nr_events(s->ss))
		idx = 0;
	return idx;
}

/*
 * perf_sample__fprintf_start for a record about thread pid/tid (time: the
 * record's own, used without sample_id_all). false: -C drops it.
 */
static bool start(struct script_ctx *s, const struct perf_event_header *h,
		  const struct tally_record *rec, int32_t pid, int32_t tid, uint64_t time)
{
	int idx = event_of(s, rec);
	const struct perf_event_attr *a = tally_data_reader__attr(tally_session__reader(s->ss), idx);
	uint64_t f = s->attr_fields[idx];
	bool sid = a->sample_id_all && rec->has_sid;
	uint32_t cpu = sid ? rec->sid.cpu : 0;
	const char *comm = tally_machine__comm_of(s->m, tid);
	char unnamed[32];

	if (s->sf.cpus && (cpu >= 4096 || !(s->sf.cpus[cpu / 8] & (1u << (cpu % 8)))))
		return false;
	if (!comm) {
		snprintf(unnamed, sizeof(unnamed), ":%d", (int)tid);
		comm = unnamed;
	}
	script_print_start(s, f, comm,
			   (f & F_IP) && (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !s->hide_cg,
			   sid ? (int32_t)rec->sid.pid : pid, sid ? (int32_t)rec->sid.tid : tid, cpu,
			   h->misc, sid ? rec->sid.time : time);
	return true;
}

static void hex(struct script_ctx *s, uint64_t v)
{
	if (v) {
		ob_str(s, "0x");
		ob_num(s, v, 16, 0, '0');
	} else {
		ob_chr(s, '0');	/* printf's %#x of 0 */
	}
}

/* " PID/TID: [START(LEN) @ PGOFF" (the ids signed: the kernel's map is -1's) */
static void map_head(struct script_ctx *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		     uint64_t pgoff)
{
	char t[32];

	snprintf(t, sizeof(t), " %d/%d: [", (int)pid, (int)tid);
	ob_str(s, t);
	hex(s, start);
	ob_chr(s, '(');
	hex(s, len);
	ob_str(s, ") @ ");
	hex(s, pgoff);
}

static void print_mmap2(struct script_ctx *s, const struct tally_record_mmap2 *m)
{
	char t[96];

	map_head(s, m->pid, m->tid, m->start, m->len, m->pgoff);
	if (m->has_build_id) {
		ob_str(s, " <");
		for (int i = 0; i < m->build_id_size; i++)
			ob_num(s, m->build_id[i], 16, 2, '0');
		ob_chr(s, '>');
	} else {
		snprintf(t, sizeof(t), " %02x:%02x %llu %llu", m->maj, m->min,
			 (unsigned long long)m->ino, (unsigned long long)m->ino_generation);
		ob_str(s, t);
	}
	ob_str(s, "]: ");
	ob_chr(s, (m->prot & PROT_READ) ? 'r' : '-');
	ob_chr(s, (m->prot & PROT_WRITE) ? 'w' : '-');
	ob_chr(s, (m->prot & PROT_EXEC) ? 'x' : '-');
	ob_chr(s, (m->flags & MAP_SHARED) ? 's' : 'p');
	ob_chr(s, ' ');
	ob_str(s, m->filename);
	ob_chr(s, '\n');
}

/* "IN         ", "OUT        " or "OUT preempt" */
static const char *in_out(uint16_t misc)
{
	if (!(misc & PERF_RECORD_MISC_SWITCH_OUT))
		return "IN         ";
	return (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT preempt" : "OUT        ";
}

/* the thread a record without one of its own is about: its sample id's (perf's sample->pid) */
static int32_t sid_pid(const struct tally_record *rec)
{
	return rec->has_sid ? (int32_t)rec->sid.pid : -1;
}

static int32_t sid_tid(const struct tally_record *rec)
{
	return rec->has_sid ? (int32_t)rec->sid.tid : -1;
}

void script_round(struct tally_session *ss, void *ctx)
{
	(void)ss;
	ob_str(ctx, "PERF_RECORD_FINISHED_ROUND\n");	/* perf's line, nothing of the sample's */
}

void script_print_event(struct script_ctx *s, const struct perf_event_header *h,
			const struct tally_record *rec)
{
	const struct tally_record_task *t = &rec->u.task;
	char line[96];

	switch (h->type) {
	case PERF_RECORD_COMM:
		if (!s->show_task_events ||
		    !start(s, h, rec, (int32_t)rec->u.comm.pid, (int32_t)rec->u.comm.tid, 0))
			return;
		ob_str(s, "PERF_RECORD_COMM");
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			ob_str(s, " exec");
		ob_str(s, ": ");
		ob_str(s, rec->u.comm.comm);
		snprintf(line, sizeof(line), ":%d/%d\n", (int)rec->u.comm.pid, (int)rec->u.comm.tid);
		ob_str(s, line);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!s->show_task_events || !start(s, h, rec, (int32_t)t->pid, (int32_t)t->tid, t->time))
			return;
		ob_str(s, h->type == PERF_RECORD_FORK ? "PERF_RECORD_FORK" : "PERF_RECORD_EXIT");
		snprintf(line, sizeof(line), "(%d:%d):(%d:%d)\n", (int)t->pid, (int)t->tid,
			 (int)t->ppid, (int)t->ptid);
		ob_str(s, line);
		return;
	case PERF_RECORD_MMAP:
		if (!s->show_mmap_events ||
		    !start(s, h, rec, (int32_t)rec->u.mmap.pid, (int32_t)rec->u.mmap.tid, 0))
			return;
		ob_str(s, "PERF_RECORD_MMAP");
		map_head(s, rec->u.mmap.pid, rec->u.mmap.tid, rec->u.mmap.start, rec->u.mmap.len,
			 rec->u.mmap.pgoff);
		ob_str(s, "]: ");
		ob_chr(s, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x');
		ob_chr(s, ' ');
		ob_str(s, rec->u.mmap.filename);
		ob_chr(s, '\n');
		return;
	case PERF_RECORD_MMAP2:
		if (!s->show_mmap_events ||
		    !start(s, h, rec, (int32_t)rec->u.mmap2.pid, (int32_t)rec->u.mmap2.tid, 0))
			return;
		ob_str(s, "PERF_RECORD_MMAP2");
		print_mmap2(s, &rec->u.mmap2);
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* perf: the sample id's thread (none without one) */
		if (!s->show_switch_events ||
		    !start(s, h, rec, sid_pid(rec), sid_tid(rec), 0))
			return;
		ob_str(s, h->type == PERF_RECORD_SWITCH ? "PERF_RECORD_SWITCH" :
			  "PERF_RECORD_SWITCH_CPU_WIDE");
		ob_chr(s, ' ');
		ob_str(s, in_out(h->misc));
		if (h->type == PERF_RECORD_SWITCH_CPU_WIDE) {
			snprintf(line, sizeof(line), "  %s pid/tid: %5d/%-5d",
				 (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? "next" : "prev",
				 (int)rec->u.switch_cpu_wide.next_prev_pid,
				 (int)rec->u.switch_cpu_wide.next_prev_tid);
			ob_str(s, line);
		}
		ob_chr(s, '\n');
		return;
	case PERF_RECORD_LOST:
		if (!s->show_lost_events ||
		    !start(s, h, rec, sid_pid(rec), sid_tid(rec), 0))
			return;
		snprintf(line, sizeof(line), "PERF_RECORD_LOST lost %llu\n",
			 (unsigned long long)rec->u.lost.lost);
		ob_str(s, line);
		return;
	case PERF_RECORD_KSYMBOL:
		if (!s->show_bpf_events || !start(s, h, rec, sid_pid(rec), sid_tid(rec), 0))
			return;
		snprintf(line, sizeof(line), "PERF_RECORD_KSYMBOL addr %llx len %u type %u flags 0x%x name ",
			 (unsigned long long)rec->u.ksymbol.addr, rec->u.ksymbol.len,
			 rec->u.ksymbol.ksym_type, rec->u.ksymbol.flags);
		ob_str(s, line);
		ob_str(s, rec->u.ksymbol.name);
		ob_chr(s, '\n');
		return;
	case PERF_RECORD_BPF_EVENT:
		if (!s->show_bpf_events || !start(s, h, rec, sid_pid(rec), sid_tid(rec), 0))
			return;
		snprintf(line, sizeof(line), "PERF_RECORD_BPF_EVENT type %u, flags %u, id %u\n",
			 rec->u.bpf_event.type, rec->u.bpf_event.flags, rec->u.bpf_event.id);
		ob_str(s, line);
		return;
	case PERF_RECORD_CGROUP:
		if (!s->show_cgroup_events || !start(s, h, rec, sid_pid(rec), sid_tid(rec), 0))
			return;
		snprintf(line, sizeof(line), "PERF_RECORD_CGROUP cgroup: %llu ",
			 (unsigned long long)rec->u.cgroup.id);
		ob_str(s, line);
		ob_str(s, rec->u.cgroup.path);
		ob_chr(s, '\n');
		return;
	case PERF_RECORD_NAMESPACES:
		if (!s->show_ns_events || !start(s, h, rec, (int32_t)rec->u.namespaces.pid,
						 (int32_t)rec->u.namespaces.tid, 0))
			return;
		ob_str(s, "PERF_RECORD_NAMESPACES");
		script_print_namespaces(s, &rec->u.namespaces);
		return;
	}
}
