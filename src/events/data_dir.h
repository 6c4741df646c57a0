/*
 * data_dir.h - where the event tables are: the source tree's events/ when
 * pmustat runs from its build directory, the installed copy otherwise.
 */
#ifndef PMUSTAT_DATA_DIR_H
#define PMUSTAT_DATA_DIR_H

const char *pmustat_events_dir(void);

#endif
