"""A plain HTML report of a campaign: ranked runs per task, measure correlations, pool depths."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from inexflow.tables import write_text


def _table(df: pd.DataFrame, digits: int = 4) -> str:
    def cell(v):
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return html.escape(str(v))
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False, name=None))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_report(path, summaries: list[str], correlation: str, depths: str, campaign: str):
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>inexflow: {html.escape(campaign)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}"
             "td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%}th{background:#eee}</style></head><body>",
             f"<h1>Campaign {html.escape(campaign)}</h1>"]
    for s in summaries:
        df = pd.read_csv(s, sep="\t", dtype={"run": str, "participant": str})
        parts.append(f"<h2>Task {html.escape(Path(s).stem)}</h2>")
        parts.append("<p>Runs ranked by the task's main measure (mean over topics), one row per quantisation.</p>")
        parts.append(_table(df))
    corr = pd.read_csv(correlation, sep="\t")
    parts.append("<h2>Kendall tau-b between measure rankings</h2>")
    parts.append(_table(corr, 3))
    dep = pd.read_csv(depths, sep="\t", dtype={"topic": str})
    parts.append("<h2>Pool</h2><p>Pool depth and size per topic.</p>")
    parts.append(_table(dep))
    parts.append("</body></html>\n")
    write_text("".join(parts), path)
