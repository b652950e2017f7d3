/*
 * libFuzzer target for bare kernel streams (pk_oa_stream_read_mem): the
 * first byte picks the device (Haswell, Broadwell, Skylake, Tigerlake, DG2,
 * each with its format and a topology), the rest is read as what read() on
 * an i915 perf fd returned. When it parses, the timelines are built, every
 * report is decoded, and the stream is written as an IGT recording, which
 * must read back with the same reports. A corrupt-input failure must carry
 * a message and an offset inside the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "fuzz_oa_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	uint32_t pci_id;
	unsigned slices, subslices, eus;
} devices[] = {
	{ 0x0416, 1, 2, 10 }, { 0x1616, 1, 3, 8 }, { 0x1916, 1, 3, 8 },
	{ 0x9a49, 1, 6, 16 }, { 0x56a0, 1, 32, 16 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pk_oa_stream_device sd;
	struct pk_oa_recording *rec = NULL;
	struct pk_diag d;
	size_t k;
	int err;

	if (size < 1)
		return 0;
	k = data[0] % (sizeof(devices) / sizeof(devices[0]));
	memset(&sd, 0, sizeof(sd));
	sd.info.device_id = devices[k].pci_id;
	if (pk_oa_topology_uniform(&sd.topo, devices[k].slices, devices[k].subslices, devices[k].eus))
		abort();
	data++;
	size--;
	pk_diag_init(&d);
	err = pk_oa_stream_read_mem(data, size, "fuzz", &sd, &rec, &d);
	if (err == -EBADMSG && (d.offset >= size || !d.msg[0]))
		abort();
	if (err && err != -EBADMSG && err != -ENOMEM)
		abort();
	if (err)
		return 0;
	if (!pk_oa_recording_is_stream(rec))
		abort();
	fuzz_oa_exercise(rec);
	pk_oa_recording_free(rec);
	return 0;
}
