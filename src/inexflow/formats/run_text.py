"""Text runs: ``topic Q0 doc rank rsv run-id offset length`` (FOL passages, 8 columns),
``topic Q0 doc rank rsv run-id xpath`` (elements, 7 columns) and the TREC document
run ``topic Q0 doc rank rsv run-id`` (6 columns: the whole document, xpath ``/article[1]``
is not assumed -- the result is stored as offset 0 and length -1, meaning the whole
document). The format has no participant or task: the campaign config supplies them.
"""

from __future__ import annotations

import math

from inexflow.errors import InputError, warn_input
from inexflow.formats.runs import RESULT_COLUMNS, Run, check_duplicates, order_results
from inexflow.formats.xpath import canonical_xpath

import pandas as pd


def read_text_run(path) -> Run:
    rows = []
    ncols = None
    run_ids = set()
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            cols = line.split()
            if not cols:
                continue
            if ncols is None:
                ncols = len(cols)
                if ncols not in (6, 7, 8):
                    raise InputError(path, f"line {lineno}", f"{ncols} columns",
                                     "8 (topic Q0 doc rank rsv run-id offset length), 7 (... run-id xpath) "
                                     "or 6 (... run-id)")
            elif len(cols) != ncols:
                raise InputError(path, f"line {lineno}", f"{len(cols)} columns", f"{ncols} as on the first line")
            topic, doc = cols[0], cols[2]
            try:
                rank = int(cols[3])
            except ValueError:
                raise InputError(path, f"line {lineno}", f"rank {cols[3]!r} is not an integer") from None
            try:
                rsv = float(cols[4])
            except ValueError:
                raise InputError(path, f"line {lineno}", f"rsv {cols[4]!r} is not a number") from None
            if math.isnan(rsv):
                raise InputError(path, f"line {lineno}", "rsv is NaN")
            run_ids.add(cols[5])
            xpath, off, ln = "", 0, -1
            if ncols == 8:
                try:
                    off, ln = int(cols[6]), int(cols[7])
                except ValueError:
                    raise InputError(path, f"line {lineno}", f"offset/length {cols[6]!r} {cols[7]!r} "
                                     "are not integers") from None
                if off < 0 or ln < 0:
                    raise InputError(path, f"line {lineno}", f"negative offset or length ({off}, {ln})",
                                     "non-negative integers")
                if ln == 0:
                    warn_input(path, f"line {lineno}", "passage of length 0")
            elif ncols == 7:
                try:
                    xpath = canonical_xpath(cols[6])
                except ValueError as e:
                    raise InputError(path, f"line {lineno}", str(e)) from None
                off = -1
            rows.append((topic, doc, xpath, off, ln, rank, rsv, lineno))
    if not rows:
        raise InputError(path, None, "run has no results")
    if len(run_ids) > 1:
        warn_input(path, None, f"several run ids {sorted(run_ids)}; using {sorted(run_ids)[0]!r}")
    df = pd.DataFrame.from_records(rows, columns=list(RESULT_COLUMNS))
    check_duplicates(df, path)
    df = order_results(df, has_rank=True)
    fmt = {8: "fol-text", 7: "xpath-text", 6: "trec-text"}[ncols]
    return Run(sorted(run_ids)[0], "", "", fmt, str(path), df)
