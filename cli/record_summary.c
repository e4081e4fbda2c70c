#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fmt_dur.h"
#include "record_summary.h"

static void print_latency(FILE *out, const struct record_pipeline *p,
			  enum fault_kind kind)
{
	const struct thread_table *tt = &p->faults.threads;
	struct log2_hist h;
	char a[32], b[32], c[32];

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < tt->n; i++) {
		const struct log2_hist *th = &tt->by_order[i]->hist[kind];

		for (unsigned k = 0; k < HIST_BUCKETS; k++)
			h.count[k] += th->count[k];
		h.total += th->total;
	}
	if (!h.total)
		return;
	fprintf(out, "  %s faults: %llu timed, p50 < %s, p99 < %s, max < %s\n",
		fault_kind_name(kind), (unsigned long long)h.total,
		fmt_dur(a, sizeof(a), hist_quantile_hi(&h, 0.5)),
		fmt_dur(b, sizeof(b), hist_quantile_hi(&h, 0.99)),
		fmt_dur(c, sizeof(c), hist_quantile_hi(&h, 1.0)));
}

static void print_stop(FILE *out, const struct recorder *r)
{
	switch (r->stop) {
	case STOP_SIGNAL:
		fprintf(out, "  stopped by %s\n", strsignal(r->stop_signal));
		break;
	case STOP_DURATION:
		fprintf(out, "  stopped after --duration\n");
		break;
	case STOP_TARGETS_GONE:
		if (r->child_status >= 0 && WIFEXITED(r->child_status))
			fprintf(out, "  command exited with status %d\n",
				WEXITSTATUS(r->child_status));
		else if (r->child_status >= 0 && WIFSIGNALED(r->child_status))
			fprintf(out, "  command killed by %s\n",
				strsignal(WTERMSIG(r->child_status)));
		else
			fprintf(out, "  the targets exited\n");
		break;
	case STOP_NONE:
		break;
	}
}

void record_summary_print(FILE *out, const struct record_pipeline *p,
			  const struct recorder *r, int64_t session_id,
			  const char *path)
{
	const struct fault_stats *st = &p->faults.st;
	uint64_t lost = p->n.lost_records + p->n.lost_samples;
	struct stat sb;

	fprintf(out, "faultline record: session %lld in '%s'\n",
		(long long)session_id, path);
	print_stop(out, r);
	fprintf(out, "  %llu records read, %llu faults (%llu minor, %llu major, "
		"%llu unfinished), %llu rows stored, %llu below the threshold\n",
		(unsigned long long)p->n.records,
		(unsigned long long)(st->minor + st->major + st->unfinished),
		(unsigned long long)st->minor, (unsigned long long)st->major,
		(unsigned long long)st->unfinished, (unsigned long long)st->stored,
		(unsigned long long)st->below_threshold);
	if (st->intervals || p->n.tracepoints)
		fprintf(out, "  %llu thread-state intervals, %llu tracepoint rows\n",
			(unsigned long long)st->intervals,
			(unsigned long long)p->n.tracepoints);
	if (p->udp)
		record_udp_summary(p->udp, out);
	print_latency(out, p, FAULT_MINOR);
	print_latency(out, p, FAULT_MAJOR);
	if (lost)
		fprintf(out, "  LOST: %llu records and %llu samples dropped by the "
			"kernel (ring full); faults near them may be unpaired. "
			"Raise --buffer-size or narrow the targets; the lost table "
			"says when and on which CPU\n",
			(unsigned long long)p->n.lost_records,
			(unsigned long long)p->n.lost_samples);
	else
		fprintf(out, "  nothing lost\n");
	if (p->n.throttles)
		fprintf(out, "  THROTTLED %llu times: the kernel paused sampling "
			"(perf_event_max_sample_rate); faults in those pauses were "
			"not seen. The lost table says when\n",
			(unsigned long long)p->n.throttles);
	if (p->n.malformed || r->framing_errors || p->order.late)
		fprintf(out, "  %llu malformed records, %llu read out of time "
			"order (see the session row)\n",
			(unsigned long long)(p->n.malformed + r->framing_errors),
			(unsigned long long)p->order.late);
	if (stat(path, &sb) == 0)
		fprintf(out, "  database %.1f MB\n", (double)sb.st_size / 1e6);
}
