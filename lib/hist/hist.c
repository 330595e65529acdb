// SPDX-License-Identifier: MIT
/* The histogram (tally/hist.h): a placeholder until the report's model moves here. */
#include <errno.h>
#include <stdlib.h>
#include <tally/hist.h>

struct tally_hist *tally_hist__new(struct tally_session *ss, const struct tally_hist_opts *opts)
{
	errno = ENOSYS;
	return NULL;
}

void tally_hist__free(struct tally_hist *h) {}
int tally_hist__add(struct tally_hist *h, const struct tally_session_sample *smp) { return -ENOSYS; }
int tally_hist__set_filter(struct tally_hist *h, const struct tally_hist_filter *f) { return -ENOSYS; }
int tally_hist__resort(struct tally_hist *h) { return -ENOSYS; }
int tally_hist__sort(struct tally_hist *h, const int *order, int n) { return -ENOSYS; }
void tally_hist__zero(struct tally_hist *h) {}
int tally_hist__nr_events(const struct tally_hist *h) { return 0; }
int tally_hist__totals(const struct tally_hist *h, int event, struct tally_hist_totals *out) { return -ENOSYS; }
size_t tally_hist__nr_rows(const struct tally_hist *h, int event) { return 0; }
int tally_hist__row(const struct tally_hist *h, int event, size_t i, struct tally_hist_row *out) { return -ENOSYS; }
int tally_hist_node__info(const struct tally_hist_node *n, struct tally_hist_node_info *out) { return -ENOSYS; }
const struct tally_hist_node *tally_hist_node__child(const struct tally_hist_node *n) { return NULL; }
const struct tally_hist_node *tally_hist_node__next(const struct tally_hist_node *n) { return NULL; }
const struct tally_hist_node *tally_hist_node__parent(const struct tally_hist_node *n) { return NULL; }
const struct tally_hist_frame *tally_hist_node__frame(const struct tally_hist_node *n) { return NULL; }
