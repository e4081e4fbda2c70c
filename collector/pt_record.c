/*
 * pt_record: opening Intel PT for a recording, and its beginning and
 * end.  The drain rounds are in pt_drain.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "perf_open.h"
#include "procfs.h"
#include "pt_record.h"
#include "recorder.h"
#include "symbol_sources.h"

/* A calibration pair is tried this often while recording: the perf and
 * monotonic clocks drift apart by parts per million, so a second
 * between pairs keeps interpolation errors in the nanoseconds. */
#define PT_PAIR_INTERVAL_NS 1000000000ull

void pt_record_init(struct pt_recording *pr)
{
	memset(pr, 0, sizeof(*pr));
	pt_calibrator_init(&pr->cal);
	pt_clock_init(&pr->clock, NULL);
	idmap_init(&pr->carriers);
	errmsg_init(&pr->warning);
	pr->sigfd = -1;
}

void pt_record_release(struct pt_recording *pr)
{
	for (size_t i = 0; i < pr->nbufs; i++) {
		pt_aux_unmap(&pr->bufs[i].aux);
		ring_unmap(&pr->bufs[i].ring);
		free(pr->bufs[i].fds);
	}
	free(pr->bufs);
	free(pr->cpu_buf);
	free(pr->outs);
	free(pr->vdso);
	free(pr->scratch);
	free(pr->tbuf);
	if (pr->sigfd >= 0)
		close(pr->sigfd);
	idmap_release(&pr->carriers);
	pt_clock_release(&pr->clock);
	pt_calibrator_close(&pr->cal);
	pt_record_init(pr);
}

int pt_record_probe(struct pt_recording *pr, const struct pt_settings *s,
		    const char *root, struct errmsg *e)
{
	struct pt_tsc_conv conv;
	int err;

	pr->set = *s;
	err = pt_pmu_read(&pr->pmu, root, e);
	if (err == 0)
		err = pt_config_build(&pr->pmu, s, &pr->config, e);
	if (err < 0)
		return err;
	pr->aux_bytes = pt_aux_bytes(s, (size_t)sysconf(_SC_PAGESIZE));
	pt_attr_fill(&pr->pmu, pr->config, s, pr->aux_bytes, &pr->attr);
	err = pt_calibrator_open(&pr->cal, e);
	if (err == 0)
		err = pt_calibrator_conv(&pr->cal, root, &conv, e);
	if (err == 0)
		pt_clock_init(&pr->clock, &conv);
	return err;
}

/* ---- opening --------------------------------------------------------- */

static int perf_open_group(struct perf_event_attr *a, pid_t pid, int cpu,
			   int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int add_fd(struct pt_buffer *b, int fd)
{
	if (ARRAY_RESERVE(b->fds, b->capfds, b->nfds + 1) < 0)
		return -ENOMEM;
	b->fds[b->nfds++] = fd;
	return 0;
}

/* The CPU's first PT event: its ring and AUX area, which the others
 * on the CPU write into.  The AUX area is mapped read-only (overwrite)
 * except in full mode. */
static int new_buffer(struct pt_recording *pr, const struct event_set *set,
		      int idx, int fd, struct errmsg *e)
{
	struct pt_buffer *b;
	char what[32];
	int err;

	if (ARRAY_RESERVE(pr->bufs, pr->capbufs, pr->nbufs + 1) < 0)
		return -ENOMEM;
	b = &pr->bufs[pr->nbufs];
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->cpu = set->cpus[idx];
	snprintf(what, sizeof(what), "CPU %d", b->cpu);
	err = ring_map(&b->ring, fd, b->cpu, PT_RING_BYTES);
	if (err < 0)
		return pt_aux_explain(-err, PT_RING_BYTES, what, e);
	err = pt_aux_map(&b->aux, &b->ring, pr->aux_bytes,
			 pr->set.mode != PT_MODE_FULL);
	if (err < 0) {
		ring_unmap(&b->ring);
		return pt_aux_explain(-err, pr->aux_bytes, what, e);
	}
	pr->cpu_buf[idx] = (int)pr->nbufs++;
	return 0;
}

int pt_record_open_leader(struct pt_recording *pr, struct event_set *set,
			  pid_t pid, int cpu_idx, int inherit, int on_exec,
			  int *group_fd, struct errmsg *e)
{
	struct perf_event_attr a = pr->attr;
	struct pt_buffer *b;
	int fd, err;

	*group_fd = -1;
	if (!pr->cpu_buf) {
		pr->ncpus = set->ncpus;
		pr->cpu_buf = malloc((size_t)set->ncpus * sizeof(*pr->cpu_buf));
		if (!pr->cpu_buf)
			return -ENOMEM;
		memset(pr->cpu_buf, 0xff, (size_t)set->ncpus * sizeof(*pr->cpu_buf));
	}
	a.inherit = (unsigned)inherit;
	a.enable_on_exec = (unsigned)on_exec;
	fd = perf_open(&a, pid, set->cpus[cpu_idx]);
	if (fd == -ESRCH && pid > 0)
		return -ESRCH;
	if (fd < 0)
		return perf_open_explain(-fd, &a, "intel_pt", pid, set->cpus[cpu_idx],
					 e);
	if (event_set_keep_fd(set, fd) < 0)
		return -ENOMEM;
	if (pr->cpu_buf[cpu_idx] < 0)
		err = new_buffer(pr, set, cpu_idx, fd, e);
	else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
		       pr->bufs[pr->cpu_buf[cpu_idx]].fd) < 0)
		err = errmsg_set(e, errno, "cannot share the Intel PT buffer on "
				 "CPU %d: %s", set->cpus[cpu_idx], strerror(errno));
	else
		err = 0;
	if (err < 0)
		return err;
	b = &pr->bufs[pr->cpu_buf[cpu_idx]];
	if (add_fd(b, fd) < 0)
		return -ENOMEM;
	if (pr->set.mode == PT_MODE_FAULT)
		*group_fd = fd;
	return 0;
}

int pt_record_is_carrier(const struct pt_recording *pr, int role)
{
	return pr->set.mode == PT_MODE_FAULT && role == ROLE_FAULT_MAJOR;
}

void pt_record_carrier(const struct pt_recording *pr, struct perf_event_attr *a)
{
	pt_attr_aux_sample(a, pr->set.size);
}

int pt_record_open_carrier(struct pt_recording *pr, struct perf_event_attr *a,
			   pid_t pid, int cpu, int group_fd)
{
	int fd = perf_open_group(a, pid, cpu, group_fd);

	if (fd < 0)
		return fd;
	/* Into the PT ring: the kernel lets a ring hold one clock only. */
	for (size_t i = 0; i < pr->nbufs; i++)
		for (size_t k = 0; k < pr->bufs[i].nfds; k++)
			if (pr->bufs[i].fds[k] == group_fd &&
			    ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, pr->bufs[i].fd) < 0) {
				int err = -errno;

				close(fd);
				return err;
			}
	return fd;
}

int pt_record_carrier_opened(struct pt_recording *pr, uint64_t id)
{
	return idmap_put(&pr->carriers, id, ROLE_FAULT_MAJOR);
}

/* ---- after opening --------------------------------------------------- */

/* The [vdso] of pid's memory, read through process_vm_readv; else this
 * process's own (one kernel, one vDSO image). */
struct vdso_find {
	uint64_t start, len;
};

static int find_vdso(void *ctx, const struct rec_mmap *m)
{
	struct vdso_find *f = ctx;

	if (!strcmp(m->filename, "[vdso]")) {
		f->start = m->start;
		f->len = m->len;
	}
	return 0;
}

static int read_vdso(struct pt_recording *pr, pid_t pid)
{
	struct vdso_find f = { 0, 0 };
	const void *own;
	size_t own_len;

	if (pid > 0 && proc_maps_each(pid, find_vdso, &f) == 0 && f.len &&
	    f.len <= (1u << 20) && (pr->vdso = malloc(f.len))) {
		struct iovec local = { pr->vdso, f.len };
		struct iovec remote = { (void *)(uintptr_t)f.start, f.len };

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)f.len) {
			pr->vdso_len = f.len;
			return 0;
		}
		free(pr->vdso);
		pr->vdso = NULL;
	}
	if (vdso_image(&own, &own_len) < 0 || !(pr->vdso = malloc(own_len)))
		return 0;	/* no vDSO: its trace becomes nomap gaps */
	memcpy(pr->vdso, own, own_len);
	pr->vdso_len = own_len;
	return 0;
}

/* A calibration pair, a few tries: a COMM record can be dropped. */
static int take_pair(struct pt_recording *pr, struct errmsg *e)
{
	struct pt_calib_pair p;
	int err = -EAGAIN;

	for (int i = 0; i < 3 && err == -EAGAIN; i++)
		err = pt_calibrator_take(&pr->cal, &p, e);
	if (err == -EAGAIN)
		return 0;	/* the next round tries again */
	if (err < 0)
		return err;
	if (pt_clock_add(&pr->clock, &p) == -ENOMEM)
		return -ENOMEM;
	pr->st.pairs++;
	return 0;
}

static int watch_sigusr2(struct pt_recording *pr, struct errmsg *e)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (pr->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return errmsg_set(e, errno, "cannot watch SIGUSR2 for --pt=stall: %s",
				  strerror(errno));
	return 0;
}

int pt_record_after_open(struct pt_recording *pr, struct recorder *r,
			 struct errmsg *e)
{
	const struct target_set *t = r->cfg.targets;
	pid_t pid = t->child ? t->child : t->npids ? t->pids[0] :
		    t->ntids ? proc_tgid(t->tids[0]) : 0;
	int err = read_vdso(pr, pid);

	pr->scratch_cap = 1 << 16;
	pr->scratch = malloc(pr->scratch_cap);
	if (!pr->scratch)
		return -ENOMEM;
	if (err == 0 && pr->set.mode == PT_MODE_STALL)
		err = watch_sigusr2(pr, e);
	if (err == 0)
		err = take_pair(pr, e);
	pr->next_pair_mono = monotonic_ns() + PT_PAIR_INTERVAL_NS;
	return err;
}

int pt_record_set_rows(struct pt_recording *pr, const struct pt_rows *rows,
		       struct errmsg *e)
{
	pr->rows = rows;
	if (!pr->vdso)
		return 0;
	return rows->vdso(rows->ctx, pr->vdso, pr->vdso_len, e);
}

int pt_record_to_mono(const struct pt_recording *pr, uint64_t perf_ns,
		      uint64_t *mono_ns)
{
	return pt_clock_perf_to_mono(&pr->clock, perf_ns, mono_ns);
}

/* A pair a second while recording. */
int pt_record_pair_due(struct pt_recording *pr, struct errmsg *e)
{
	uint64_t now = monotonic_ns();

	if (now < pr->next_pair_mono)
		return 0;
	pr->next_pair_mono = now + PT_PAIR_INTERVAL_NS;
	return take_pair(pr, e);
}

int pt_record_finish(struct pt_recording *pr, const struct recorder *r,
		     const struct pt_sink *sink, struct errmsg *e)
{
	struct pt_session_info info;
	int err = pt_record_round(pr, r, sink, e);

	if (err == 0)
		err = take_pair(pr, e);
	if (err < 0 || !pr->rows)
		return err;
	memset(&info, 0, sizeof(info));
	info.mode = pt_mode_name(pr->set.mode);
	info.pmu_type = pr->pmu.type;
	info.config = pr->config;
	info.snapshot_bytes = pr->set.size;
	info.aux_bytes = pr->aux_bytes;
	info.tsc_art_num = pr->pmu.tsc_art_num;
	info.tsc_art_den = pr->pmu.tsc_art_den;
	info.max_nonturbo_ratio = pr->pmu.max_nonturbo_ratio;
	info.mtc_period = (uint32_t)pt_config_get(&pr->pmu, pr->config, "mtc_period");
	pt_cpu_signature("/", &info.cpu_family, &info.cpu_model, &info.cpu_stepping);
	return pr->rows->clock(pr->rows->ctx, &info, &pr->clock, e);
}
