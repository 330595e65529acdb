// SPDX-License-Identifier: MIT
/*
 * The mmap ring buffer reader. The protocol and its memory ordering are
 * written down once, in include/tally/mmap.h.
 */
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <tally/mmap.h>
#include "internal.h"

/* header.size is a u16: no record is bigger than this. */
#define MAX_RECORD 65536

struct tally_mmap {
	struct perf_event_mmap_page *page;
	unsigned char *data;
	uint64_t mask;		/* data_size - 1 */
	uint64_t tail;		/* where the next batch starts (our data_tail) */
	uint64_t start;		/* the next record of the batch */
	uint64_t end;		/* data_head of the batch */
	uint64_t lost;
	uint64_t prev;		/* backward ring: data_head at the last read_done */
	uint64_t bhead;		/* backward ring: data_head of this batch */
	void *map;		/* the mapping (NULL for __new_mem) */
	size_t map_len;
	int fd;
	bool overwrite;		/* a backward ring: the kernel never waits for us */
	unsigned char *bounce;	/* MAX_RECORD bytes, allocated on first wrap */
};

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static struct tally_mmap *setup(struct tally_mmap *m, void *base, size_t len,
				size_t page_size)
{
	struct perf_event_mmap_page *pc = base;
	uint64_t off = pc->data_offset, size = pc->data_size;

	/* Before Linux 4.1 the data area is the rest of the mapping. */
	if (!size) {
		off = page_size;
		size = len > page_size ? len - page_size : 0;
	}
	if (off < sizeof(*pc) || off > len || size > len - off || !is_pow2(size))
		return tally__err_ptr(EINVAL);
	m->page = pc;
	m->data = (unsigned char *)base + off;
	m->mask = size - 1;
	/* Start where the kernel says user space is (a re-attached reader). */
	m->tail = __atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED);
	m->start = m->end = m->tail;
	m->prev = m->bhead = __atomic_load_n(&pc->data_head, __ATOMIC_RELAXED);
	return m;
}

static struct tally_mmap *map_ring(int fd, size_t pages, bool overwrite)
{
	struct tally_mmap *m;
	long psz = sysconf(_SC_PAGESIZE);
	size_t page_size = psz > 0 ? (size_t)psz : 4096;
	void *p;
	int err;

	if (fd < 0 || !is_pow2(pages) || pages > (SIZE_MAX / page_size) - 1)
		return tally__err_ptr(EINVAL);
	m = calloc(1, sizeof(*m));
	if (!m)
		return tally__err_ptr(ENOMEM);
	m->fd = fd;
	m->overwrite = overwrite;
	m->map_len = (pages + 1) * page_size;
	/* A read-only mapping is what tells the kernel to overwrite. */
	p = mmap(NULL, m->map_len, overwrite ? PROT_READ : PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		pr_debug("mmap: %zu pages of fd %d: %s\n", pages, fd, strerror(err));
		free(m);
		return tally__err_ptr(err);
	}
	m->map = p;
	if (!setup(m, p, m->map_len, page_size)) {
		err = errno;
		tally_mmap__free(m);
		return tally__err_ptr(err);
	}
	return m;
}

struct tally_mmap *tally_mmap__new(int fd, size_t pages)
{
	return map_ring(fd, pages, false);
}

struct tally_mmap *tally_mmap__new_overwrite(int fd, size_t pages)
{
	return map_ring(fd, pages, true);
}

struct tally_mmap *tally_mmap__new_mem(void *base, size_t len)
{
	struct tally_mmap *m;
	long psz = sysconf(_SC_PAGESIZE);

	if (!base || len < sizeof(struct perf_event_mmap_page))
		return tally__err_ptr(EINVAL);
	m = calloc(1, sizeof(*m));
	if (!m)
		return tally__err_ptr(ENOMEM);
	m->fd = -1;
	if (!setup(m, base, len, psz > 0 ? (size_t)psz : 4096)) {
		free(m);
		return tally__err_ptr(EINVAL);
	}
	return m;
}

void tally_mmap__free(struct tally_mmap *m)
{
	if (!m)
		return;
	if (m->map)
		munmap(m->map, m->map_len);
	free(m->bounce);
	free(m);
}

/* The size field of the header at ring position pos (it may wrap). */
static uint16_t size_at(const struct tally_mmap *m, uint64_t pos)
{
	struct perf_event_header h;
	uint64_t off = pos & m->mask;

	if (off + sizeof(h) <= m->mask + 1) {
		memcpy(&h, m->data + off, sizeof(h));
	} else {
		size_t first = m->mask + 1 - off;

		memcpy(&h, m->data + off, first);
		memcpy((unsigned char *)&h + first, m->data, sizeof(h) - first);
	}
	return h.size;
}

/*
 * A backward ring: the kernel writes each record just below the one
 * before, moving data_head down, and overwrites the oldest. The records
 * from head upwards are newest first; they end at the head of the previous
 * batch (what was written since: perf's snapshots are disjoint), at a zero
 * header (the ring never filled) or where the next would reach past one
 * ring from head (its start was overwritten). The caller pauses the output
 * first (PERF_EVENT_IOC_PAUSE_OUTPUT), so nothing moves while we walk.
 */
static int backward_init(struct tally_mmap *m)
{
	uint64_t head = __atomic_load_n(&m->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = head, size = m->mask + 1;

	if (head & 7)
		return tally__err(EBADMSG);
	/* head only moves down: [head, prev) is new, prev - head its length */
	while (pos - head < m->prev - head) {
		uint16_t n = size_at(m, pos);

		if (!n || (n & 7) || pos - head + n > size)
			break;
		pos += n;
	}
	m->bhead = head;
	m->tail = m->start = head;
	m->end = pos;
	return pos == head ? tally__err(EAGAIN) : 0;
}

int tally_mmap__read_init(struct tally_mmap *m)
{
	uint64_t head;

	if (!m)
		return tally__err(EINVAL);
	if (m->overwrite)
		return backward_init(m);
	/* Acquire: the records before head are visible once head is. */
	head = __atomic_load_n(&m->page->data_head, __ATOMIC_ACQUIRE);
	m->start = m->tail;
	m->end = head;
	if (head == m->tail)
		return tally__err(EAGAIN);
	if (head - m->tail > m->mask + 1 || ((head | m->tail) & 7)) {
		/*
		 * The kernel never overruns a forward ring and keeps both
		 * positions 8-byte aligned: a corrupt page.
		 */
		pr_warn("mmap: bad ring positions: data_head %llu, data_tail %llu (ring of %llu)\n",
			(unsigned long long)head, (unsigned long long)m->tail,
			(unsigned long long)(m->mask + 1));
		m->end = m->start;
		return tally__err(EBADMSG);
	}
	return 0;
}

const struct perf_event_header *tally_mmap__read_event(struct tally_mmap *m)
{
	const struct perf_event_header *ev;
	struct perf_event_header h;
	uint64_t avail, off, size;

	if (!m) {
		errno = EINVAL;
		return NULL;
	}
	avail = m->end - m->start;
	if (!avail) {
		errno = 0;
		return NULL;
	}
	off = m->start & m->mask;
	if (avail < sizeof(h))
		goto bad;
	/* The header itself may wrap (records are 8-aligned, so not in practice). */
	if (off + sizeof(h) <= m->mask + 1) {
		memcpy(&h, m->data + off, sizeof(h));
	} else {
		size_t first = m->mask + 1 - off;

		memcpy(&h, m->data + off, first);
		memcpy((unsigned char *)&h + first, m->data, sizeof(h) - first);
	}
	size = h.size;
	/* The kernel pads every record to a multiple of 8 bytes. */
	if (size < sizeof(h) || size > avail || (size & 7))
		goto bad;
	if (off + size <= m->mask + 1) {
		ev = (const void *)(m->data + off);
	} else {
		size_t first = m->mask + 1 - off;

		if (!m->bounce) {
			m->bounce = malloc(MAX_RECORD);
			if (!m->bounce) {
				errno = ENOMEM;
				return NULL;
			}
		}
		memcpy(m->bounce, m->data + off, first);
		memcpy(m->bounce + first, m->data, size - first);
		ev = (const void *)m->bounce;
	}
	if (h.type == PERF_RECORD_LOST && size >= sizeof(h) + 2 * sizeof(uint64_t)) {
		uint64_t lost;

		/* struct { header; u64 id; u64 lost; } */
		memcpy(&lost, (const unsigned char *)ev + sizeof(h) + sizeof(uint64_t),
		       sizeof(lost));
		m->lost += lost;
	}
	m->start += size;
	return ev;
bad:
	pr_warn("mmap: corrupt record header at %llu (%llu bytes left in batch)\n",
		(unsigned long long)m->start, (unsigned long long)avail);
	/* Skip the rest of the batch: there is no way to resync. */
	m->start = m->end;
	errno = EBADMSG;
	return NULL;
}

void tally_mmap__consume(struct tally_mmap *m)
{
	if (!m || m->tail == m->start)
		return;
	if (m->overwrite) {	/* read-only: the kernel does not wait for us */
		m->tail = m->start;
		return;
	}
	m->tail = m->start;
	/*
	 * Release: every load from the records we handed out happens before
	 * the kernel sees their space as free (the kernel's smp_mb() "(A)"
	 * after reading data_tail in perf_output_begin() is the other half).
	 */
	__atomic_store_n(&m->page->data_tail, m->tail, __ATOMIC_RELEASE);
}

void tally_mmap__read_done(struct tally_mmap *m)
{
	if (!m)
		return;
	tally_mmap__consume(m);
	/* a backward ring's next batch ends where this one began */
	if (m->overwrite)
		m->prev = m->bhead;
	m->end = m->start;
}

int tally_mmap__read_iov(const struct tally_mmap *m, struct iovec *iov)
{
	uint64_t len, off, size;

	if (!m || !iov)
		return tally__err(EINVAL);
	/* [tail, start): handed out by read_event, not yet given back */
	len = m->start - m->tail;
	if (!len)
		return 0;
	size = m->mask + 1;
	off = m->tail & m->mask;
	iov[0].iov_base = m->data + off;
	if (off + len <= size) {
		iov[0].iov_len = len;
		return 1;
	}
	iov[0].iov_len = size - off;
	iov[1].iov_base = m->data;
	iov[1].iov_len = len - (size - off);
	return 2;
}

bool tally_mmap__is_overwrite(const struct tally_mmap *m)
{
	return m && m->overwrite;
}

uint64_t tally_mmap__lost(const struct tally_mmap *m)
{
	return m ? m->lost : 0;
}

struct perf_event_mmap_page *tally_mmap__page(const struct tally_mmap *m)
{
	if (!m)
		return tally__err_ptr(EINVAL);
	return m->page;
}

size_t tally_mmap__data_size(const struct tally_mmap *m)
{
	return m ? m->mask + 1 : 0;
}

int tally_mmap__fd(const struct tally_mmap *m)
{
	if (!m)
		return tally__err(EINVAL);
	return m->fd;
}
