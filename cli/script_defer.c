// SPDX-License-Identifier: MIT
/*
 * tally script on a first run: kallsyms (5 MB the kernel formats on each
 * read) is read on its own thread from the session's open, and the first
 * sample of most files is already a kernel one. Rather than wait for it,
 * the lines go on being made and kept in memory, each kernel frame left
 * out with a note of where it goes; once the symbols are there (polled at
 * each sample), or before the kernel's maps change, or at the end, the
 * kept text is written with those frames made in their places. The output
 * is the same bytes, in the same order.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include "script.h"

/* past this much kept text the run waits for kallsyms instead */
#define DEFER_MAX (256u << 20)
/*
 * The kept text's room, reserved whole and touched only as it fills: a
 * buffer doubled by realloc copied and zeroed twice the text (a first
 * run's 8.6 MB of gcc's lines: a tenth of the main thread's time).
 */
#define DTEXT_ROOM ((size_t)DEFER_MAX + sizeof(((struct script_ctx *)0)->buf))

void script_defer_start(struct script_ctx *s)
{
	s->deferring = tally_symbols__kernel_pending(s->syms);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 1024;
	void *v;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if (!(v = realloc(*p, n * size)))
		return false;
	*p = v;
	*cap = n;
	return true;
}

void script_defer_keep(struct script_ctx *s, const char *p, size_t n)
{
	static char save[sizeof(s->buf)];

	if (!s->dtext) {
		void *v = mmap(NULL, DTEXT_ROOM, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (v != MAP_FAILED) {
			/* in 2 MB pages where the kernel lends them: a fault each, not 512 */
			(void)madvise(v, DTEXT_ROOM, MADV_HUGEPAGE);
			s->dtext = v;
			s->dcap = DTEXT_ROOM;
		}
	}
	if (s->dlen + n > s->dcap) {
		/* no memory to keep more: what is kept written now, its frames made (waiting), then p */
		if (p == s->buf) {
			memcpy(save, p, n);
			p = save;
			s->len = 0;
		}
		s->deferring = false;
		script_defer_end(s);
		fwrite(s->buf, 1, s->len, s->out);
		s->len = 0;
		s->flushes++;
		fwrite(p, 1, n, s->out);
		return;
	}
	memcpy(s->dtext + s->dlen, p, n);
	s->dlen += n;
}

bool script_defer_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, int chain, uint64_t opts)
{
	/* the sample's own ip with fields after it: its line end is taken back (print_sample) */
	if (chain == 0 && (opts & F_TAIL))
		return false;
	if (mode != TALLY_CPUMODE_KERNEL && mode != TALLY_CPUMODE_GUEST_KERNEL)
		return false;
	if (s->dlen + s->len > DEFER_MAX ||
	    !grow((void **)&s->dfr, &s->cdfr, s->ndfr + 1, sizeof(*s->dfr))) {
		script_defer_end(s);
		return false;
	}
	s->dfr[s->ndfr++] = (struct dframe){ .at = s->dlen + s->len, .ip = ip, .opts = opts,
					     .pid = (int32_t)smp->pid, .tid = (int32_t)smp->tid,
					     .mode = (uint8_t)mode, .chain = (uint8_t)chain };
	return true;
}

void script_defer_end(struct script_ctx *s)
{
	size_t from = 0;
	char *text;
	size_t len;

	if (!s->deferring && !s->dlen && !s->ndfr)
		return;
	/* the line buffer's part after the kept text: kept too, then all written in order */
	if (s->deferring && s->len) {
		script_defer_keep(s, s->buf, s->len);
		s->len = 0;
		s->flushes++;
	}
	s->deferring = false;
	text = s->dtext;
	len = s->dlen;
	s->dtext = NULL;
	s->dlen = s->dcap = 0;
	for (size_t i = 0; i < s->ndfr; i++) {
		const struct dframe *f = &s->dfr[i];
		struct tally_sample smp = { .pid = (uint32_t)f->pid, .tid = (uint32_t)f->tid };

		if (f->at > from)	/* text is NULL when nothing was kept */
			ob_mem(s, text + from, f->at - from);
		from = f->at;
		script_print_frame(s, &smp, f->ip, (enum tally_cpumode)f->mode, f->chain, f->opts);
	}
	if (len > from)
		ob_mem(s, text + from, len - from);
	if (text)
		munmap(text, DTEXT_ROOM);
	free(s->dfr);
	s->dfr = NULL;
	s->ndfr = s->cdfr = 0;
}
