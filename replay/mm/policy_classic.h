/* policy_classic.h — the classic LRU's decisions that tests check by hand. */
#ifndef POLICY_CLASSIC_H
#define POLICY_CLASSIC_H

#include "sim/engine.h"

/* get_scan_count: folios to scan per list (enum lru_list) at sc->priority. */
void get_scan_count(struct engine *e, int memcg, struct scan_control *sc, uint64_t *nr);
/* inactive_is_low: INACTIVE_LRU is too small next to its active list. */
int inactive_is_low(struct engine *e, int memcg, enum lru_list inactive_lru);

/* shrink_lruvec: one memcg's lists at sc->priority. */
void shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc);

extern const struct reclaim_policy policy_classic;
extern const struct reclaim_policy policy_classic_early_exit;
extern const struct reclaim_policy policy_classic_early_exit_direct;

#endif
