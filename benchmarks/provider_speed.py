"""How fast DataFrames become inexflow's assessments and runs, and how long the ir_measures
provider takes on them: 50 k qrels rows (TREC graded qrels and FOL passages) and a 50 k-row
document run. Prints seconds per step and each step's ratio to the 0.2 s goal; no assertions.

    .venv/bin/python benchmarks/provider_speed.py [ROWS]
"""

import sys
import time

import numpy as np
import pandas as pd

GOAL = 0.2  # seconds for 50 k qrels rows (issue 33)


def best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(rows: int = 50_000) -> None:
    from inexflow.front.frames import assessments_from_frame, run_from_frame

    rng = np.random.default_rng(1)
    topics = 50
    q = np.repeat([str(t) for t in range(1, topics + 1)], rows // topics)
    docs = np.array([f"doc{i}" for i in range(len(q))], dtype=object)
    trec = pd.DataFrame({"query_id": q, "doc_id": docs, "relevance": rng.integers(0, 3, len(q))})
    fol = pd.DataFrame({"query_id": q, "doc_id": docs, "offset": rng.integers(0, 1000, len(q)),
                        "length": rng.integers(0, 200, len(q)), "doc_length": np.full(len(q), 5000)})
    run = pd.DataFrame({"query_id": q, "doc_id": rng.permutation(docs), "score": rng.random(len(q))})
    steps = {"TREC qrels frame -> Assessments": lambda: assessments_from_frame(trec),
             "FOL qrels frame -> Assessments": lambda: assessments_from_frame(fol),
             "document run frame -> Run": lambda: run_from_frame(run)}
    try:
        import ir_measures

        from inexflow.irmeasures import INEX

        def provider():
            ir_measures.calc_aggregate([INEX(measure="map"), INEX(measure="P_10")], trec, run)

        steps["calc_aggregate(map, P_10): whole call, scoring too"] = provider
    except ImportError:
        print("(ir_measures not installed: the provider is not timed)")
    print(f"{len(q)} rows, best of 5")
    for name, fn in steps.items():
        t = best(fn)
        print(f"{name:55s} {t:7.3f} s  {t / GOAL:5.2f} x goal ({GOAL} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
