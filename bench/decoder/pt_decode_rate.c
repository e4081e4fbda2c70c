/*
 * pt_decode_rate: how fast faultline decodes Intel PT (decoder/pt_flow.c:
 * libipt's block decoder, the rows, their clock) against libipt's bare
 * block-decoder loop over the same bytes, in the same run, best of 5; and
 * how fast those rows go into SQLite (schema/pt_store.c), best of 3.
 *
 * The trace is built with libipt's encoder over tests/fixtures/pt/ptcode.S
 * (libptcode.so, mapped as a recording maps it), in pieces of 1 MiB that
 * each start at a PSB, as full mode stores them, with a PSB every 16 KiB
 * and a TSC every 256 turns inside:
 *
 *   spin   pt_spin: per turn six conditional branches in pt_inner, two
 *          calls and two (compressed) returns: code with some work
 *          between calls, full mode's default config
 *   loop   pt_loop with returns as TIP packets (noretcomp, the snapshot
 *          modes' config): a call and a return every 4 bytes of trace,
 *          the most rows a byte can make
 *
 * Usage: pt_decode_rate LIBPTCODE [MB] [DIR]
 *        (default 16 MB of trace per workload: the spin workload decodes
 *        at a few MB/s, a branch every two instructions; the database in
 *        /var/tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../decoder/pt_flow.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"
#include "../../schema/pt_store.h"
#include "../../tests/integration/elf_syms.h"
#include "../../tests/unit/pt_stream.h"

#define BASE 0x7f1234560000ull
#define PIECE (1u << 20)
#define PSB_EVERY (16u << 10)
#define ROUNDS 5

struct work {
	const char *name;
	uint8_t *bytes;		/* owned: the pieces, back to back */
	size_t len;
	size_t *piece;		/* owned: each piece's start */
	size_t npieces;
};

static const char *lib;
static uint64_t fn(const char *name)
{
	uint64_t v, size;

	if (elf_symbol(lib, name, &v, &size) < 0) {
		fprintf(stderr, "pt_decode_rate: no %s in %s\n", name, lib);
		exit(1);
	}
	return BASE + v;
}

/* TNT bits waiting for their packet (6 a TNT-8). */
struct tnt {
	uint64_t bits;
	unsigned n;
};

static void tnt_flush(struct pt_stream *s, struct tnt *t)
{
	if (t->n)
		ps_tnt(s, t->bits, t->n);
	t->bits = 0;
	t->n = 0;
}

static void tnt_add(struct pt_stream *s, struct tnt *t, int taken)
{
	t->bits = (t->bits << 1) | (taken ? 1 : 0);
	if (++t->n == 6)
		tnt_flush(s, t);
}

/* One piece of `spin` or `loop` trace, at most PIECE bytes, into s. */
static void build_piece(struct pt_stream *s, int spin, uint64_t *tsc)
{
	uint64_t f = spin ? fn("pt_spin") : fn("pt_loop");
	uint64_t turn = f + 4;	/* each function's loop starts at +4 */
	size_t next_psb = PSB_EVERY;
	struct tnt t = { 0, 0 };

	ps_psb(s, *tsc, turn);
	for (unsigned i = 0; ps_len(s) + 64 < PIECE && !s->failed; i++) {
		if (ps_len(s) >= next_psb) {
			tnt_flush(s, &t);
			ps_psb(s, *tsc, turn);
			next_psb += PSB_EVERY;
		}
		if (i % 256 == 0) {
			tnt_flush(s, &t);
			*tsc += 3000;
			ps_tsc(s, *tsc);
		}
		if (spin) {	/* pt_inner: 5 taken, 1 not; 2 rets; jnz */
			for (int k = 0; k < 6; k++)
				tnt_add(s, &t, k < 5);
			tnt_add(s, &t, 1);
			tnt_add(s, &t, 1);
			tnt_add(s, &t, 1);
		} else {	/* pt_leaf returns (TIP), jnz taken */
			tnt_flush(s, &t);
			ps_tip(s, f + 0xb);
			tnt_add(s, &t, 1);
		}
	}
	tnt_flush(s, &t);
}

static void build(struct work *w, const char *name, int spin, size_t mb)
{
	size_t cap = mb << 20, n = cap / PIECE;
	uint64_t tsc = 1000;

	w->name = name;
	w->bytes = malloc(cap);
	w->piece = calloc(n + 1, sizeof(*w->piece));
	if (!w->bytes || !w->piece)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		struct pt_stream s;

		if (ps_init(&s, PIECE) < 0)
			exit(1);
		build_piece(&s, spin, &tsc);
		w->piece[i] = w->len;
		memcpy(w->bytes + w->len, s.buf, ps_len(&s));
		w->len += ps_len(&s);
		ps_release(&s);
	}
	w->piece[n] = w->len;
	w->npieces = n;
}

static void piece(const struct work *w, size_t i, const uint8_t **p, size_t *n)
{
	*p = w->bytes + w->piece[i];
	*n = w->piece[i + 1] - w->piece[i];
}

/* libipt alone: sync, blocks, events; nothing kept. */
static uint64_t bare(const struct work *w, struct pt_image *image, uint64_t *blocks)
{
	uint64_t t0 = monotonic_ns();

	*blocks = 0;
	for (size_t i = 0; i < w->npieces; i++) {
		struct pt_config c;
		struct pt_block_decoder *d;
		const uint8_t *p;
		size_t n;

		piece(w, i, &p, &n);
		pt_config_init(&c);
		c.begin = (uint8_t *)p;
		c.end = (uint8_t *)p + n;
		c.flags.variant.block.end_on_call = 1;
		d = pt_blk_alloc_decoder(&c);
		pt_blk_set_image(d, image);
		for (;;) {
			int status = pt_blk_sync_forward(d);

			if (status < 0)
				break;
			for (;;) {
				struct pt_block b;
				struct pt_event ev;
				uint64_t tsc;
				uint32_t lm, lc;

				while (status >= 0 && (status & pts_event_pending))
					status = pt_blk_event(d, &ev, sizeof(ev));
				if (status < 0)
					break;
				status = pt_blk_next(d, &b, sizeof(b));
				pt_blk_time(d, &tsc, &lm, &lc);
				*blocks += b.ninsn != 0;
				if (status < 0)
					break;
			}
		}
		pt_blk_free_decoder(d);
	}
	return monotonic_ns() - t0;
}

static uint64_t ours(const struct work *w, const struct pt_flow_config *cfg,
		     struct pt_space *space, uint64_t *rows)
{
	struct pt_flow_out out;
	uint64_t t0 = monotonic_ns();

	pt_flow_out_init(&out);
	for (size_t i = 0; i < w->npieces; i++) {
		const uint8_t *p;
		size_t n;

		piece(w, i, &p, &n);
		pt_flow_out_reset(&out);
		if (pt_flow_decode(cfg, space, p, n, &out) < 0)
			exit(1);
	}
	*rows = out.st.rows;
	pt_flow_out_release(&out);
	return monotonic_ns() - t0;
}

/* The rows of the first pieces into a fresh database: ns, *rows. */
static uint64_t store(const struct work *w, const struct pt_flow_config *cfg,
		      struct pt_space *space, const char *path, size_t pieces,
		      uint64_t *rows)
{
	struct session_info si = { .host = "bench", .kernel = "k",
		.command_line = "pt_decode_rate", .options = "{}", .version = "0" };
	struct pt_flow_out out;
	struct pt_store st;
	struct loader l;
	struct errmsg e;
	sqlite3 *db;
	struct clock_map clock;
	struct clock_step step;
	uint64_t ns = 0, t0;

	errmsg_init(&e);
	unlink(path);
	clock_map_init(&clock);
	clock_anchor_take(&si.start);
	if (clock_map_add(&clock, &si.start, &step) < 0) {
		fprintf(stderr, "pt_decode_rate: out of memory\n");
		exit(1);
	}
	if (db_open_write(path, &db, &e) < 0 ||
	    loader_begin(&l, db, path, &si, &clock, &e) < 0 ||
	    pt_store_begin(&st, db, path, l.session_id, NULL, &e) < 0) {
		fprintf(stderr, "pt_decode_rate: %s\n", e.text);
		exit(1);
	}
	pt_flow_out_init(&out);
	*rows = 0;
	for (size_t i = 0; i < pieces && i < w->npieces; i++) {
		const uint8_t *p;
		size_t n;

		piece(w, i, &p, &n);
		pt_flow_out_reset(&out);
		pt_flow_decode(cfg, space, p, n, &out);
		t0 = monotonic_ns();
		if (pt_store_flow(&st, (int64_t)i + 1, 4001, 0, &out, NULL, NULL, &e) < 0) {
			fprintf(stderr, "pt_decode_rate: %s\n", e.text);
			exit(1);
		}
		ns += monotonic_ns() - t0;
		*rows += out.nrows;
	}
	t0 = monotonic_ns();
	pt_store_commit(&st, &e);
	ns += monotonic_ns() - t0;
	pt_flow_out_release(&out);
	pt_store_release(&st);
	loader_release(&l);
	db_close(db);
	clock_map_release(&clock);
	unlink(path);
	return ns;
}

static void run(const struct work *w, const struct pt_flow_config *cfg,
		struct pt_space *space, const char *db)
{
	uint64_t best_bare = UINT64_MAX, best_ours = UINT64_MAX, best_store = UINT64_MAX;
	uint64_t blocks = 0, rows = 0, stored = 0;
	double mb = (double)w->len / (1 << 20);

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t b = bare(w, space->image, &blocks);
		uint64_t o = ours(w, cfg, space, &rows);

		best_bare = b < best_bare ? b : best_bare;
		best_ours = o < best_ours ? o : best_ours;
	}
	for (int r = 0; r < 3; r++) {
		/* About two million rows. */
		size_t pieces = rows ? (size_t)(2000000.0 * w->npieces / rows) + 1 : 1;
		uint64_t s = store(w, cfg, space, db, pieces, &stored);

		best_store = s < best_store ? s : best_store;
	}
	printf("%-5s %7.1f MB  %10llu blocks  %10llu rows\n", w->name, mb,
	       (unsigned long long)blocks, (unsigned long long)rows);
	printf("      libipt block loop   %8.1f MB/s\n", mb / (best_bare / 1e9));
	printf("      faultline decode    %8.1f MB/s  %10.0f rows/s  %.2fx the bare loop's time\n",
	       mb / (best_ours / 1e9), rows / (best_ours / 1e9),
	       (double)best_ours / (double)best_bare);
	printf("      rows into SQLite    %10.0f rows/s (%llu rows, pt_store_flow)\n",
	       stored / (best_store / 1e9), (unsigned long long)stored);
}

int main(int argc, char **argv)
{
	static const struct pt_tsc_conv conv = { .time_zero = 0, .time_mult = 1 << 20,
						 .time_shift = 21 };
	struct pt_calib_pair pair = { 0, 1000000000ull, 0 };
	char db[512];
	size_t mb;
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_space space;
	struct pt_clock clock;
	struct pt_flow_config cfg = { 0 };
	struct pt_map m;
	struct work spin = { 0 }, loop = { 0 };
	char abs[4096];

	if (argc < 2 || !realpath(argv[1], abs)) {
		fprintf(stderr, "usage: pt_decode_rate LIBPTCODE [MB] [DIR]\n");
		return 2;
	}
	lib = abs;
	mb = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
	snprintf(db, sizeof(db), "%s/pt_decode_rate.%d.db", argc > 3 ? argv[3] :
		 "/var/tmp", (int)getpid());
	if (!isc || pt_space_init(&space, isc, NULL, 0) < 0)
		return 1;
	m = (struct pt_map){ BASE + 0x1000, 0x1000, 0x1000, lib, 1 };
	pt_space_add(&space, &m);
	pt_clock_init(&clock, &conv);
	pt_clock_add(&clock, &pair);
	cfg.clock = &clock;
	build(&spin, "spin", 1, mb);
	build(&loop, "loop", 0, mb);
	printf("pt_decode_rate: best of %d rounds (SQLite: of 3), pieces of %u KiB\n",
	       ROUNDS, PIECE >> 10);
	run(&spin, &cfg, &space, db);
	run(&loop, &cfg, &space, db);
	return 0;
}
