"""Support for the thin stage scripts in ``scripts/`` run by Snakemake's ``script:``.

:func:`run_stage` sends the library's log to the rule's log file (and stderr), and turns
an input problem into one clear message naming the rule, the input and the reason, with
a non-zero exit and no traceback. Outputs are written atomically by
:mod:`inexflow.io.tables`, so a failed or killed job leaves nothing a re-run would trust.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from inexflow.errors import InputError, UsageError, counted


def setup_logging(logfile: str | None, rule: str = "stage"):
    """The library's logger for one stage: everything to the job's log file (when the rule has
    one), warnings to stderr too, as the CLI says them (``inexflow: warning: rule RULE: ...``)."""
    root = logging.getLogger("inexflow")
    root.setLevel(logging.INFO)
    root.handlers.clear()
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S")
    if logfile:
        fh = logging.FileHandler(logfile, mode="w", encoding="utf-8")
        fh.setFormatter(fmt)
        root.addHandler(fh)
    # warnings on stderr too; a stage's error is said there once, by run_stage, as the CLI says it
    root.addHandler(_warnings_to_stderr(f"inexflow: warning: rule {rule}: "))
    return root


def planning_logging():
    """The library's warnings while the workflow plans the campaign in Snakemake's own process
    (the config's checks): on stderr as the CLI and the stages say them (``inexflow: warning:
    ...``), not as Python's bare last-resort line."""
    root = logging.getLogger("inexflow")
    if not root.handlers:
        root.addHandler(_warnings_to_stderr("inexflow: warning: "))


def _warnings_to_stderr(prefix: str) -> logging.Handler:
    """A handler that writes the warnings (not the errors) to stderr, each line led by ``prefix``."""
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.WARNING)
    err.addFilter(lambda record: record.levelno < logging.ERROR)
    err.setFormatter(logging.Formatter(prefix.replace("%", "%%") + "%(message)s"))
    return err


def code_fingerprint(package_dir=None) -> str:
    """A short SHA-256 of the library's Python sources (relative paths and bytes, in path
    order): the workflow passes it to every rule as a param, so Snakemake's params trigger
    re-runs the jobs whose library code changed."""
    root = Path(package_dir or Path(__file__).resolve().parents[1])  # the inexflow package
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts or "_workflow" in f.relative_to(root).parts:
            continue
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def made_from(smk, keyed=()) -> dict:
    """{input file: SHA-256} of a job's input files, recorded in the tables it writes
    (checked by :func:`inexflow.io.tables.check_inputs` where a later stage reads both), and
    the files ``keyed``, which are named by their content key already (the collection's index
    shards, which evaluate_run reads from its params): recorded by name, not hashed again."""
    from inexflow.io.tables import checksum  # pandas: the Snakefile imports this module without it

    keyed = list(map(str, keyed))
    named = set(keyed)
    return ({str(p): checksum(p) for p in smk.input if os.path.isfile(p) and str(p) not in named}
            | {p: Path(p).stem for p in keyed if os.path.isfile(p)})


def check_shards(shards) -> None:
    """The collection's index shards a job names in its params (evaluate_run's; they are not its
    inputs, so Snakemake does not build again one removed from the cache while the collection
    index made from it stays): a missing one is an error saying how to build it again."""
    missing = [str(p) for p in shards if not os.path.isfile(p)]
    if missing:
        raise InputError(missing[0], None, "the collection's index shard is missing from the cache "
                         f"({counted(len(missing), 'shard')} missing: removed by hand?)",
                         "every shard of the collection: `snakemake --forcerun index_collection` builds the "
                         "missing ones again")


def check_unchanged(path, planned: str | None) -> None:
    """``path`` must still have the content key ``planned`` (the job's param, computed when the
    workflow planned the job): a file changed since then, or while the job ran, is an error, so
    that the job fails and Snakemake removes what it wrote instead of keeping numbers made from
    a mix of two versions. None (a campaign still to be simulated when planned): no check."""
    from inexflow.io.content_keys import content_key  # pyarrow: the Snakefile imports this module without it

    if planned and content_key(path) != planned:
        raise InputError(path, None, "changed while the workflow ran (its content differs from when the workflow "
                         "planned this job)", "an unchanged file: run snakemake again")


def check_all_unchanged(keys: dict | None) -> None:
    """:func:`check_unchanged` for each file of ``keys`` ({path: planned content key}; None: none)."""
    for path, key in (keys or {}).items():
        check_unchanged(path, key)


# the folders of the per-run tables evaluate_run writes (workflow/rules/score.smk), each table
# named by its run and recording the run file's content key (``run_key``)
RUN_TABLES = ("runs", "firstpos", "judged", "by_run")


def check_run_keys(smk) -> None:
    """Every per-run table among a job's inputs (``judged/RUN.parquet``, ...) must have been made
    from its run file's current content: the table's recorded ``run_key`` against the job's
    ``params.run_keys`` ({run: content key}, computed when the workflow planned the job). A
    table restored from an older copy is an error naming it, not numbers of the old run."""
    keys = getattr(getattr(smk, "params", None), "run_keys", None)
    if not keys:
        return
    from inexflow.io.tables import CachedTableError, check_identity, read_parquet_metadata  # pandas: see made_from

    for p in map(str, smk.input):
        path = Path(p)
        if path.suffix == ".parquet" and path.parent.name in RUN_TABLES and keys.get(path.stem):
            meta = read_parquet_metadata(p)
            for name in ("run", "name"):  # another run's table is named as such, not as a stale one
                if name in meta:
                    check_identity(p, meta, **{name: path.stem})
            if meta.get("run_key") != keys[path.stem]:
                raise CachedTableError(p, "cached table was made from another version of the run file (stale: the "
                                          "file was replaced by an older copy)")


def recorded_run_keys(paths) -> dict:
    """{run: content key} that the per-run tables ``paths`` (``firstpos/RUN.parquet``,
    ``scores/by_run/RUN.parquet``) record: what a table made from them was made from, recorded as
    its ``run_keys`` (checked by :func:`check_table_runs`)."""
    from inexflow.io.tables import read_parquet_metadata  # pandas: see made_from

    return {Path(p).stem: read_parquet_metadata(p).get("run_key") for p in map(str, paths)}


# what a cached table records of the campaign's input files it was made from, directly or through
# the tables it read (checked by check_table_runs): the content keys of its runs' files
# ({run: key}) and of its other input files, assessments and topics ({path: key}); with how an
# error names one of them and all of them
SOURCES = {"run_keys": ("run {}", "run {}'s file", "runs"),
           "input_keys": ("input file {}", "{}", "input files"),
           "settings": ("setting {}", "setting {}", "settings")}


def settings_of(values: dict) -> dict:
    """{name: digest} of the settings ``values`` ({name: a JSON-able value}) a cached table was
    made with, as it records them (field ``settings``) and as the jobs reading it expect them
    (checked by :func:`check_table_runs`): a table put back from a run under other settings (a
    task's scoring options, the recall-base's tie rule, the pool's size) is refused like one made
    from older input files."""
    return {name: hashlib.blake2b(json.dumps(value, sort_keys=True).encode(), digest_size=8).hexdigest()
            for name, value in values.items()}


def task_settings(tasks: dict) -> dict:
    """:func:`settings_of` each evaluation task's scoring ({task: its TASK_SCORING entry in the
    workflow, a run's evaluate_run params ``tasks``}), named ``task NAME``."""
    return settings_of({f"task {t}": v for t, v in tasks.items()})


def merged_keys(paths, fields=tuple(SOURCES)) -> dict:
    """{field: {source: key}} of the :data:`SOURCES` ``fields`` that the tables ``paths``
    record, each merged over them: what a table made from them records (a field none of them
    records is left out)."""
    from inexflow.io.tables import read_parquet_metadata  # pandas: see made_from

    metas = [read_parquet_metadata(p) for p in map(str, paths)]
    return {f: {s: k for m in metas for s, k in (m.get(f) or {}).items()}
            for f in fields if any(f in m for m in metas)}


def check_table_runs(smk) -> None:
    """Every cached table among a job's inputs made from the campaign's input files (a task's
    scores, all scores, the pool; the parsed assessments, the collection index, the recall-bases,
    a run's scores) must have been made from the runs and input files the campaign has now, at
    their current contents and under the current settings: each :data:`SOURCES` field the table
    records against the job's ``params.table_runs`` ({table: {field: {source: content key or
    digest}}}, computed when the workflow planned the job; a field None while a simulated
    campaign is still to be written). A table restored from an older copy, left from before a run
    or file joined or left the campaign, or made under a config since changed, is an error naming
    the table and the run, file or setting, not numbers of the old inputs."""
    expected = getattr(getattr(smk, "params", None), "table_runs", None)
    if not expected:
        return
    from inexflow.io.tables import CachedTableError, read_parquet_metadata  # pandas: see made_from

    for path, fields in expected.items():
        meta = None
        for field, keys in fields.items():
            if keys is None:
                continue
            meta = read_parquet_metadata(path) if meta is None else meta
            have = meta.get(field)
            name, file, plural = SOURCES[field]
            if have is None:
                raise CachedTableError(path, f"cached table does not record the {plural} it was made from (made by an "
                                             "older inexflow, or replaced)")
            for source in sorted(set(have) | set(keys)):
                if source not in keys:
                    raise CachedTableError(path, f"cached table was made with {name.format(source)}, which the "
                                                 "campaign no longer has (stale)")
                if source not in have:
                    raise CachedTableError(path, f"cached table was made without {name.format(source)} (stale: made "
                                                 "before it joined the campaign)")
                if have[source] != keys[source] and field == "settings":
                    raise CachedTableError(path, f"cached table was made with another value of {name.format(source)} "
                                                 "(stale: the config changed since, and the table was replaced by an "
                                                 "older copy)")
                if have[source] != keys[source]:
                    raise CachedTableError(path, f"cached table was made from another version of "
                                                 f"{file.format(source)} (stale: the table or the file was replaced "
                                                 "by an older copy)")


def run_stage(fn, smk):
    """Run ``fn(smk, log)`` for the Snakemake object ``smk`` with logging and clean errors."""
    logfile = smk.log[0] if len(smk.log) else None
    rule = getattr(smk, "rule", "stage")
    log = setup_logging(logfile, rule)
    t0 = time.perf_counter()
    log.info("rule %s: inputs %s", rule, ", ".join(map(str, smk.input)) or "-")
    try:
        check_run_keys(smk)
        check_table_runs(smk)
        fn(smk, log)
        pages = getattr(getattr(smk, "params", None), "pages", None)
        if pages:  # the report pages of the tables the stage wrote (the workflow's table_pages)
            from inexflow.campaign.report import write_table_pages  # pandas: the Snakefile imports this module without it

            write_table_pages(pages, smk.output, smk.input)
    except (InputError, UsageError) as e:
        msg = f"rule {rule} failed: {e}"
        log.error(msg)
        print(f"inexflow: error: {msg}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # a programming error: the traceback goes to the job's log
        log.exception("rule %s failed with an internal error", rule)
        print(f"inexflow: internal error: rule {rule} failed: {type(e).__name__}: {e} (traceback in "
              f"{logfile or 'the job log'})", file=sys.stderr)
        sys.exit(1)
    log.info("rule %s done in %.2fs: outputs %s", rule, time.perf_counter() - t0, ", ".join(map(str, smk.output)))
    end_job_process(smk)


def end_job_process(smk) -> None:
    """End a Snakemake script job's process at once, its outputs written and closed, its log
    flushed: the interpreter's teardown (freeing every object of the stage and of pandas and
    pyarrow, module by module) changes no output and took 0.3-0.9 s of a campaign-wide job
    (``benchmarks/README.md``, session 30). Only in the job's own process, where the script
    is the main program and ``smk`` its ``snakemake`` object; called from anywhere else (a
    test, a notebook) it returns."""
    if getattr(sys.modules.get("__main__"), "snakemake", None) is not smk:
        return
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
