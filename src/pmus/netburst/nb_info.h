/*
 * nb_info.h - `pmustat info` on a NetBurst PMU (nb_info.c): the info
 * operations of its family table (pmu/family.h).
 */
#ifndef PMUSTAT_NB_INFO_H
#define PMUSTAT_NB_INFO_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct cpu_info;
struct hw;
struct pmu_family_probe;

int nb_info_probe(struct hw *hw, int cpu, struct pmu_family_probe *out);
const char *nb_info_unusable(const struct pmu_family_probe *probe, int cpu, char *buf, size_t size);
void nb_info_text(const struct cpu_info *c, const struct pmu_family_probe *probe, int cpu, FILE *o);
json_t *nb_info_json(const struct cpu_info *c, const struct pmu_family_probe *probe);

#endif
