/*
 * perfkit gpu serve: the entry point cmd_gpu.c dispatches `perfkit gpu serve`
 * to (argv[0] is "serve").
 */
#ifndef PERFKIT_CMD_GPU_SERVE_H
#define PERFKIT_CMD_GPU_SERVE_H

/* Serve Prometheus metrics until SIGINT/SIGTERM: 0, 1 on a run-time error, 2 on usage errors. */
int cmd_gpu_serve(int argc, char **argv);

#endif
