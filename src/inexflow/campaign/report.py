"""A plain HTML report of a campaign: ranked runs per task, measure correlations, pool depths."""

from __future__ import annotations

import html
import re
from pathlib import Path

from inexflow.errors import UsageError, counted
from inexflow.io.atomic import write_text
from inexflow.io.text_tables import Column, TextTable, read_text_table, readable_cells
from inexflow.measures.catalogue import is_count

# columns of the analysis tables that hold counts (sizes, depths, numbers of runs, pairs or
# samples); a NaN among them makes pandas read them as floats
ANALYSIS_COUNTS = frozenset({"samples", "runs", "pairs", "count", "size", "depth", "pool_size", "candidates",
                             "relevant", "relevant_found", "significant_pairs", "ordered_pairs",
                             "smallest_size_error_lt_5pct"})


def _cells(col: Column, count: bool, digits: int) -> list[str]:
    """One column's cells as :func:`_table` writes them: as
    :func:`~inexflow.io.text_tables.readable_cells` gives them, text escaped."""
    cells = readable_cells(col.kind, col.values, count, digits)
    if col.kind in "fiub":
        return cells
    return [html.escape(c) for c in cells]


def _table(df: TextTable, digits: int = 4) -> str:
    """An HTML table; ratios with ``digits`` decimals, counts (the catalogue's
    :func:`~inexflow.measures.catalogue.is_count` measures, :data:`ANALYSIS_COUNTS` and
    integer columns) as integers."""
    counts = [is_count(str(c)) or str(c) in ANALYSIS_COUNTS for c in df.names]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.names)
    cols = [_cells(df[name], c, digits) for name, c in zip(df.names, counts)]
    body = ("".join(f"<tr><td>{'</td><td>'.join(row)}</td></tr>" for row in zip(*cols)) if cols else
            "<tr></tr>" * len(df))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _head(title: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}"
            "td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%}th{background:#eee}</style></head><body>")


# the columns of the workflow's TSVs held as text whatever they look like (identifiers, and the
# summaries' warnings)
TEXT_COLUMNS = ("run", "topic", "participant", "group", "warnings")


def read_tsv(path) -> TextTable:
    """A TSV the workflow wrote (:func:`~inexflow.io.text_tables.read_text_table`), with
    identifiers (run, topic, participant, group) and the summaries' warnings kept as text, no
    warnings an empty text."""
    df = read_text_table(path, TEXT_COLUMNS)
    if "warnings" in df:
        df.columns["warnings"] = Column("s", ["" if isinstance(v, float) else v for v in df["warnings"].values])
    return df


# Snakemake embeds every report page as a base64 data URL, and Chromium rejects URLs over
# 2 MiB: a page must stay under this many bytes (base64 grows it by 4/3) or it shows nothing
MAX_PAGE_BYTES = 1_400_000


def write_table_page(tsv, path, title: str, digits: int = 4, max_bytes: int = MAX_PAGE_BYTES):
    """One TSV as a standalone HTML page (what the Snakemake report shows for a table: it
    renders HTML, not TSV). A table whose page would exceed ``max_bytes`` shows its first
    rows, as many as fit, and says so with the path of the full TSV."""
    df = read_tsv(tsv)

    def page(rows: int) -> str:
        shown = (counted(len(df), "row") if rows == len(df) else
                 f"<strong>the first {rows:,} of {len(df):,} rows</strong> (a larger page would not show in the "
                 "report: browsers refuse pages over 2 MB; every row is in the TSV)")
        return (_head(title) + f"<h2>{html.escape(title)}</h2><p>{shown}, from <code>{html.escape(str(tsv))}</code>"
                "</p>" + _table(df.head(rows), digits) + "</body></html>\n")

    text = page(len(df))
    if len(text.encode()) > max_bytes:
        lo, hi = 0, len(df)  # the most rows whose page fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(page(mid).encode()) <= max_bytes:
                lo = mid
            else:
                hi = mid - 1
        text = page(lo)
    write_text(text, path)


def write_table_pages(pages, outputs, inputs=()) -> None:
    """The report pages a stage renders once its own work is done (the workflow's
    ``table_pages``): ``pages`` holds (table, page, title) triples, each table one of the
    job's ``outputs``, written by the stage itself, or one of its ``inputs`` (a page of a table
    the job neither writes nor waits for would be rendered before that table is up to date)."""
    known = set(map(str, outputs)) | set(map(str, inputs))
    for tsv, page, title in pages:
        if str(tsv) not in known:
            raise UsageError(f"report page {page}: its table {tsv} is neither an output nor an input of this rule")
        write_table_page(tsv, page, title)


def write_report(path, summaries: list[str], correlation: str, depths: str, campaign: str):
    parts = [_head(f"inexflow: {campaign}"), f"<h1>Campaign {html.escape(campaign)}</h1>"]
    for s in summaries:
        df = read_tsv(s)
        parts.append(f"<h2>Task {html.escape(Path(s).stem)}</h2>")
        parts.append("<p>Runs ranked by the task's main measure (mean over topics), one row per quantisation.</p>")
        parts.append(_table(df))
    corr = read_tsv(correlation)
    parts.append("<h2>Kendall tau-b between measure rankings</h2>")
    parts.append(_table(corr, 3))
    dep = read_tsv(depths)
    parts.append("<h2>Pool</h2><p>Pool depth and size per topic.</p>")
    parts.append(_table(dep))
    parts.append("</body></html>\n")
    write_text("".join(parts), path)


# the measure columns of each task's ranking shown on the report's landing page (the rest are a
# click away, in the task's ranking table)
LANDING_MEASURES = 4


def _rst(text: str) -> str:
    """Text as a literal reStructuredText cell: markup characters escaped."""
    return re.sub(r"([\\`*_|<>\[\]])", r"\\\1", text)


def landing_page(summaries: list[str], campaign: str, provenance: str, description: str,
                 headline: dict[str, list[str]] | None = None) -> str:
    """The Snakemake report's landing page (reStructuredText): ``description``, the ranked
    summary of every task (its main measure and the next of its ``headline`` measures, and the
    warnings about its runs), and a link to every table and figure of the report (rendered by
    Snakemake's Jinja: the loop over ``categories``), ``provenance`` last."""
    out = ["{% raw %}", f"Campaign **{_rst(campaign)}**: {_rst(description)}", "", "Ranked runs", "-----------", ""]
    for s in summaries:
        df = read_tsv(s)
        main = df.names[4] if len(df.names) > 4 else None
        wanted = [main, *(headline or {}).get(Path(s).stem, [])]
        measures = [c for c in dict.fromkeys(wanted) if c in df.names][:LANDING_MEASURES]
        cols = ["rank", "run", "participant", "quant", *measures]
        if "warnings" in df and any(df["warnings"].values):
            cols.append("warnings")
        ranked = df.rows([r > 0 for r in df["rank"].values]) if "rank" in df else df
        out += [f"Task **{_rst(Path(s).stem)}**, ranked by {_rst(str(main))}:", "", ".. list-table::",
                "   :header-rows: 1", ""]
        counts = [is_count(str(c)) or c == "rank" for c in cols]
        cells = [readable_cells(ranked[c].kind, ranked[c].values, n, 4) for c, n in zip(cols, counts)]
        for row in [cols, *zip(*cells)]:
            out += [f"   {'*' if i == 0 else ' '} - {_rst(str(v)) or ' '}" for i, v in enumerate(row)]
        out.append("")
    out += ["{% endraw %}", "Every table and figure", "----------------------", "",
            "{% for cat, subcats in categories|dictsort %}",
            "- {{ cat.name }}: {% for subcat, results in subcats|dictsort %}{% for res in results %}"
            "`{{ res.target }}`_ {% endfor %}{% endfor %}",
            "", "{% endfor %}", "{% raw %}", _rst(provenance), "{% endraw %}", ""]
    return "\n".join(out)
