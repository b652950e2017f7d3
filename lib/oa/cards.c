/*
 * The i915 cards of a machine as sysfs describes them, for `perfkit oa
 * list` and for the live capture's choice of card: @sys_root/class/drm/cardN
 * whose device/driver link ends in "i915", its PCI id (device/device) and
 * the metric sets its kernel offers (metrics/<GUID>/id, the ids that
 * DRM_I915_PERF_PROP_OA_METRICS_SET takes).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>

/* Sets read per card at most: the kernel offers a few dozen. */
#define MAX_KERNEL_SETS 4096

/* N when @name is exactly "cardN", else -1 (connectors: card0-DP-1). */
static int card_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "card", 4) || name[4] < '0' || name[4] > '9')
		return -1;
	n = strtol(name + 4, &end, 10);
	return *end || n > INT_MAX ? -1 : (int)n;
}

/* True when @drm_dir/cardN/device/driver links to a driver named i915. */
static bool card_is_i915(const char *drm_dir, int card)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (pk_path_fmt(path, sizeof(path), "%s/card%d/device/driver", drm_dir, card))
		return false;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	return strcmp(base ? base + 1 : target, "i915") == 0;
}

static int by_id(const void *a, const void *b)
{
	const struct pk_oa_kernel_set *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The metric sets of @card_dir/metrics: GUID directories with a numeric id. */
static int read_sets(const char *card_dir, struct pk_oa_card *c)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	if (pk_path_fmt(dir, sizeof(dir), "%s/metrics", card_dir) || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d)) && c->n_sets < MAX_KERNEL_SETS) {
		uint64_t id;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(c->sets[0].guid) ||
		    pk_path_fmt(path, sizeof(path), "%s/%s/id", dir, de->d_name) ||
		    pk_file_read_u64(path, &id))
			continue;
		if (pk_array_grow((void **)&c->sets, &cap, c->n_sets + 1, sizeof(*c->sets), 32)) {
			closedir(d);
			return -ENOMEM;
		}
		snprintf(c->sets[c->n_sets].guid, sizeof(c->sets[0].guid), "%s", de->d_name);
		c->sets[c->n_sets++].id = id;
	}
	closedir(d);
	if (c->n_sets)
		qsort(c->sets, c->n_sets, sizeof(*c->sets), by_id);
	return 0;
}

static int by_card(const void *a, const void *b)
{
	const struct pk_oa_card *x = a, *y = b;

	return (x->card > y->card) - (x->card < y->card);
}

int pk_oa_cards_list(const char *sys_root, struct pk_oa_card **out, size_t *n_out,
		     struct pk_diag *diag)
{
	char drm_dir[PATH_MAX], path[PATH_MAX];
	struct pk_oa_card *cards = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	*out = NULL;
	*n_out = 0;
	if (pk_path_fmt(drm_dir, sizeof(drm_dir), "%s/class/drm", sys_root ? sys_root : "/sys"))
		return pk_diag_fail(diag, -ENAMETOOLONG, "sysfs path too long");
	if (!(d = opendir(drm_dir)))
		return 0;
	while (!err && (de = readdir(d))) {
		int num = card_number(de->d_name);
		struct pk_oa_card *c;
		char card_dir[PATH_MAX];
		uint64_t pci_id;

		if (num < 0 || !card_is_i915(drm_dir, num) ||
		    pk_path_fmt(card_dir, sizeof(card_dir), "%s/card%d", drm_dir, num))
			continue;
		if (pk_array_grow((void **)&cards, &cap, n + 1, sizeof(*cards), 4)) {
			err = -ENOMEM;
			break;
		}
		c = &cards[n++];
		memset(c, 0, sizeof(*c));
		c->card = num;
		/* sysfs writes it as "0x9a49" */
		if (!pk_path_fmt(path, sizeof(path), "%s/device/device", card_dir) &&
		    !pk_file_read_u64(path, &pci_id) && pci_id <= UINT32_MAX)
			c->pci_id = (uint32_t)pci_id;
		c->platform = pk_oa_platform_by_pci_id(c->pci_id);
		err = read_sets(card_dir, c);
	}
	closedir(d);
	if (err) {
		pk_oa_cards_free(cards, n);
		return pk_diag_fail(diag, err, "out of memory");
	}
	if (n)
		qsort(cards, n, sizeof(*cards), by_card);
	*out = cards;
	*n_out = n;
	return 0;
}

void pk_oa_cards_free(struct pk_oa_card *cards, size_t n)
{
	for (size_t i = 0; cards && i < n; i++)
		free(cards[i].sets);
	free(cards);
}
