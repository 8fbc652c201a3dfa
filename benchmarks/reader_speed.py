"""Speed of the run readers against the physical limits (issue: readers at the parser's speed).

Simulates one INEX 2007-scale element run (107 topics x 1500 results, written by the
simulator as an XML submission) and the same results as an 8-column FOL text run, unless
``--xml``/``--text`` name files, then prints (best of ``--repeat`` in this process):

- the XML run reader (``read_xml_run``) against a bare ``lxml.etree.parse`` of the same file,
  and against the reader's tree path alone (what every run took before the scan);
- the text run reader in lines per second.

    python benchmarks/reader_speed.py
    python benchmarks/reader_speed.py --xml bench/runs/g01-thorough-1.xml --repeat 7
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from lxml import etree

from inexflow.io import run_xml
from inexflow.io.run_text import read_text_run


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def sample_runs(tmp: Path) -> tuple[Path, Path]:
    """An XML thorough run and an FOL text run of the INEX 2007 benchmark's scale."""
    from inexflow.simulate.simconfig import SimulationConfig
    from inexflow.simulate.simulate import simulate

    simulate(tmp, SimulationConfig(seed=2007, n_docs=1500, n_topics=107, n_groups=1, results_per_topic=1500,
                                   pool_target=600, tasks=("thorough", "fol")))
    return tmp / "runs" / "g01-thorough-1.xml", tmp / "runs" / "g01-fol-1.txt"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xml", type=Path)
    ap.add_argument("--text", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        xml, text = (args.xml, args.text) if args.xml and args.text else sample_runs(Path(tmp))
        n = len(run_xml.read_xml_run(xml).results)
        bare = best(lambda: etree.parse(str(xml)), args.repeat)
        reader = best(lambda: run_xml.read_xml_run(xml), args.repeat)
        scan, run_xml._scan = run_xml._scan, lambda data: None
        try:
            tree = best(lambda: run_xml.read_xml_run(xml), args.repeat)
        finally:
            run_xml._scan = scan
        mb = xml.stat().st_size / 1e6
        print(f"XML run {xml.name}: {mb:.1f} MB, {n} results")
        print(f"  bare lxml.etree.parse {bare:.3f} s; read_xml_run {reader:.3f} s = {reader / bare:.2f}x the parse "
              f"(target <= 1.5x); its tree path {tree:.3f} s = {tree / bare:.2f}x (the scan is {tree / reader:.1f}x "
              "faster)")
        lines = sum(1 for _ in open(text, "rb"))
        t = best(lambda: read_text_run(text), args.repeat)
        print(f"text run {text.name}: {lines} lines in {t:.3f} s = {lines / t / 1e6:.2f} M lines/s (target >= 2 M)")


if __name__ == "__main__":
    main()
