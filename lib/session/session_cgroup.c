// SPDX-License-Identifier: MIT
/*
 * The cgroups a session's side band names (resolved_internal.h): the
 * CGROUP records' paths by id, and each thread's cgroup namespace from
 * its NAMESPACES records, as perf's env and threads keep them for the
 * cgroup and cgroup_id keys.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/hash.h>
#include "resolved_internal.h"
#include "session_internal.h"

void tally__session_cgroup_note(struct tally_session *s, uint64_t id, const char *path)
{
	struct session_cgroups *c = &s->cgroups;

	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].id == id)
			return;		/* perf keeps an id's first name */
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		void *v = realloc(c->v, cap * sizeof(*c->v));

		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	if (!(c->v[c->nr].path = strdup(path ? path : "")))
		return;
	c->v[c->nr++].id = id;
}

const char *tally__session_cgroup_name(const struct tally_session *s, uint64_t id)
{
	for (size_t i = 0; i < s->cgroups.nr; i++)
		if (s->cgroups.v[i].id == id)
			return s->cgroups.v[i].path;
	return NULL;
}

/* tid's slot (open addressing; tids are never -1 here), NULL without memory */
static struct session_ns *ns_slot(struct session_cgroups *c, int32_t tid, bool make)
{
	if (make && (c->ns_nr + 1) * 2 > c->ns_cap) {
		size_t cap = c->ns_cap ? c->ns_cap * 2 : 64;
		struct session_ns *t = malloc(cap * sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < cap; i++)
			t[i].tid = -1;
		for (size_t i = 0; i < c->ns_cap; i++) {
			size_t j = tally_hash_mix((uint64_t)(uint32_t)c->ns[i].tid) & (cap - 1);

			if (c->ns[i].tid == -1)
				continue;
			while (t[j].tid != -1)
				j = (j + 1) & (cap - 1);
			t[j] = c->ns[i];
		}
		free(c->ns);
		c->ns = t;
		c->ns_cap = cap;
	}
	if (!c->ns_cap)
		return NULL;
	for (size_t j = tally_hash_mix((uint64_t)(uint32_t)tid) & (c->ns_cap - 1);;
	     j = (j + 1) & (c->ns_cap - 1)) {
		if (c->ns[j].tid == tid)
			return &c->ns[j];
		if (c->ns[j].tid == -1) {
			if (!make)
				return NULL;
			c->ns_nr++;
			c->ns[j] = (struct session_ns){ .tid = tid };
			return &c->ns[j];
		}
	}
}

void tally__session_ns_note(struct tally_session *s, int32_t tid, uint64_t nr,
			    const struct perf_ns_link_info *li)
{
	struct session_ns *n = tid == -1 ? NULL : ns_slot(&s->cgroups, tid, true);

	if (!n)
		return;
	/* perf's thread takes the record's namespaces, the cgroup's at CGROUP_NS_INDEX */
	n->dev = nr > CGROUP_NS_INDEX ? li[CGROUP_NS_INDEX].dev : 0;
	n->ino = nr > CGROUP_NS_INDEX ? li[CGROUP_NS_INDEX].ino : 0;
}

void tally__session_ns_forget(struct tally_session *s, int32_t tid)
{
	struct session_ns *n = ns_slot(&s->cgroups, tid, false);

	if (n)	/* a new thread of that tid: perf's is a new thread, without namespaces */
		n->dev = n->ino = 0;
}

void tally__session_cgroup_ns(const struct tally_session *s, int32_t tid, uint64_t *dev,
			      uint64_t *ino)
{
	struct session_ns *n = tid == -1 ? NULL :
			       ns_slot((struct session_cgroups *)&s->cgroups, tid, false);

	*dev = n ? n->dev : 0;
	*ino = n ? n->ino : 0;
}

void tally__session_cgroups_free(struct tally_session *s)
{
	for (size_t i = 0; i < s->cgroups.nr; i++)
		free(s->cgroups.v[i].path);
	free(s->cgroups.v);
	free(s->cgroups.ns);
	s->cgroups = (struct session_cgroups){ 0 };
}
