"""The plain HTML tables: counts print as integers, ratios with four decimals."""
from conftest import write
from inexflow.campaign.report import write_table_page


def test_counts_print_as_integers_and_ratios_with_decimals(tmp_path):
    tsv = write(tmp_path / "t.tsv", "run\tquant\tMAiP\tnum_rel\tnum_ret\tsamples\n"
                                    "007\tgen\t0.25\t10.0\t1500.0\t\n")
    page = tmp_path / "t.html"
    write_table_page(tsv, page, "t")
    html = page.read_text()
    assert "<td>007</td>" in html                             # a run name stays text
    assert "<td>0.2500</td>" in html                          # a ratio: 4 decimals
    assert "<td>10</td>" in html and "<td>1500</td>" in html  # counts (catalogue) as integers
    assert "<td>nan</td>" in html                             # a missing count stays visible


def test_a_table_too_large_for_the_report_shows_its_first_rows_and_says_so(tmp_path):
    """Snakemake embeds report pages as data URLs, which Chromium refuses over 2 MiB: a large
    table's page holds as many first rows as fit and names the full TSV; a small one is whole."""
    import pandas as pd

    from inexflow.campaign.report import write_table_page

    tsv = tmp_path / "means.tsv"
    pd.DataFrame({"run": [f"r{i:05d}" for i in range(3000)], "value": [i / 7 for i in range(3000)]}).to_csv(
        tsv, sep="\t", index=False)
    write_table_page(tsv, tmp_path / "small.html", "all", max_bytes=10**7)
    whole = (tmp_path / "small.html").read_text()
    assert "3000 rows" in whole and whole.count("<tr>") == 3001 and "first" not in whole
    write_table_page(tsv, tmp_path / "big.html", "capped", max_bytes=50_000)
    page = (tmp_path / "big.html").read_bytes()
    assert len(page) <= 50_000
    shown = page.decode().count("<tr>") - 1
    assert 0 < shown < 3000 and f"the first {shown:,} of 3,000 rows" in page.decode()
    # the rows shown are the first ones
    assert str(tsv) in page.decode() and f"r{shown - 1:05d}" in page.decode() and f"r{shown:05d}" not in page.decode()


def test_every_kind_of_column_renders_as_the_cell_rules_say():
    """Column-wise rendering (float, integer, boolean, text with and without missing values,
    mixed objects) gives the cells the rules give: whole counts as integers, other floats
    with 4 decimals (nan, inf as Python prints them), text escaped."""
    import math

    from inexflow.campaign.report import _table
    from inexflow.io.text_tables import Column, TextTable

    df = TextTable({"samples": Column("f", [3.0, 2.5, math.nan]), "tau": Column("f", [0.5, 1.0, math.inf]),
                    "depth": Column("i", [1, 20, 300]), "ok": Column("b", [True, False, True]),
                    "run": Column("s", ["a<b", "c&d", "e"]), "group": Column("o", ["g", math.nan, "h"]),
                    "mixed": Column("o", [1.5, "x>", 2])})
    rows = ["<td>3</td><td>0.5000</td><td>1</td><td>True</td><td>a&lt;b</td><td>g</td><td>1.5000</td>",
            "<td>2.5000</td><td>1.0000</td><td>20</td><td>False</td><td>c&amp;d</td><td>nan</td><td>x&gt;</td>",
            "<td>nan</td><td>inf</td><td>300</td><td>True</td><td>e</td><td>h</td><td>2</td>"]
    head = "".join(f"<th>{c}</th>" for c in df.names)
    assert _table(df) == (f"<table><thead><tr>{head}</tr></thead><tbody>"
                          + "".join(f"<tr>{r}</tr>" for r in rows) + "</tbody></table>")
    assert _table(df.head(0)) == f"<table><thead><tr>{head}</tr></thead><tbody></tbody></table>"

def test_a_stage_renders_the_report_pages_of_its_own_tables(tmp_path, capsys):
    """run_stage renders the pages the rule declares (params ``pages``: table, page, title) once
    the stage has written its tables, or of a table among the job's inputs (the report job
    renders the pool analyses' pages); a page of a table that is neither is refused with one
    line naming it, and nothing is rendered from a stale table."""
    from types import SimpleNamespace

    import pytest

    from inexflow.campaign.stage import run_stage

    tsv, page = tmp_path / "t.tsv", tmp_path / "t.html"

    def stage(smk, log):
        write(tsv, "run\tsamples\nr1\t4.0\n")

    smk = SimpleNamespace(rule="r", input=[], log=[], output=[str(tsv), str(page)],
                          params=SimpleNamespace(pages=[(str(tsv), str(page), "the title")]))
    run_stage(stage, smk)
    html = page.read_text()
    assert "<h2>the title</h2>" in html and "<td>r1</td><td>4</td>" in html and "1 row," in html
    other = tmp_path / "other.tsv"
    write(other, "run\nr2\n")
    smk.params.pages = [(str(other), str(tmp_path / "other.html"), "x")]
    with pytest.raises(SystemExit) as e:
        run_stage(stage, smk)
    assert e.value.code == 1 and not (tmp_path / "other.html").exists()
    assert f"its table {other} is neither an output nor an input of this rule" in capsys.readouterr().err
    smk.input = [str(other)]
    run_stage(stage, smk)
    assert "<td>r2</td>" in (tmp_path / "other.html").read_text()
