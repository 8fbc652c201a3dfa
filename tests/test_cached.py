"""Cached intermediate tables: an unreadable, replaced or stale table is an error that names
the file and says how to recover, never a traceback or a silently wrong number."""
from pathlib import Path

import pandas as pd
import pytest

from conftest import write
from inexflow.errors import InputError
from inexflow.io.tables import RECOVER, CachedTableError, check_inputs, checksum, read_parquet, write_parquet
from inexflow.model.runs import Run, read_run


def make_run(tmp_path, name, text="1 Q0 A 1 1 r 0 10\n"):
    run = read_run(write(tmp_path / f"{name}.run", text))
    run.name = name
    run.save(tmp_path / f"{name}.parquet", {str(tmp_path / f"{name}.run"): checksum(tmp_path / f"{name}.run")})
    return tmp_path / f"{name}.parquet"


def test_truncated_table_names_itself_and_the_recovery(tmp_path):
    p = make_run(tmp_path, "A")
    p.write_bytes(p.read_bytes()[:40])
    with pytest.raises(CachedTableError) as e:
        Run.load(p)
    assert isinstance(e.value, InputError)  # reported as one line by the stage and the CLI
    assert str(e.value).startswith(f"{p}: cached table cannot be read (") and str(e.value).endswith(RECOVER)
    with pytest.raises(CachedTableError, match="cached table cannot be read"):
        read_parquet(p)


def test_missing_table(tmp_path):
    with pytest.raises(CachedTableError, match="cached table is missing"):
        read_parquet(tmp_path / "nope.parquet")


def test_a_run_table_copied_over_another_is_an_error(tmp_path):
    a, b = make_run(tmp_path, "A"), make_run(tmp_path, "B", "1 Q0 B 1 1 r 0 10\n")
    assert Run.load(b, name="B").results["doc"].tolist() == ["B"]
    b.write_bytes(a.read_bytes())
    with pytest.raises(CachedTableError, match="holds name 'A', not 'B'"):
        Run.load(b, name="B")


def test_run_ids_need_not_be_unique_names_are(tmp_path):
    # the three real INEX 2009 runs all carry the run id TREC2INEX: the name tells them apart
    a = Run.load(make_run(tmp_path, "A"), name="A")
    b = Run.load(make_run(tmp_path, "B"), name="B")
    assert a.run_id == b.run_id == "r" and (a.name, b.name) == ("A", "B")


def test_stale_input_is_detected(tmp_path):
    src = write(tmp_path / "elements.parquet", "version 1")
    t = tmp_path / "rb.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), t, {"made_from": {str(src): checksum(src)}})
    from inexflow.io.tables import read_parquet_metadata
    meta = read_parquet_metadata(t)
    check_inputs(t, meta, [src])  # unchanged: fine
    src.write_text("version 2")
    with pytest.raises(CachedTableError, match="made from another version of"):
        check_inputs(t, meta, [src])


def test_code_fingerprint_changes_with_the_library_source(tmp_path):
    """The fingerprint every rule holds as a param: same sources, same value; one byte or one
    file more, another value; compiled caches do not count."""
    import shutil

    from inexflow.campaign.stage import code_fingerprint

    pkg = Path(__import__("inexflow").__file__).resolve().parent
    copy = tmp_path / "inexflow"
    shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("_workflow", "_config"))
    base = code_fingerprint(copy)
    assert base == code_fingerprint(pkg) and len(base) == 16
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert code_fingerprint(copy) == base
    f = copy / "measures" / "passage.py"
    f.write_text(f.read_text() + "\n")
    assert code_fingerprint(copy) != base
    f.write_text(f.read_text()[:-1])
    assert code_fingerprint(copy) == base
    (copy / "extra.py").write_text("")
    assert code_fingerprint(copy) != base


def test_a_per_run_table_made_from_another_version_of_its_run_is_refused(tmp_path):
    from types import SimpleNamespace

    from inexflow.campaign.stage import check_run_keys

    judged = tmp_path / "judged"
    write_parquet(pd.DataFrame({"x": [1]}), judged / "A.parquet", {"run_key": "k1"})
    write_parquet(pd.DataFrame({"x": [1]}), judged / "B.parquet", {"run_key": "k2"})
    other = tmp_path / "pool" / "A.parquet"  # not a per-run table: not checked
    write_parquet(pd.DataFrame({"x": [1]}), other)
    job = SimpleNamespace(input=[str(judged / "A.parquet"), str(judged / "B.parquet"), str(other)],
                          params=SimpleNamespace(run_keys={"A": "k1", "B": "k2"}))
    check_run_keys(job)  # every table made from its run's current content
    job.params.run_keys["B"] = "k3"  # B's run file changed since its table was written
    with pytest.raises(CachedTableError, match=r"B\.parquet: cached table was made from another version of the run"):
        check_run_keys(job)
    check_run_keys(SimpleNamespace(input=job.input, params=SimpleNamespace(run_keys=None)))  # not simulated yet


def test_another_runs_table_is_named_as_such_before_its_key_is_compared(tmp_path):
    from types import SimpleNamespace

    from inexflow.campaign.stage import check_run_keys

    by_run = tmp_path / "by_run"
    write_parquet(pd.DataFrame({"x": [1]}), by_run / "A.parquet", {"run": "B", "run_key": "kB"})  # B's, copied
    job = SimpleNamespace(input=[str(by_run / "A.parquet")], params=SimpleNamespace(run_keys={"A": "kA"}))
    with pytest.raises(CachedTableError, match="cached table holds run 'B', not 'A'"):
        check_run_keys(job)


def test_a_table_made_from_other_runs_or_other_assessment_files_is_refused_naming_them(tmp_path):
    """check_table_runs: each field a table records (its runs' keys, its input files' keys) is
    compared with what the job was planned with, both ways; merged_keys is what a table made
    from tables records."""
    from types import SimpleNamespace

    from inexflow.campaign.stage import check_table_runs, merged_keys

    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), a, {"run_keys": {"r1": "k1"}, "input_keys": {"q.fol": "f1"}})
    write_parquet(pd.DataFrame({"x": [1]}), b, {"input_keys": {"q2.fol": "f2"}})
    made = merged_keys([a, b])
    assert made == {"run_keys": {"r1": "k1"}, "input_keys": {"q.fol": "f1", "q2.fol": "f2"}}
    assert merged_keys([b]) == {"input_keys": {"q2.fol": "f2"}}  # a field no table records is left out
    merged = tmp_path / "m.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), merged, made)

    def check(**fields):
        check_table_runs(SimpleNamespace(params=SimpleNamespace(table_runs={str(merged): fields})))

    check(run_keys={"r1": "k1"}, input_keys={"q.fol": "f1", "q2.fol": "f2"})
    check(run_keys=None, input_keys=None)  # a simulated campaign not written yet: nothing to compare
    for fields, problem in [
        (dict(input_keys={"q.fol": "f1", "q2.fol": "new"}), "made from another version of q2.fol (stale: the table"),
        (dict(input_keys={"q.fol": "f1"}), "made with input file q2.fol, which the campaign no longer has"),
        (dict(input_keys={"q.fol": "f1", "q2.fol": "f2", "q3.fol": "f3"}), "made without input file q3.fol (stale"),
        (dict(run_keys={"r1": "k0"}), "made from another version of run r1's file (stale"),
        (dict(run_keys={"r1": "k1", "r2": "k2"}), "made without run r2 (stale"),
    ]:
        with pytest.raises(CachedTableError) as e:
            check(**fields)
        assert str(e.value).startswith(f"{merged}: cached table was {problem}"), str(e.value)
    write_parquet(pd.DataFrame({"x": [1]}), merged, {"run_keys": {"r1": "k1"}})  # from before files were recorded
    with pytest.raises(CachedTableError, match="does not record the input files it was made from"):
        check(input_keys={"q.fol": "f1"})


def test_a_table_made_under_other_settings_is_refused_naming_the_setting(tmp_path):
    """The settings a table was made with (a task's scoring, the recall-base's tie rule, the
    pool's size) are recorded as digests of their values, merged like the keys, and compared
    with those the job was planned with: a copy made under another config is refused."""
    from types import SimpleNamespace

    from inexflow.campaign.stage import check_table_runs, merged_keys, settings_of, task_settings

    focused = {"type": "focused", "options": {"beta": 0.25, "overlap": ["on"]}}
    assert task_settings({"F": focused}) == settings_of({"task F": focused})
    # the digest is of the value as JSON: equal values equal, a changed option another digest
    assert settings_of({"s": {"b": 1, "a": (2, 3)}}) == settings_of({"s": {"a": [2, 3], "b": 1}})
    assert settings_of({"s": 0.25}) != settings_of({"s": 0.5})
    a, b, merged = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "m.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), a, {"settings": task_settings({"F": focused})})
    write_parquet(pd.DataFrame({"x": [1]}), b, {"settings": settings_of({"ideal_tie": "first"})})
    write_parquet(pd.DataFrame({"x": [1]}), merged, merged_keys([a, b]))

    def check(settings):
        check_table_runs(SimpleNamespace(params=SimpleNamespace(table_runs={str(merged): {"settings": settings}})))

    check(task_settings({"F": focused}) | settings_of({"ideal_tie": "first"}))
    changed = {**focused, "options": {"beta": 1.0, "overlap": ["on"]}}
    with pytest.raises(CachedTableError) as e:
        check(task_settings({"F": changed}) | settings_of({"ideal_tie": "first"}))
    assert str(e.value).startswith(f"{merged}: cached table was made with another value of setting task F (stale: "
                                   "the config changed since"), str(e.value)
    with pytest.raises(CachedTableError, match="made without setting task G"):
        check(task_settings({"F": focused, "G": focused}) | settings_of({"ideal_tie": "first"}))


def _run_table(path, run, tasks, rows, warnings=None):
    df = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    write_parquet(df, path, {"run": run, "run_key": f"k{run}", "tasks": tasks, "warnings": warnings or {}})
    return df


def test_read_run_scores_is_the_runs_tables_selected_per_task_and_sorted(tmp_path):
    """Every task's scores read from the runs' own tables equal the per-file pandas reading, each
    run's rows of the tasks it is read for, concatenated and sorted stably by (task, run, quant);
    the warnings are those each table records for the task."""
    from inexflow.analysis.aggregate import read_run_scores

    a = _run_table(tmp_path / "a.parquet", "a", ["T2", "T1"],
                   [("a", "1", "T2", "gen", "m", 0.5), ("a", "1", "T1", "gen", "m", 0.25), ("a", "all", "T2", "gen", "m", 0.5),
                    ("a", "1", "T2", "-", "n", 3.0), ("a", "2", "T2", "gen", "m", 0.1)], {"T2": ["odd"], "T1": []})
    b = _run_table(tmp_path / "b.parquet", "b", ["T1"],
                   [("b", "2", "T1", "strict", "m", 1.0), ("b", "1", "T1", "gen", "m", 0.0), ("b", "1", "T1", "gen", "m2", 0.3)])
    scores, warnings = read_run_scores([tmp_path / "a.parquet", tmp_path / "b.parquet"], {"T1": ["b", "a"], "T2": ["a"]})
    parts = [b[b["task"] == "T1"], a[a["task"] == "T1"], a[a["task"] == "T2"]]
    expected = pd.concat(parts, ignore_index=True).sort_values(["task", "run", "quant"], kind="stable")
    pd.testing.assert_frame_equal(scores, expected.reset_index(drop=True))
    assert warnings == {"T1": {}, "T2": {"a": ["odd"]}}
    # read for one task only: the other task's rows are left out
    only, _ = read_run_scores([tmp_path / "a.parquet"], {"T1": ["a"]})
    assert list(only["task"]) == ["T1"] and list(only["value"]) == [0.25]


def test_read_run_scores_refuses_a_table_of_another_run_or_without_the_task(tmp_path):
    from inexflow.analysis.aggregate import read_run_scores

    _run_table(tmp_path / "a.parquet", "b", ["T1"], [("b", "1", "T1", "gen", "m", 0.5)])
    with pytest.raises(CachedTableError, match="holds run 'b', not 'a'"):
        read_run_scores([tmp_path / "a.parquet"], {"T1": ["a"]})
    _run_table(tmp_path / "a.parquet", "a", ["T1"], [("a", "1", "T1", "gen", "m", 0.5)])
    with pytest.raises(CachedTableError, match="holds no scores for task 'T2'"):
        read_run_scores([tmp_path / "a.parquet"], {"T2": ["a"]})


def test_read_run_scores_reads_tables_of_other_schemas_as_pandas_would(tmp_path):
    """An empty run table (its columns have no Arrow type) beside a full one, and tables whose
    strings are stored as Arrow ``string`` (pandas 2) and ``large_string`` (pandas 3): the same
    table as pandas reading each file and concatenating."""
    import pyarrow as pa

    from inexflow.analysis.aggregate import combine_scores, read_run_scores
    from inexflow.io.tables import write_table

    cols = ["run", "topic", "task", "quant", "measure", "value"]
    _run_table(tmp_path / "e.parquet", "e", ["T1"], [])
    _run_table(tmp_path / "a.parquet", "a", ["T1"], [("a", "1", "T1", "gen", "m", 0.5), ("a", "all", "T1", "gen", "m", 0.5)])
    old = pa.Table.from_pandas(pd.DataFrame([("b", "1", "T1", "gen", "m", 0.25)], columns=cols), preserve_index=False)
    old = old.cast(pa.schema([pa.field(c, pa.float64() if c == "value" else pa.string()) for c in cols],
                             metadata=old.schema.metadata))
    write_table(old, tmp_path / "b.parquet", {"run": "b", "run_key": "kb", "tasks": ["T1"], "warnings": {}})
    for runs in (["a", "e"], ["e"], ["a", "b"]):
        got, _ = read_run_scores([tmp_path / f"{r}.parquet" for r in runs], {"T1": runs})
        pd.testing.assert_frame_equal(got, combine_scores([pd.read_parquet(tmp_path / f"{r}.parquet") for r in runs]))


def test_metadata_of_a_table_rewritten_in_place_is_read_again(tmp_path):
    """A table's metadata is read once per process, but a table copied over in place with the
    same size and modification time (cp -p) is read again: the key includes the change time."""
    import os
    import shutil

    from inexflow.io.tables import read_parquet_metadata

    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), a, {"run": "a"})
    write_parquet(pd.DataFrame({"x": [1]}), b, {"run": "b"})
    assert a.stat().st_size == b.stat().st_size
    os.utime(b, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns))
    assert read_parquet_metadata(a) == {"run": "a"}
    shutil.copy2(b, a)  # in place: the same inode, size and modification time
    assert read_parquet_metadata(a) == {"run": "b"}
