/*
 * The device variables the metric equations read ($EuCoresTotalCount,
 * $SliceMask, $GpuTimestampFrequency, ...), as IGT's intel_perf_for_devinfo()
 * derives them: the topology counts and masks come from
 * pk_oa_topology_derive() (one implementation, lib/oa/recording_read.c), the
 * frequencies and revision from DEVICE_INFO, the EU thread count from the
 * platform table (lib/oa/devinfo.c).
 */
#include <string.h>
#include <perfkit/oa.h>
#include "recording_int.h"

PK_API void pk_oa_devvars_init(struct pk_oa_devvars *v, const struct pk_oa_topology *t,
			       const struct pk_oa_device_info *di, const struct pk_oa_platform *p)
{
	memset(v, 0, sizeof(*v));
	if (t) {
		v->eu_cores_total = t->n_eus;
		v->eu_slices_total = t->n_eu_slices;
		v->eu_subslices_total = t->n_eu_sub_slices;
		v->slice_mask = t->slice_mask;
		v->subslice_mask = t->subslice_mask;
	}
	if (di) {
		v->timestamp_frequency = di->timestamp_frequency;
		v->gt_min_freq = di->gt_min_frequency;
		v->gt_max_freq = di->gt_max_frequency;
		v->revision = di->revision;
	}
	v->eu_threads_count = p && p->eu_threads ? p->eu_threads : 7;
	v->query_mode = 0;
}

PK_API void pk_oa_devvars_from_recording(struct pk_oa_devvars *v, const struct pk_oa_recording *rec)
{
	pk_oa_devvars_init(v, &rec->topo, &rec->dev, rec->platform);
	v->timestamp_frequency = rec->timestamp_frequency;
}
