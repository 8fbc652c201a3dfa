"""The seeded passage runs the scoring benchmarks time (focused_speed.py, where_time_goes.py,
family_speed.py): focused FOL runs drawn from FOL qrels, and the Relevant and Best in Context runs
made of them."""

from __future__ import annotations

from pathlib import Path

# the passage families and the task each scores (and its runs' folder)
TASKS = {"passage": "focused", "ric": "relevant-in-context", "bic": "best-in-context"}


def generate_runs(qrels, outdir: Path, n_runs: int, n_results: int, seed: int) -> list[Path]:
    """``n_runs`` focused runs of ``n_results`` passages per topic of ``qrels`` (half of them in a
    relevant document), written to ``outdir``, seeded."""
    import numpy as np  # here: where_time_goes.py imports this module before it times start-up

    rng = np.random.default_rng(seed)
    docs = qrels.documents
    by_topic = {t: g for t, g in docs.groupby("topic")}
    all_docs = docs["doc"].unique()
    paths = []
    for r in range(n_runs):
        lines = []
        for t, g in by_topic.items():
            rel = g["doc"].to_numpy()
            lens = dict(zip(g["doc"], g["doc_chars"]))
            pick = np.where(rng.random(n_results) < 0.5, rng.choice(rel, n_results), rng.choice(all_docs, n_results))
            seen = set()
            rank = 0
            for d in pick:
                n = max(int(lens.get(d, 20000)), 200)
                off = int(rng.integers(0, n - 100)) // 100 * 100
                if (d, off) in seen:
                    continue
                seen.add((d, off))
                rank += 1
                lines.append(f"{t} Q0 {d} {rank} {-rank} bench{r} {off} 100\n")
        p = outdir / f"bench{r:03d}.run"
        p.write_text("".join(lines))
        paths.append(p)
    return paths


def in_context_files(work: Path, family: str, focused: list[Path]) -> list[Path]:
    """``ric``: each topic's passages grouped by article (in the order of each article's first
    passage); ``bic``: each article's first passage only; ranks and scores renumbered."""
    d = work / family
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for src in focused:
        dst = d / src.name
        out.append(dst)
        if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
            continue
        topics: dict[str, dict[str, list[list[str]]]] = {}
        for line in src.read_text().splitlines():
            c = line.split()
            topics.setdefault(c[0], {}).setdefault(c[2], []).append(c)
        lines = []
        for t, arts in topics.items():
            rank = 0
            for results in arts.values():
                for c in results if family == "ric" else results[:1]:
                    rank += 1
                    lines.append(f"{t} Q0 {c[2]} {rank} {-rank} {c[5]} {c[6]} {c[7]}\n")
        dst.write_text("".join(lines))
    return out
