"""The campaign's pool as the workflow writes it: INEX pooling (Pal, Mitra & Kamps, section 3;
:mod:`inexflow.model.pool`) over the pooled runs' cached first positions, recorded with the runs'
content keys and the pool's settings, so that a stage reading it refuses a pool made from other
runs or under another size (:func:`~inexflow.campaign.stage.check_table_runs`). The build_pool job
writes it, or the pool_analyses job when the pool analyses run (they read the same runs)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from inexflow.campaign.stage import recorded_run_keys, settings_of
from inexflow.io.tables import write_parquet, write_tsv
from inexflow.model.pool import LazyTables, pool_from_first_positions


def write_pool(firstpos, target: int | None, depth: int | None, output, log,
               hand_over: LazyTables | None = None) -> pd.DataFrame:
    """Pool the runs whose first-positions tables are ``firstpos`` (``firstpos/RUN.parquet``,
    read one at a time) to ``target`` documents per topic or to ``depth``; write the pool
    (topic, doc, entry) to ``output.pool`` and the depth per topic to ``output.depths``, and
    return the pool. What is read of a table that the tables ``hand_over`` also hold is
    passed on to them (:class:`~inexflow.model.pool.LazyTables`)."""
    paths = {Path(p).stem: p for p in map(str, firstpos)}
    pool, depths = pool_from_first_positions(LazyTables(paths, hand_over=hand_over), target, depth)
    log.info("pool of %d documents over %d topics from %d runs", len(pool), len(depths), len(paths))
    write_parquet(pool, output.pool, {"run_keys": recorded_run_keys(paths.values()),
                                      "settings": settings_of({"pool": [target, depth]})})
    write_tsv(depths, output.depths)
    return pool
