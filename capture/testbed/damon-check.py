#!/usr/bin/env python3
"""damon-check.py TRACE_TEXT — the DAMON expansion rule against an exact stream.

Reads `babeltrace2 --clock-cycles` text of one capture of an instrumented
workload (its exact vmreplay:anon_access stream) that DAMON vaddr monitored
(vmreplay_kernel:damon_aggregated), with no reclaim, and scores, per
aggregation interval, the page references that replay/ingest/damon.h's rule
makes of DAMON's regions against those the workload really made:

  N = aggr / sample, a = min(nr_accesses, N), k = 0 if a = 0 else
  min(K, ceil(a * K / N)); the rule references each resident page of the
  region k times in the interval (resident: touched by the stream before
  the interval's end; with no reclaim nothing leaves).

Both clocks are CLOCK_MONOTONIC: the stream's CTF cycles and DAMON's kts.
Prints key<TAB>value lines (see the README of the session it scores).
"""
import re
import sys

PAGE = 4096


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: damon-check.py TEXT SAMPLE_US AGGR_US MAX_PASSES HOT_MB")
    path = sys.argv[1]
    sample_ns, aggr_ns = int(sys.argv[2]) * 1000, int(sys.argv[3]) * 1000
    K, hot_bytes = int(sys.argv[4]), int(sys.argv[5]) << 20
    N = max(1, aggr_ns // sample_ns) if aggr_ns >= sample_ns else 1
    acc = []        # (ts, first page, pages)
    dam = []        # (kts, start page, end page, nr_accesses)
    ts_re = re.compile(r'^\[(\d+)\]')
    with open(path) as f:
        for line in f:
            if 'vmreplay:anon_access:' in line:
                ts = int(ts_re.match(line).group(1))
                addr = int(re.search(r'addr = (\d+)', line).group(1))
                ln = int(re.search(r'len = (\d+)', line).group(1))
                first = addr // PAGE
                acc.append((ts, first, (addr + ln - 1) // PAGE - first + 1))
            elif 'vmreplay_kernel:damon_aggregated:' in line:
                g = lambda k: re.search(r'\b' + k + r' = (0x[0-9a-f]+|\d+)', line).group(1)
                dam.append((int(g('kts'), 0), int(g('start'), 0) // PAGE,
                            int(g('end'), 0) // PAGE, int(g('nr_accesses'), 0)))
    if not acc or not dam:
        sys.exit(f"damon-check.py: {path}: no anon_access or no damon_aggregated events")
    acc.sort()
    # The set: anon-storm maps one working set; its hot part is the first
    # HOT_MB (the lowest address the stream touched starts it).
    base = min(a[1] for a in acc)
    hot_end = base + hot_bytes // PAGE
    # Intervals: the regions DAMON reports at one aggregation's end come
    # together; a gap of more than half an interval starts the next one.
    intervals, cur = [], []
    for d in dam:
        if cur and d[0] - cur[-1][0] > aggr_ns // 2:
            intervals.append(cur)
            cur = []
        cur.append(d)
    intervals.append(cur)

    def passes(a):
        a = min(a, N)
        return 0 if a == 0 else min(K, -(-a * K // N))

    touched = set()         # pages the stream has touched so far
    i = 0
    tot = {'exact': 0, 'rule': 0, 'exact_hot': 0, 'rule_hot': 0,
           'exact_pages': 0, 'rule_pages': 0, 'both_pages': 0, 'scored': 0}
    # An interval runs from the previous one's end (the first: AGGR before
    # its end); under UML kdamond's intervals run longer than asked.
    prev_end, lengths = None, []
    for iv in intervals:
        end = iv[0][0]
        start = prev_end if prev_end is not None else end - aggr_ns
        if prev_end is not None:
            lengths.append(end - prev_end)
        prev_end = end
        inter = {}          # page -> references in (start, end]
        while i < len(acc) and acc[i][0] <= end:
            ts, first, n = acc[i]
            for p in range(first, first + n):
                if ts > start:
                    inter[p] = inter.get(p, 0) + 1
                touched.add(p)
            i += 1
        if start < acc[0][0]:
            continue        # an interval the stream had not begun: no score
        tot['scored'] += 1
        rule_pages = set()
        for _, s, e, nr in iv:
            k = passes(nr)
            if not k:
                continue
            res = [p for p in touched if s <= p < e] if e - s > len(touched) else \
                  [p for p in range(s, e) if p in touched]
            for p in res:
                rule_pages.add(p)
                tot['rule'] += k
                if base <= p < hot_end:
                    tot['rule_hot'] += k
        mine = {p for p in inter if any(s <= p < e for _, s, e, _ in iv)}
        for p in mine:
            tot['exact'] += inter[p]
            if base <= p < hot_end:
                tot['exact_hot'] += inter[p]
        tot['exact_pages'] += len(mine)
        tot['rule_pages'] += len(rule_pages)
        tot['both_pages'] += len(mine & rule_pages)
    pct = lambda a, b: f"{100.0 * a / b:.1f}" if b else "-"
    print(f"aggregation_intervals\t{len(intervals)} ({tot['scored']} scored)")
    lengths.sort()
    print(f"interval_ms_median\t{lengths[len(lengths) // 2] / 1e6:.1f}" if lengths else "interval_ms_median\t-")
    print(f"nr_accesses_max\t{max(d[3] for d in dam)}")
    print(f"damon_regions\t{len(dam)}")
    print(f"checks_per_interval\t{N} (sample {sample_ns // 1000} us, aggregation {aggr_ns // 1000} us, max {K} passes)")
    print(f"stream_accesses\t{len(acc)}")
    print(f"references_exact\t{tot['exact']}")
    print(f"references_rule\t{tot['rule']}")
    print(f"references_ratio_rule_to_exact\t{tot['rule'] / tot['exact']:.3f}" if tot['exact'] else
          "references_ratio_rule_to_exact\t-")
    print(f"hot_share_exact_pct\t{pct(tot['exact_hot'], tot['exact'])}")
    print(f"hot_share_rule_pct\t{pct(tot['rule_hot'], tot['rule'])}")
    print(f"pages_referenced_exact\t{tot['exact_pages']}")
    print(f"pages_referenced_rule\t{tot['rule_pages']}")
    print(f"recall_pct\t{pct(tot['both_pages'], tot['exact_pages'])} (of the pages the stream referenced in an interval, those the rule references in it)")
    print(f"precision_pct\t{pct(tot['both_pages'], tot['rule_pages'])} (of the pages the rule references in an interval, those the stream referenced in it)")


if __name__ == '__main__':
    main()
