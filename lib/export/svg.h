/*
 * Flame graph SVG, private: the embedded script (svg_script.c).
 */
#ifndef PERFKIT_EXPORT_SVG_H
#define PERFKIT_EXPORT_SVG_H

extern const char pk_exp_svg_script[];

#endif
