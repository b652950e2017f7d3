/*
 * Names of the perf.data header features (HEADER_* bits 1..34): perf's
 * lower-case names for messages and options, and the upper-case spelling
 * perf prints in "# missing features:" and "# X info available" lines.
 */
#include <perfkit/perfdata.h>
#include "perfdata/features_int.h"

static const char *const names[PK_FEAT_LAST][2] = {
	[PK_FEAT_TRACING_DATA] = { "tracing_data", "TRACING_DATA" },
	[PK_FEAT_BUILD_ID] = { "build_id", "BUILD_ID" },
	[PK_FEAT_HOSTNAME] = { "hostname", "HOSTNAME" },
	[PK_FEAT_OSRELEASE] = { "osrelease", "OSRELEASE" },
	[PK_FEAT_VERSION] = { "version", "VERSION" },
	[PK_FEAT_ARCH] = { "arch", "ARCH" },
	[PK_FEAT_NRCPUS] = { "nrcpus", "NRCPUS" },
	[PK_FEAT_CPUDESC] = { "cpudesc", "CPUDESC" },
	[PK_FEAT_CPUID] = { "cpuid", "CPUID" },
	[PK_FEAT_TOTAL_MEM] = { "total_mem", "TOTAL_MEM" },
	[PK_FEAT_CMDLINE] = { "cmdline", "CMDLINE" },
	[PK_FEAT_EVENT_DESC] = { "event_desc", "EVENT_DESC" },
	[PK_FEAT_CPU_TOPOLOGY] = { "cpu_topology", "CPU_TOPOLOGY" },
	[PK_FEAT_NUMA_TOPOLOGY] = { "numa_topology", "NUMA_TOPOLOGY" },
	[PK_FEAT_BRANCH_STACK] = { "branch_stack", "BRANCH_STACK" },
	[PK_FEAT_PMU_MAPPINGS] = { "pmu_mappings", "PMU_MAPPINGS" },
	[PK_FEAT_GROUP_DESC] = { "group_desc", "GROUP_DESC" },
	[PK_FEAT_AUXTRACE] = { "auxtrace", "AUXTRACE" },
	[PK_FEAT_STAT] = { "stat", "STAT" },
	[PK_FEAT_CACHE] = { "cache", "CACHE" },
	[PK_FEAT_SAMPLE_TIME] = { "sample_time", "SAMPLE_TIME" },
	[PK_FEAT_MEM_TOPOLOGY] = { "mem_topology", "MEM_TOPOLOGY" },
	[PK_FEAT_CLOCKID] = { "clockid", "CLOCKID" },
	[PK_FEAT_DIR_FORMAT] = { "dir_format", "DIR_FORMAT" },
	[PK_FEAT_BPF_PROG_INFO] = { "bpf_prog_info", "BPF_PROG_INFO" },
	[PK_FEAT_BPF_BTF] = { "bpf_btf", "BPF_BTF" },
	[PK_FEAT_COMPRESSED] = { "compressed", "COMPRESSED" },
	[PK_FEAT_CPU_PMU_CAPS] = { "cpu_pmu_caps", "CPU_PMU_CAPS" },
	[PK_FEAT_CLOCK_DATA] = { "clock_data", "CLOCK_DATA" },
	[PK_FEAT_HYBRID_TOPOLOGY] = { "hybrid_topology", "HYBRID_TOPOLOGY" },
	[PK_FEAT_PMU_CAPS] = { "pmu_caps", "PMU_CAPS" },
	[PK_FEAT_CPU_DOMAIN_INFO] = { "cpu_domain_info", "CPU_DOMAIN_INFO" },
	[PK_FEAT_E_MACHINE] = { "e_machine", "E_MACHINE" },
	[PK_FEAT_CLN_SIZE] = { "cln_size", "CLN_SIZE" },
};

const char *pk_feature_name(unsigned feat)
{
	return feat < PK_FEAT_LAST ? names[feat][0] : NULL;
}

const char *pk_feature_name_upper(unsigned feat)
{
	return feat < PK_FEAT_LAST ? names[feat][1] : NULL;
}
