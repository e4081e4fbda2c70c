/*
 * options_json: what a recording was asked for, as the session row's
 * options column keeps it (faultline-schema(5)): the effective values,
 * defaults included, so a session says how it was made.
 */
#include "../common/json.h"
#include "../common/strbuf.h"
#include "session.h"

static void json_ids(struct strbuf *sb, const char *key, const pid_t *v,
		     size_t n)
{
	json_key(sb, key, 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%d", i ? "," : "", (int)v[i]);
	strbuf_addc(sb, ']');
}

static void json_u64s(struct strbuf *sb, const char *key, const uint64_t *v,
		      size_t n)
{
	json_key(sb, key, 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	strbuf_addc(sb, ']');
}

static void json_strings(struct strbuf *sb, const char *key,
			 char *const *v, size_t n)
{
	json_key(sb, key, 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < n && v[i]; i++) {
		if (i)
			strbuf_addc(sb, ',');
		json_cstring(sb, v[i]);
	}
	strbuf_addc(sb, ']');
}

static void json_tracepoints(struct strbuf *sb, const struct tp_spec_list *l)
{
	json_key(sb, "events", 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < l->n; i++) {
		strbuf_adds(sb, i ? ",{" : "{");
		json_key(sb, "system", 1);
		json_cstring(sb, l->v[i].system);
		json_key(sb, "name", 0);
		json_cstring(sb, l->v[i].name);
		json_key(sb, "filter", 0);
		json_cstring_or_null(sb, l->v[i].filter);
		strbuf_addc(sb, '}');
	}
	strbuf_addc(sb, ']');
}

/* --latency's pairs, as given: "latency":["START/END[:FIELD]",...]. */
static void json_latencies(struct strbuf *sb, const struct lat_spec_list *l)
{
	json_key(sb, "latency", 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; l && i < l->n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		json_cstring(sb, l->v[i].name);
	}
	strbuf_addc(sb, ']');
}

char *record_options_json(const struct record_config *c)
{
	const struct target_set *t = c->targets;
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addf(&sb, "{\"min_fault_duration_ns\":%llu,\"duration_ns\":%llu,"
		    "\"buffer_bytes\":%llu,\"spool_bytes\":%llu,"
		    "\"spill_bytes\":%llu,\"all\":%s",
		    (unsigned long long)c->min_fault_dur_ns,
		    (unsigned long long)c->duration_ns,
		    (unsigned long long)c->ring_bytes,
		    (unsigned long long)c->spool_bytes,
		    (unsigned long long)(c->flight ? 0 : c->spill_bytes),
		    t->all ? "true" : "false");
	strbuf_addf(&sb, ",\"stacks\":\"%s\",\"stack_size\":%u,\"stacks_on\":%u,"
		    "\"symbolize\":%s", c->stacks.mode == STACKS_FP ? "fp" :
		    c->stacks.mode == STACKS_DWARF ? "dwarf" : "none",
		    c->stacks.stack_size, c->stacks.on,
		    c->symbolize ? "true" : "false");
	strbuf_addf(&sb, ",\"thread_states\":%s",
		    c->thread_states ? "true" : "false");
	strbuf_addf(&sb, ",\"ran_instead\":%s",
		    c->thread_states && c->ran_instead ? "true" : "false");
	strbuf_addf(&sb, ",\"wakers\":%s",
		    c->thread_states && c->wakers ? "true" : "false");
	strbuf_addf(&sb, ",\"wake_stacks\":%s",
		    c->thread_states && c->wakers && c->wake_stacks ?
		    "true" : "false");
	json_ids(&sb, "pids", t->pids, t->npids);
	json_ids(&sb, "tids", t->tids, t->ntids);
	json_strings(&sb, "comms", t->comms, t->ncomms);
	json_tracepoints(&sb, c->tracepoints);
	json_latencies(&sb, c->latencies);
	strbuf_addf(&sb, ",\"block_io\":%s", c->block_io ? "true" : "false");
	json_u64s(&sb, "udp_ports", c->udp ? c->udp->ports : NULL,
		  c->udp ? c->udp->nports : 0);
	json_u64s(&sb, "sockets", c->udp ? c->udp->inodes : NULL,
		  c->udp ? c->udp->ninodes : 0);
	strbuf_addf(&sb, ",\"sample_interval_ns\":%llu", c->udp ?
		    (unsigned long long)c->sample_interval_ns : 0ull);
	json_strings(&sb, "command", t->command, t->command ? (size_t)-1 : 0);
	if (c->cgroup) {
		json_key(&sb, "cgroup", 0);
		json_cstring(&sb, c->cgroup->dir);
		strbuf_addf(&sb, ",\"cgroup_interval_ns\":%llu",
			    (unsigned long long)c->cgroup_interval_ns);
	}
	if (c->pt)
		record_pt_json(&sb, c->pt);
	strbuf_addc(&sb, '}');
	return strbuf_detach(&sb);
}

