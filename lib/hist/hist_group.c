// SPDX-License-Identifier: MIT
/*
 * perf report's group view (tally_hist__set_group): a group's events are
 * shown as one table, the leader's rows, each with its members' counts
 * of the same key beside its own. As perf's hists__link: every member
 * entry is paired with the leader's entry of its key, one made (perf's
 * dummy entry: no counts, no graph) where the leader has none; the rows
 * are then ordered (hist_order.c) as perf's group view orders them, a
 * member's own period compared after the leader's, in event order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "hist_internal.h"
#include "rbtree.h"
#include "hist_priv.h"

int tally_hist__set_group(struct tally_hist *h, int leader, int nr)
{
	struct hist_group *g;
	int i = h ? h->ngroups : 0;

	if (!h || leader < 0 || nr < 1 || nr > INT32_MAX - leader)
		return -EINVAL;
	for (int k = 0; k < h->ngroups; k++)
		if (h->groups[k].leader == leader)
			i = k;		/* this group, set again */
		else if (leader < h->groups[k].leader + h->groups[k].nr &&
			 h->groups[k].leader < leader + nr)
			return -EINVAL;	/* an event is in one group */
	if (i < h->ngroups) {
		if (nr == 1)	/* off: the last one takes its place */
			h->groups[i] = h->groups[--h->ngroups];
		else
			h->groups[i].nr = nr;
		return 0;
	}
	if (nr == 1)
		return 0;
	if (!(g = realloc(h->groups, (size_t)(h->ngroups + 1) * sizeof(*g))))
		return -ENOMEM;
	h->groups = g;
	h->groups[h->ngroups++] = (struct hist_group){ leader, nr };
	return 0;
}

static int by_seq(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* member k's entries (every one, filtered too, as perf links them), in the order they were made */
static struct entry **entries_of(const struct hist_ev *hs)
{
	struct entry **v = malloc((hs->n + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t b = 0; b < hs->nbuckets; b++)
		for (struct entry *e = hs->tab[b]; e; e = e->next)
			v[n++] = e;
	qsort(v, n, sizeof(*v), by_seq);
	return v;
}

static int link_group(struct tally_hist *h, const struct hist_group *g)
{
	/* a leader without samples: no table of the group (perf's skip of an empty leader) */
	struct hist_ev *ls = g->leader < h->nev ? &h->ev[g->leader] : NULL;
	int nm = g->nr - 1, err = 0;
	/* each member's entries, in the order they were made, and their leader entries */
	struct entry **mine[nm > 0 ? nm : 1], **theirs[nm > 0 ? nm : 1];
	size_t nr[nm > 0 ? nm : 1];

	if (!ls)
		return 0;
	free(ls->gpair);
	ls->gpair = NULL;
	ls->gnm = nm;
	ls->gd_from = ls->made;
	for (int k = 0; k < nm; k++) {
		const struct hist_ev *ms = g->leader + 1 + k < h->nev ? &h->ev[g->leader + 1 + k] : NULL;

		mine[k] = theirs[k] = NULL;
		nr[k] = ms ? ms->n : 0;
		if (!nr[k] || err)
			continue;
		if (!(mine[k] = entries_of(ms)) || !(theirs[k] = malloc(nr[k] * sizeof(**theirs)))) {
			err = -ENOMEM;
			continue;
		}
		for (size_t i = 0; i < nr[k] && !err; i++) {
			bool made;

			if (!(theirs[k][i] = tally__hist_entry_pair(h, ls, mine[k][i], &made)))
				err = -ENOMEM;
			else if (made)	/* perf's dummy keeps its pair's filter verdict */
				theirs[k][i]->visible = mine[k][i]->visible;
		}
	}
	ls->gd_to = ls->made;
	/* the pairs' table, by leader entry, once every entry is made */
	if (!err && !(ls->gpair = calloc(ls->made * (size_t)nm + 1, sizeof(*ls->gpair))))
		err = -ENOMEM;
	for (int k = 0; k < nm; k++) {
		for (size_t i = 0; !err && i < nr[k]; i++)
			ls->gpair[theirs[k][i]->seq * (size_t)nm + (size_t)k] = mine[k][i];
		free(mine[k]);
		free(theirs[k]);
	}
	return err;
}

int tally__hist_group_link(struct tally_hist *h)
{
	for (int i = 0; i < h->ngroups; i++) {
		int err = link_group(h, &h->groups[i]);

		if (err)
			return err;
	}
	return 0;
}

/* member k's count of the leader entry e's key */
static uint64_t member(const struct hist_ev *ls, const struct entry *e, int k, int by)
{
	/* an entry made since the link (a live view's) pairs with nothing yet */
	const struct entry *m = e->seq < ls->gd_to ? ls->gpair[e->seq * (size_t)ls->gnm + (size_t)k] :
				NULL;

	return m ? tally__hist_entry_count(m, by) : 0;
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x != y ? (x > y ? -1 : 1) : 0;
}

int tally__hist_cmp_group(const struct tally_hist *h, const struct hist_ev *ls, const struct entry *a,
			  const struct entry *b, int by)
{
	int idx = h->group_sort, c;

	/* --group-sort-idx: that member's count first, then the other members' (not the leader's) */
	if (idx >= 1 && idx <= ls->gnm) {
		if ((c = cmp_u64(member(ls, a, idx - 1, by), member(ls, b, idx - 1, by))))
			return c;
		for (int k = 0; k < ls->gnm; k++)
			if (k != idx - 1 &&
			    (c = cmp_u64(member(ls, a, k, by), member(ls, b, k, by))))
				return c;
		return 0;
	}
	if ((c = cmp_u64(tally__hist_entry_count(a, by), tally__hist_entry_count(b, by))) || idx)
		return c;	/* an index past the group: the leader's alone, as perf */
	for (int k = 0; k < ls->gnm; k++)
		if ((c = cmp_u64(member(ls, a, k, by), member(ls, b, k, by))))
			return c;
	return 0;
}

int tally_hist__set_group_sort(struct tally_hist *h, int idx)
{
	if (!h || idx < 0)
		return -EINVAL;
	h->group_sort = idx;
	return 0;
}
