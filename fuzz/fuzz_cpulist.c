/*
 * libFuzzer target for pk_cpulist_parse(): arbitrary bytes as a CPU list
 * ("0-3,8"), as read from sysfs or given to -C. It must never crash, read out
 * of bounds, or allocate more than PK_MAX_CPU entries.
 */
#include <stdlib.h>
#include <string.h>
#include <perfkit/core.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct pk_diag d;
	int *cpus = NULL;
	int n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	pk_diag_init(&d);
	n = pk_cpulist_parse(s, &cpus, &d);
	if (n > 0 && (cpus == NULL || cpus[n - 1] > 65535))
		abort();
	free(cpus);
	free(s);
	return 0;
}
