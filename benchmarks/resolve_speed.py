"""Resolving an element run through the collection's index shards at the real collections'
scale (issue 32, point 2: runs read only the documents they need, one shard at a time).

A real INEX 2007 run returns tens of thousands of distinct articles (1500 elements x 107
topics); the simulated campaigns draw their runs from a working set of a few thousand. This
script builds such a run from the index itself: ``--docs`` articles drawn at random from the
collection's shards (seeded), ``--results`` element results spread over them with real xpaths,
then times :func:`inexflow.model.runs.resolve_extents` through
:func:`inexflow.model.collection_index.iter_document_tables`, against reading the same
documents' rows from the shards alone (the baseline: the least any resolution must do), and
prints the ratio and the peak memory.

    python benchmarks/resolve_speed.py --collection wikipedia2007/collection
    python benchmarks/resolve_speed.py --collection wiki20k/collection --docs 5000
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

from inexflow.model.collection_index import iter_document_tables
from inexflow.model.runs import Run, resolve_extents
from inexflow.model.shard_plan import plan_shards


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", required=True)
    ap.add_argument("--cache", default=".inexflow/collections", help="the collection_cache folder")
    ap.add_argument("--docs", type=int, default=50_000, help="distinct articles the run returns")
    ap.add_argument("--results", type=int, default=160_500, help="results (1500 x 107)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    shards = plan_shards(args.collection, args.cache)
    files = [s.path(args.cache) for s in shards]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise SystemExit(f"{len(missing)} shards are not built (run the workflow first), e.g. {missing[0]}")
    every = [d for s in shards for d in s.docs]
    docs = [every[i].rsplit("/", 1)[-1] for i in rng.choice(len(every), size=min(args.docs, len(every)),
                                                            replace=False)]
    # results: xpaths of elements of those documents, read from the shards (not timed)
    rows = pd.concat([t.to_pandas() for t in iter_document_tables(files, docs)], ignore_index=True)
    pick = rng.choice(len(rows), size=args.results, replace=True)
    res = pd.DataFrame({"topic": np.repeat(np.arange(107), -(-args.results // 107))[:args.results].astype(str),
                        "doc": rows["doc"].to_numpy(dtype=object)[pick],
                        "xpath": rows["xpath"].to_numpy(dtype=object)[pick], "offset": -1, "length": -1,
                        "line": np.arange(1, args.results + 1)})
    want_start = rows["start"].to_numpy()[pick]
    del rows
    n_docs = res["doc"].nunique()

    t0 = time.perf_counter()
    n = sum(t.num_rows for t in iter_document_tables(files, res["doc"].unique()))
    baseline = time.perf_counter() - t0
    run = Run(run_id="bench", participant="bench", scoring_type="focused", format="inex-xml", source="bench",
              results=res.copy())
    t0 = time.perf_counter()
    resolved = resolve_extents(run, args.collection, tables=iter_document_tables(files, res["doc"].unique()))
    took = time.perf_counter() - t0
    assert (resolved.results["offset"].to_numpy() == want_start).all()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(every)} documents in {len(files)} shards; a run of {args.results} element results over "
          f"{n_docs} documents ({n} index rows read)")
    print(f"reading those documents' rows from the shards: {baseline:.2f} s")
    print(f"resolve_extents through the shards:            {took:.2f} s ({took / baseline:.2f}x the reading; "
          f"{took / args.results * 1e6:.1f} us per result)")
    print(f"peak memory of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
