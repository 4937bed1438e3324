"""The paper profile's plan from measured timings: per paper and in all, the tasks, the work, the largest task and
the wall time on 2 cores and on 64 workers (list scheduling, longest chain first: what `verify --dry-run` prints).

The timings are what `theorylab verify --profile paper --sample 1` measured (one part of each stage of every check
run for real, the rest scaled by their declared cost): by default this machine's cache (with the shipped timings
where it has none), or a snapshot of it such as theorylab/_pipeline/paper_timings.json (the numbers behind the
README's "Reproduce the papers" table, shipped as package data so that `verify --dry-run` plans from them on a machine
that measured nothing; its test keeps the two equal). Run: python benchmarks/paper_plan.py [--timings FILE] [--snapshot FILE] [--markdown]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

WORKERS = (2, 64)


def plans(timings: str | None = None) -> dict:
    """{paper name or "all": {tasks, work_s, largest_s, largest, unmeasured, over_bound, wall_s: {N: s}}}."""
    from theorylab._pipeline import catalogue, runner
    from theorylab._records.evidence import Context

    if timings:
        runner._TIMINGS = timings
    out = {}
    groups = [(p.name, [p.name]) for p in catalogue.papers()] + [("all", [])]
    for name, select in groups:
        ids, _ = catalogue.select(select)
        tasks = runner.plan(ids, Context(profile="paper"))
        est = runner.estimate(tasks, "paper")
        known = [s for s in est if s is not None]
        big = max(range(len(tasks)), key=lambda i: est[i] or 0.0)
        out[name] = {"tasks": len(tasks), "work_s": sum(known), "largest_s": est[big] or 0.0,
                     "largest": tasks[big].label, "unmeasured": len(tasks) - len(known),
                     "over_bound": sorted({t.key for t, s in zip(tasks, est) if s and s > runner.BOUND_SECONDS}),
                     "critical_path_s": runner.schedule(tasks, est, len(tasks)),
                     "wall_s": {n: runner.schedule(tasks, est, n) for n in WORKERS}}
    return out


def _h(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else _m(seconds)


def _m(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timings", default="", help="a timings file (default: this machine's cache)")
    ap.add_argument("--snapshot", default="", help="write the paper-profile timings of the cache to this file")
    ap.add_argument("--markdown", action="store_true", help="print the rows of the README's table")
    args = ap.parse_args(argv)
    if args.snapshot:
        from theorylab._pipeline import runner

        known = runner._known()
        keep = {k: v for k, v in known.items() if k.startswith("paper|") or "|derivation|" in k}
        with open(args.snapshot, "w") as fh:
            json.dump(keep, fh, indent=0, sort_keys=True)
        print(f"wrote {len(keep)} timings to {args.snapshot}")
    res = plans(args.timings or None)
    for name, r in res.items():
        if args.markdown:  # the README's cells: paper profile (plan) | wall on 2 cores / 64 workers
            print(f"{name}: | {r['tasks']} tasks, {_h(r['work_s'])} of work, largest task {_m(r['largest_s'])} | "
                  f"{_h(r['wall_s'][2])} / {_h(r['wall_s'][64])} |")
        else:
            print(f"{name}: {r['tasks']} tasks, {r['work_s']:.0f} s of work, largest {r['largest_s']:.0f} s "
                  f"({r['largest'][:80]}), critical path {r['critical_path_s']:.0f} s, on 2 workers "
                  f"{r['wall_s'][2]:.0f} s, on 64 {r['wall_s'][64]:.0f} s; {r['unmeasured']} not measured; over one "
                  f"CPU-hour: {', '.join(r['over_bound']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
