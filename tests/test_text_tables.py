"""The pandas-free TSV reader of the report job (io/text_tables.py) against pandas.read_csv as
the workflow read its tables before: the same column types and values, the same cells for
reading (io.tables.readable_strings), the same analysis summary and tau at 60 % as computed
with pandas (tests/test_layers.py checks that the report job imports no pandas)."""

import math

import numpy as np
import pandas as pd

from inexflow.campaign.report import TEXT_COLUMNS, read_tsv
from inexflow.io.tables import readable_strings
from inexflow.io.text_tables import read_text_table, readable_cells

CELLS = {
    "ints": ["1", "-2", "+3", "007", "4", "5"],
    "ints_gap": ["1", "", "3", "nan", "5", "6"],
    "floats": ["0.5", "1e-3", "-2.25E+2", ".5", "5.", "inf"],
    "floats_gap": ["0.1", "NaN", "0.30000000000000004", "", "1", "2"],
    "bools": ["True", "False", "TRUE", "false", "true", "FALSE"],
    "bools_gap": ["True", "", "False", "True", "nan", "False"],
    "text": ["a", "b c", "1", "x&<y>", "ü", "2.5"],
    "text_gap": ["a", "", "b", "nan", "c", "d"],
    "separators": ["1_000", "2", "3", "4", "5", "6"],
    "spaced": [" 1", "2 ", "3", "4", "5", "6"],
    "spaced_floats": [" 1.5", "2", "3", "4", "5", "6"],
    "inner_space": ["1 2", "2", "3", "4", "5", "6"],
    "infinities": ["iNf", "-Infinity", "+inf", "INF", "1", "2"],
    "nan_spelled": ["NAN", "-nan", "1", "2", "3", "4"],
    "uint64": ["9223372036854775808", "1", "2", "3", "4", "5"],
    "huge": ["18446744073709551616", "1", "2", "3", "4", "5"],
    "unicode_digits": ["١", "2", "3", "4", "5", "6"],
    "empty": ["", "", "nan", "", "NaN", ""],
    "run": ["001", "2", "3", "", "x", "6"],
    "topic": ["1", "2", "3", "4", "5", "6"],
    "warnings": ["", "", "odd", "", "", ""],
}


def _pandas(path):
    return pd.read_csv(path, sep="\t", dtype={c: str for c in TEXT_COLUMNS}, keep_default_na=False,
                       na_values=["", "nan", "NaN"])


def _same(a, b):
    return all((x == y) or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
               for x, y in zip(a, b, strict=True))


def test_columns_typed_as_pandas_reads_them(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("\t".join(CELLS) + "\n" + "".join("\t".join(row) + "\n" for row in zip(*CELLS.values())))
    df, mine = _pandas(path), read_text_table(path, TEXT_COLUMNS)
    assert mine.names == list(df.columns) and len(mine) == len(df)
    for name in df.columns:
        col, got = df[name], mine[name]
        kind = col.dtype.kind if isinstance(col.dtype, np.dtype) and col.dtype.kind in "fiub" else None
        assert got.kind == (kind or ("s" if isinstance(col.dtype, pd.StringDtype) and not col.hasnans else "o")), name
        assert _same(got.values, list(col)), name
        for count in (False, True):
            assert readable_cells(got.kind, got.values, count, 4) == readable_strings(col, count, 4), name


def test_report_reader_keeps_no_warnings_as_empty_text(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("rank\trun\twarnings\n1\tr1\t\n2\tr2\tnan\n0\tr3\tlate\n")
    t = read_tsv(path)
    assert t["warnings"].kind == "s" and t["warnings"].values == ["", "", "late"]
    assert t["rank"].kind == "i" and t.rows([r > 0 for r in t["rank"].values])["run"].values == ["r1", "r2"]


def test_summary_as_pandas_computes_it(tmp_path):
    """The analysis summary's per-measure order, levels sorted, means (pandas' compensated
    sums) and the most and least stable measure (ties kept in order) as the pandas code read
    them: checked on a table with ties, unsorted levels and a missing tau."""
    from inexflow.analysis.summary import summarise

    rng = np.random.default_rng(3)
    rows = []
    for m in ["MAiP", "iP[0.01]", "gP[10]", "MAgP"]:
        for lv in rng.permutation([0.2, 0.4, 0.6, 0.8, 1.0]):
            tau = 1.0 if m in ("gP[10]", "MAgP") else float(rng.random())
            rows.append((m, lv, tau))
    rows[3] = (rows[3][0], rows[3][1], float("nan"))
    df = pd.DataFrame(rows, columns=["measure", "fraction", "tau"])
    path = tmp_path / "sampling.tsv"
    df.to_csv(path, sep="\t", index=False)
    text = summarise({"sampling": str(path)})
    means = df.groupby("measure", sort=False)["tau"].mean().sort_values(ascending=False)
    assert f"most stable: {means.index[0]} (mean tau {means.iloc[0]:.3f}); least: {means.index[-1]} " \
           f"({means.iloc[-1]:.3f})" in text
    for m, g in df.groupby("measure", sort=False):
        g = g.sort_values("fraction")
        assert f"  {m}: " + ", ".join(f"{lv:g}: {t:.3f}" for lv, t in zip(g["fraction"], g["tau"])) in text


def test_summary_says_what_leave_one_group_out_found(tmp_path):
    """The runs whose mean changes significantly when their group leaves the pool, per measure,
    as logo_significance.tsv counts them."""
    from inexflow.analysis.summary import summarise

    path = tmp_path / "logo_significance.tsv"
    path.write_text("measure\tsignificant\truns\nMAiP\t0\t8\niP[0.01]\t3\t8\n")
    text = summarise({"logo": str(path)})
    assert "leave one group out (runs whose mean changes significantly" in text
    assert "  MAiP: 0 of 8 runs\n  iP[0.01]: 3 of 8 runs\n" in text


# --- write_tsv's Arrow writer against the Python one it replaces where it can ------------------


def _python_tsv(df):
    """The TSV write_tsv wrote before its Arrow path: each cell by _column_strings, joined in Python."""
    from inexflow.io.tables import _column_strings

    cols = [_column_strings(df.iloc[:, i]) for i in range(df.shape[1])]
    rows = zip(*cols) if cols else [()] * len(df)
    return ("\t".join(map(str, df.columns)) + "\n" + "".join("\t".join(r) + "\n" for r in rows)).encode()


def test_float_strings_are_repr_on_random_bit_patterns():
    """Arrow's shortest digits in repr's notation, checked against repr itself on 100,000 random
    doubles (every exponent, subnormals, nan payloads), whole numbers, the notation's edges."""
    import numpy as np

    from inexflow.io.tables import float_strings

    rng = np.random.default_rng(31)
    values = np.concatenate([
        rng.integers(0, 2**64, 100_000, dtype=np.uint64).view(np.float64),
        rng.random(50_000), np.round(rng.random(20_000) * 1e4, 2), rng.random(20_000) * 1e-3,
        rng.random(5_000) * 1e18, np.arange(-2000, 2000, dtype=float),
        [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-4, -1e-4, np.nextafter(1e-4, 0), 1e16, np.nextafter(1e16, 0),
         5e-324, 1.7976931348623157e308, 0.1, 1 / 3, 1e10, 1e9 + 0.5, 123456789012.5],
    ])
    assert float_strings(values).to_pylist() == [repr(v) for v in values.tolist()]


def test_write_tsv_arrow_path_writes_the_python_bytes(tmp_path):
    import numpy as np
    import pandas as pd

    from inexflow.io.tables import write_tsv

    rng = np.random.default_rng(5)
    n = 5_000
    frames = [
        pd.DataFrame({"run": rng.choice(["r1", "run-2", "ünï"], n), "topic": rng.choice(["001", "2009001"], n),
                      "value": np.where(rng.random(n) < 0.2, 0.0, rng.random(n)), "n": rng.integers(-5, 10**12, n),
                      "flag": rng.random(n) < 0.5}),
        pd.DataFrame({"x": [1.0, np.nan, -0.0, 1e-7, 2e16]}),
        pd.DataFrame({"text": ['a "quoted" cell', "b"], "v": [1.5, 2.0]}),  # Arrow would quote: Python writes
        pd.DataFrame({"mixed": pd.Series([1, "a", 2.5], dtype=object)}),  # objects: Python writes
        pd.DataFrame({"s": pd.Series(["a", None], dtype="str")}),  # a missing string: Python writes
        pd.DataFrame(columns=["a", "b"]), pd.DataFrame(index=range(3)),
    ]
    for k, df in enumerate(frames):
        path = tmp_path / f"t{k}.tsv"
        write_tsv(df, path)
        assert path.read_bytes() == _python_tsv(df), k
