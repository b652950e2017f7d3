/*
 * The full-screen view of `perfkit gpu` (ncurses): the devices with their
 * engines' total busy and memory, then the clients (or processes) of the
 * latest snapshot, sorted and filtered from the keyboard. It owns the view
 * options (sort, per-process, filters) that the keys change; the rows
 * themselves come from pk_gpu_view_rows().
 */
#ifndef PERFKIT_CLI_GPU_VIEW_H
#define PERFKIT_CLI_GPU_VIEW_H

#include <perfkit/gpu.h>

struct gpu_view;

/* What gpu_view_keys() reports. */
enum { GPU_VIEW_GO_ON = 0, GPU_VIEW_QUIT = 1 };

/*
 * Take over the terminal (newterm on stdout/stdin). -ENOTTY when stdin or
 * stdout is not a terminal or ncurses cannot drive it (the caller then
 * prints text), -ENOMEM.
 */
int gpu_view_open(struct gpu_view **out, double delay_s);
/* Give the terminal back. NULL-safe. */
void gpu_view_close(struct gpu_view *v);
/* Draw @s (NULL: a "waiting" screen). 0 or -ENOMEM. */
int gpu_view_draw(struct gpu_view *v, const struct pk_gpu_snapshot *s);
/*
 * Handle the keys pressed within @timeout_ms (returns at the first key or
 * at the timeout), redrawing @s when a key changed the view. GPU_VIEW_QUIT
 * on q, Q or ^C typed as a key; GPU_VIEW_GO_ON otherwise.
 */
int gpu_view_keys(struct gpu_view *v, const struct pk_gpu_snapshot *s, int timeout_ms);

#endif
