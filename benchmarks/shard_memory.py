"""A shard job's memory against the collection's size (issue 32, point 2: "memory bounded per
job whatever the collection's size").

For each ``--collection`` (a directory of ``*.xml`` articles, e.g. written by
``inexflow.simulate.wikipedia.write_collection``), plans its shards of ``--per-shard``
documents as the workflow's ``snakemake`` process does (listing, hashing what
the cache folder ``CACHE`` does not hold, recording each shard's list of documents), then runs
``--repeat`` rounds of one ``index_shard`` job (shard 0, built into the cache folder) in a
process of its own with each ``--python`` interpreter in turn (interleaved), and prints each
job's wall time, CPU time and peak resident memory (``wait4``'s ``ru_maxrss``). Each
interpreter runs the ``build_shard`` of the inexflow it imports: the current one (which reads
only the shard's list) or a checkout from before it (which planned its shard itself), so that
one command compares both; the shard files they write are compared byte for byte.

``--link N`` first makes a collection of N documents under ``DIR`` out of hard links to the
articles of the first ``--collection``, at the paths the simulator gives article i (the
listing and the key cache of a collection of N articles; the bytes repeat), and measures it.

    python benchmarks/shard_memory.py --collection C100k:CACHE1 --collection C659k:CACHE2
    python benchmarks/shard_memory.py --collection C659k:CACHE2 --link 2670000:DIR:CACHE3 \\
        --python /tmp/before/.venv/bin/python --python .venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from inexflow.model.shard_plan import shard_path
from inexflow.simulate.wikipedia import doc_id

JOB = """
import inspect, sys
from inexflow.model.collection_index import build_shard
collection, cache, key, per_shard = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if "number" in inspect.signature(build_shard).parameters:  # before: the job planned its shard itself
    build_shard(collection, cache, 0, key, per_shard=per_shard)
else:
    build_shard(collection, cache, key)
"""

# the planning, in a process of its own: a child forked from a process inherits its peak resident
# size (Linux's ru_maxrss), so the jobs are started from this small one
PLAN = """
import json, resource, sys, time
from inexflow.model.shard_plan import plan_shards, write_members
collection, cache, per_shard = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
shards = plan_shards(collection, cache, per_shard)
t1 = time.perf_counter()
write_members(cache, shards)
print(json.dumps({"plan": t1 - t0, "write": time.perf_counter() - t1, "shards": len(shards),
                  "docs": sum(len(s.docs) for s in shards), "key": shards[0].key, "first": len(shards[0].docs),
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def link_collection(src: str, dst: str, n: int) -> None:
    """``n`` documents under ``dst``: document i a hard link to article ``i mod m`` of ``src``
    (whose m articles are at the simulator's paths)."""
    m = sum(1 for _ in Path(src).rglob("*.xml"))
    made = set()
    for i in range(n):
        d = doc_id(i)
        if d.split("/")[0] not in made:
            os.makedirs(f"{dst}/{d.split('/')[0]}", exist_ok=True)
            made.add(d.split("/")[0])
        os.link(f"{src}/{doc_id(i % m)}.xml", f"{dst}/{d}.xml")


def run_job(python: str, collection: str, cache: str, key: str, per_shard: int) -> tuple[float, float, int]:
    """(wall s, CPU s, peak resident MB) of one shard job in a process of its own."""
    t0 = time.perf_counter()
    p = subprocess.Popen([python, "-c", JOB, collection, cache, key, str(per_shard)])
    _, status, usage = os.wait4(p.pid, 0)
    if status:
        sys.exit(f"the shard job with {python} failed")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", action="append", default=[], metavar="DIR:CACHE",
                    help="a collection and its cache folder (repeatable)")
    ap.add_argument("--link", metavar="N:DIR:CACHE", help="also a collection of N hard links (above)")
    ap.add_argument("--python", action="append", default=[], help="interpreters to run the job with "
                    "(repeatable; default this one)")
    ap.add_argument("--per-shard", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    pythons = args.python or [sys.executable]
    collections = [c.split(":", 1) for c in args.collection]
    if args.link:
        n, dst, cache = args.link.split(":", 2)
        if not Path(dst).exists():
            t0 = time.perf_counter()
            link_collection(collections[0][0], dst, int(n))
            print(f"{dst}: {int(n):,} hard links in {time.perf_counter() - t0:.1f} s")
        collections.append([dst, cache])
    for collection, cache in collections:
        plan = json.loads(subprocess.run([sys.executable, "-c", PLAN, collection, cache, str(args.per_shard)],
                                         check=True, capture_output=True, text=True).stdout)
        print(f"\n{collection}: {plan['docs']:,} documents, {plan['shards']} shards; planning {plan['plan']:.1f} s, "
              f"writing the shards' lists {plan['write']:.1f} s, {plan['peak']} MB peak")
        out, kept = Path(shard_path(cache, plan["key"])), {}
        for r in range(args.repeat):
            for python in pythons:
                out.unlink(missing_ok=True)
                wall, cpu, peak = run_job(python, collection, cache, plan["key"], args.per_shard)
                print(f"  round {r + 1}, {python}: shard 0 ({plan['first']:,} documents) {wall:.2f} s wall, "
                      f"{cpu:.2f} s CPU, {peak} MB peak")
                kept.setdefault(python, f"{out}.{len(kept)}")
                shutil.copyfile(out, kept[python])
        same = len({Path(f).read_bytes() for f in kept.values()}) == 1
        print(f"  shard files byte-identical across interpreters: {'yes' if same else 'NO'}")
        for f in kept.values():
            os.unlink(f)


if __name__ == "__main__":
    main()
