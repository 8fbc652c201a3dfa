"""The plain HTML tables: counts print as integers, ratios with four decimals."""
from conftest import write
from inexflow.report import write_table_page


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
