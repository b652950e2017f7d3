/*
 * perfkit oa record: live capture of the i915 OA stream into IGT's
 * recording format (cli/cmd_oa_record.c; cli/cmd_oa.c dispatches to it).
 */
#ifndef PERFKIT_CMD_OA_RECORD_H
#define PERFKIT_CMD_OA_RECORD_H

int cmd_oa_record(int argc, char **argv);

#endif
