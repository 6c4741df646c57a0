/*
 * data_dir.h - where the event tables are, found from where the binary is
 * (never from an environment variable: pmustat runs as root, and what it
 * reads must not be redirectable by the caller):
 *
 *	BINDIR/../share/pmustat/events	an installed pmustat, wherever its prefix was
 *					moved (PMUSTAT_EVENTS_REL: bindir to datadir, as configured)
 *	BINDIR/share/pmustat/events	the build tree (meson links the source's events/ there)
 *	PMUSTAT_EVENTS_DIR		the configured prefix's, as a last resort
 *
 * No build path is compiled in: a release binary carries only its prefix.
 */
#ifndef PMUSTAT_DATA_DIR_H
#define PMUSTAT_DATA_DIR_H

const char *pmustat_events_dir(void);

#endif
