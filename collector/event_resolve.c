#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>

#include "event_resolve.h"

int event_resolve(const char *name, struct event_code *out, struct errmsg *e)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = pfm_initialize();
	if (rc != PFM_SUCCESS)
		return errmsg_set(e, EINVAL, "cannot resolve '%s': libpfm4 failed "
				  "to initialize (%s)", name, pfm_strerror(rc));
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
				       PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		free(fstr);
		if (rc == PFM_ERR_NOTFOUND)
			return errmsg_set(e, ENOENT, "unknown event '%s'; "
					  "'perf list' shows the names this "
					  "machine knows", name);
		return errmsg_set(e, EINVAL, "cannot resolve event '%s': %s",
				  name, pfm_strerror(rc));
	}
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	out->config2 = attr.config2;
	out->exclude_user = attr.exclude_user;
	out->exclude_kernel = attr.exclude_kernel;
	out->exclude_hv = attr.exclude_hv;
	if (fstr)
		strncpy(out->canonical, fstr, sizeof(out->canonical) - 1);
	free(fstr);
	return 0;
}
