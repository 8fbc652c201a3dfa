"""Speed of the collection indexer against a bare lxml parse (issue 32, point 2: indexing at
most 2x ``lxml.etree.parse`` of the same files on the same core).

Writes ``--docs`` Wikipedia-shaped articles (``inexflow.simulate.wikipedia``; or indexes the
``*.xml`` files under ``--collection``), then times ``--repeat`` interleaved rounds in this
process: a bare ``lxml.etree.parse`` of every file, and ``inexflow.io.collection.index_files``
of every file (reading, checking and the element index). Prints the medians, per article and
per element, and the ratio of the medians (and of the best rounds).

    python benchmarks/index_speed.py
    python benchmarks/index_speed.py --docs 5000 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from lxml import etree

from inexflow.io.collection import index_files
from inexflow.io.xmlutil import safe_parser
from inexflow.simulate.wikipedia import write_collection


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=2000, help="articles to write (default 2000)")
    ap.add_argument("--collection", help="index these *.xml files instead of writing articles")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.collection) if args.collection else Path(tmp) / "collection"
        if not args.collection:
            write_collection(root, args.docs, seed=1, processes=1)
        files = sorted(root.rglob("*.xml"))
        parser = safe_parser()
        pairs = [(f.stem, f) for f in files]
        elements = index_files(pairs).num_rows
        bare, index = [], []
        for _ in range(args.repeat):
            bare.append(timed(lambda: [etree.parse(str(f), parser) for f in files]))
            index.append(timed(lambda: index_files(pairs)))
        b, i = statistics.median(bare), statistics.median(index)
        n = len(files)
        print(f"{n} articles, {elements} elements ({elements / n:.0f} per article)")
        print(f"bare lxml parse: {b:.2f} s ({b / n * 1e3:.2f} ms per article)")
        print(f"index_files:     {i:.2f} s ({i / n * 1e3:.2f} ms per article, {i / elements * 1e6:.1f} us per element)")
        print(f"ratio index / bare parse: {i / b:.2f} (target at most 2; best rounds {min(index) / min(bare):.2f})")


if __name__ == "__main__":
    main()
