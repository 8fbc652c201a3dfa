"""Runs: the :class:`Run` (the readers' :class:`~inexflow.io.canonical.RunTable`, whose
columns and ordering rule :mod:`inexflow.io.canonical` documents, with what the model does
with it), :func:`read_run` (the dispatcher over the run formats, :mod:`inexflow.io.run_xml` and
:mod:`inexflow.io.run_text`) and the character ranges of element results
(:func:`resolve_extents`, :func:`convert_to_fol`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.errors import InputError, UsageError, counted, open_input, place, require_path
from inexflow.io import run_text, run_xml
from inexflow.io.canonical import RunTable
from inexflow.io.collection import index_table
from inexflow.io.detect import detect_run_format
from inexflow.io.tables import CachedTableError, check_identity, compact_dictionary, read_parquet, read_parquet_metadata, write_parquet
from inexflow.io.task_labels import normalise_task, unknown_task


@dataclass
class Run(RunTable):
    """A run: its metadata and canonical ``results`` (:class:`~inexflow.io.canonical.RunTable`),
    cached as a parquet table (:meth:`save`, :meth:`load`)."""

    @classmethod
    def of(cls, table: RunTable) -> Run:
        """The run of a reader's record, keeping the reader's codes."""
        run = cls(**{f.name: getattr(table, f.name) for f in dataclasses.fields(table)})
        if table._codes is not None and table._codes[0] is table.results:
            run.attach_codes(table._codes[1])
        return run

    def with_results(self, results: pd.DataFrame, order: str) -> Run:
        """A copy holding ``results`` in ``order``; the codes stay when the table is the same."""
        out = dataclasses.replace(self, results=results, order=order)
        if results is self.results and self._codes is not None:
            out.attach_codes(self._codes[1])
        return out

    @property
    def is_passage(self) -> bool:
        return bool((self.results["offset"] >= 0).any())

    def meta(self) -> dict:
        return {"run_id": self.run_id, "name": self.name, "participant": self.participant, "scoring_type": self.scoring_type,
                "task_label": self.task_label or self.scoring_type, "format": self.format, "source": self.source,
                **({"rank_error": self.rank_error} if self.rank_error else {})}

    def save(self, path, made_from: dict | None = None, run_key: str | None = None):
        """Cache the run at ``path``, recording the files it was made from and its run file's
        content key (in the workflow)."""
        write_parquet(self.results, path, {**self.meta(), "made_from": made_from or {}, "run_key": run_key})

    @classmethod
    def load(cls, path, name: str | None = None, categorical: bool = False) -> Run:
        """A run cached by :meth:`save`; with ``name``, a cached table of another run is an error.
        ``categorical``: topics and documents as pandas categoricals (read from the file's
        dictionary pages: faster to read and to factorise, for stages that only look them up)."""
        m = read_parquet_metadata(path)
        if name is not None:
            check_identity(path, m, name=name)
        try:
            return cls(m["run_id"], m["participant"], m["scoring_type"], m["format"], m["source"],
                       read_parquet(path, categories=("topic", "doc") if categorical else None),
                       m.get("task_label", m["scoring_type"]), m.get("name", ""), rank_error=m.get("rank_error", ""))
        except KeyError as e:
            raise CachedTableError(path, f"cached run table has no {e.args[0]!r} in its metadata") from None



def read_run(path, task: str | None = None, participant: str | None = None, fmt: str = "auto") -> Run:
    """Read one run file. ``task``/``participant`` override or fill in what the file says."""
    require_path(path, "read_run", "a run file; a DataFrame: inexflow.run_from_frame, or pass it to inexflow.evaluate")
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "run file not found")
    open_input(path, "run file").close()  # a directory, a special or an unreadable file: one clear error
    f = detect_run_format(path) if fmt == "auto" else fmt
    if f == "xml":
        run = Run.of(run_xml.read_xml_run(path))
    elif f == "text":
        run = Run.of(run_text.read_text_run(path))
    else:
        raise InputError(path, None, f"unknown run format {f!r}", "auto, xml or text")
    if task:
        t = normalise_task(task)
        if t is None:
            raise InputError(path, None, unknown_task(task))
        run.scoring_type, run.task_label = t, str(task)
    if participant:
        run.participant = str(participant)
    if not run.participant:
        run.participant = run.run_id
    return run


def resolve_extents(run: Run, collection, index: pd.DataFrame | None = None, tables=(),
                    parsed: ParsedDocuments | None = None) -> Run:
    """Fill offset/length of element results (and of whole-document results, length -1)
    with the character range from the collection.

    The elements are looked up in ``index`` (a DataFrame of index rows), in ``tables`` (Arrow
    tables of index rows, e.g. one per shard of the collection's index, each used and dropped
    in turn: :func:`inexflow.model.collection_index.iter_document_tables`) and in ``parsed``
    (a :class:`ParsedDocuments` of ``collection`` kept over the runs of a call: it then holds
    ``index`` too, and the documents it parsed for earlier runs); documents found in none are
    indexed from ``collection`` (a document missing there is an error naming it). The
    lookups are hash lookups in Arrow of documents and xpaths, then of (document, xpath)
    codes in an index of them made once per table.
    """
    if parsed is not None and index is not None:
        raise UsageError("resolve_extents: give the index to the ParsedDocuments, which holds it, not beside it")
    if collection is None:
        return run
    res = run.results
    # the documents and xpaths as codes (the reader's, else factorised here): every lookup is
    # made once per distinct value, then spread to the results
    (doc_i, doc_u), (xp_i, xp_u) = (run.codes(c) or pd.factorize(res[c]) for c in ("doc", "xpath"))
    doc_u, xp_u = np.asarray(doc_u, dtype=object), np.asarray(xp_u, dtype=object)
    no_xpath = (xp_u == "")[xp_i]
    length = res["length"].to_numpy()
    el, whole = ~no_xpath, no_xpath & (length < 0)
    if not (el.any() or whole.any()):
        return run
    every = bool(el.all())  # an element run (the usual case): the results' codes as they are
    names = pa.array(doc_u, pa.string())
    found = _Extents(names, doc_i if every else doc_i[el], pa.array(xp_u, pa.string()),
                     xp_i if every else xp_i[el], doc_i[whole])
    wanted = pd.unique(doc_i if every else doc_i[el | whole])  # the documents looked up, in order of first appearance
    parsed = parsed if parsed is not None else ParsedDocuments(collection, index, max_rows=0)
    for keys in parsed.holding(names.take(wanted)):
        found.use(keys)
    for table in tables:
        found.use(_IndexKeys(table))
    missing = doc_u[wanted[~found.held[wanted]]].tolist()
    if missing:
        found.use(parsed.parse(missing))
    if el.any():
        bad = found.start < 0
        if bad.any():
            r = res[el].iloc[int(np.flatnonzero(bad)[0])]
            raise InputError(run.source, place(run.source, r.line), f"element {r.doc}{r.xpath} (topic {r.topic}) does not "
                             f"exist in the collection document ({counted(int(bad.sum()), 'unresolvable result')})",
                             "the xpath of an element of that document")
    if every:
        offset, length = found.start, found.end - found.start
    else:
        offset, length = res["offset"].to_numpy().copy(), length.copy()
        offset[el], length[el] = found.start, found.end - found.start
    if whole.any():
        offset[whole], length[whole] = 0, found.root_end
    codes = {c: run.codes(c) for c in ("topic",) if run.codes(c) is not None}
    run.results = res.assign(offset=offset, length=length)
    run.attach_codes({**codes, "doc": (doc_i, doc_u), "xpath": (xp_i, xp_u)})  # no result moved
    return run


# Index rows a ParsedDocuments keeps of the documents it parsed (27 bytes a row on the simulated demo
# collection, where xpaths repeat from document to document; more where they do not: the keys,
# the extents and the documents' and xpaths' names)
PARSED_ROWS = 2_000_000


class ParsedDocuments:
    """The index of a collection's documents as :func:`resolve_extents` looks elements up in
    it over the runs of one call: the index rows given (``index``, e.g. of the assessed
    documents) and the documents parsed from ``collection`` for earlier runs, each parsed once
    while the rows kept stay under ``max_rows`` (past it, the documents parsed first are
    dropped, to be parsed again when a run needs them; those just parsed are kept too unless
    they alone exceed it)."""

    def __init__(self, collection, index: pd.DataFrame | None = None, max_rows: int = PARSED_ROWS):
        self.collection, self.max_rows, self.rows = collection, max_rows, 0
        self.given = _IndexKeys(pa.Table.from_pandas(index, preserve_index=False)) \
            if index is not None and len(index) else None
        self.parts: list[_IndexKeys] = []
        self._held_names, self._held_part = pa.array([], pa.string()), np.zeros(0, dtype=np.int64)

    def holding(self, docs: pa.Array) -> list[_IndexKeys]:
        """The keys to look ``docs`` (names, an Arrow string array) up in: the given index, then
        each kept part holding one of them (found by one hash lookup of ``docs`` among the kept
        parts' documents)."""
        given = [self.given] if self.given is not None else []
        if not self.parts:
            return given
        at = _positions(docs, self._held_names)
        held = set(self._held_part[at[at >= 0]].tolist())
        return given + [k for i, k in enumerate(self.parts) if i in held]

    def _kept(self):
        """Index the kept parts' documents (each document is in one part) for :meth:`holding`."""
        self._held_names = pa.concat_arrays([k.doc_names.cast(pa.string()) for k in self.parts]) if self.parts \
            else pa.array([], pa.string())
        self._held_part = np.repeat(np.arange(len(self.parts)), [len(k.doc_names) for k in self.parts])

    def parse(self, docs) -> _IndexKeys:
        """The keys of ``docs`` indexed from the collection (:func:`~inexflow.io.collection.index_table`), kept."""
        keys = _IndexKeys(index_table(self.collection, docs))
        self.parts.append(keys)
        self.rows += keys.rows
        while self.rows > self.max_rows and len(self.parts) > 1:
            self.rows -= self.parts.pop(0).rows
        if self.rows > self.max_rows:  # the documents just parsed, beyond the bound: not kept
            self.parts, self.rows = [], 0
        self._kept()
        return keys


class _IndexKeys:
    """One table of index rows as :func:`resolve_extents` looks elements up in it: its
    documents' and xpaths' names, an index of the distinct (document, xpath) codes with the
    extents of each pair's first row (as a hash join gives), and the extent's end of each
    document's root element."""

    def __init__(self, table: pa.Table):
        table = table.unify_dictionaries().combine_chunks()
        doc_codes, self.doc_names = _codes(table.column("doc"))
        x_codes, self.x_names = _codes(table.column("xpath"))
        self.rows, self.width = table.num_rows, len(self.x_names)
        start, end = table.column("start").to_numpy(), table.column("end").to_numpy()
        keys, first = np.unique(doc_codes * self.width + x_codes, return_index=True)
        self.lookup, self.start, self.end = pd.Index(keys), start[first], end[first]
        roots = np.flatnonzero(table.column("depth").to_numpy() == 1)
        self.root_end = np.full(len(self.doc_names), -1, dtype=np.int64)
        self.root_end[doc_codes[roots]] = end[roots]


class _Extents:
    """The character ranges of elements (documents ``doc_codes`` of ``docs``, xpaths
    ``xpath_codes`` of ``xpaths``) and the lengths of whole documents (``whole_codes`` of
    ``docs``), filled in from index tables one at a time (:func:`resolve_extents`); each
    document and xpath is looked up once per table."""

    def __init__(self, docs: pa.Array, doc_codes, xpaths: pa.Array, xpath_codes, whole_codes):
        self.docs, self.xpaths = docs, xpaths
        self.doc_codes, self.xpath_codes, self.whole_codes = doc_codes, xpath_codes, whole_codes
        self.start = np.full(len(doc_codes), -1, dtype=np.int64)
        self.end = np.full(len(doc_codes), -1, dtype=np.int64)
        self.root_end = np.full(len(whole_codes), -1, dtype=np.int64)
        self.held = np.zeros(len(docs), dtype=bool)  # the documents some table used holds

    def use(self, keys: _IndexKeys):
        if not keys.rows:
            return
        doc_at = _positions(self.docs, keys.doc_names)
        self.held |= doc_at >= 0
        rd = doc_at[self.doc_codes]
        rx = _positions(self.xpaths, keys.x_names)[self.xpath_codes]
        ok = np.flatnonzero((rd >= 0) & (rx >= 0) & (self.start < 0))
        if len(ok):
            at = keys.lookup.get_indexer(rd[ok] * keys.width + rx[ok])
            hit = at >= 0
            self.start[ok[hit]] = keys.start[at[hit]]
            self.end[ok[hit]] = keys.end[at[hit]]
        if len(self.whole_codes):
            at = doc_at[self.whole_codes]
            fill = (at >= 0) & (self.root_end < 0)
            self.root_end[fill] = keys.root_end[at[fill]]


def _codes(column) -> tuple[np.ndarray, pa.Array]:
    """(codes as int64, the values) of a string column, dictionary-encoded or not; only the
    values some row uses."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    arr = compact_dictionary(arr) if isinstance(arr.type, pa.DictionaryType) else arr.dictionary_encode()
    return arr.indices.to_numpy(zero_copy_only=False).astype(np.int64), arr.dictionary


def _positions(values: pa.Array, value_set: pa.Array) -> np.ndarray:
    """The position of each of ``values`` in ``value_set`` (a hash lookup), -1 where absent."""
    return pc.fill_null(pc.index_in(values, value_set=value_set), -1).to_numpy(zero_copy_only=False).astype(np.int64)


def convert_to_fol(run, collection=None, doc_lengths: dict | None = None):
    """A TREC (whole-document) or element run with the character range of every result: from
    the collection, or for whole documents from ``doc_lengths`` (doc -> characters, e.g. the
    ``doc_chars`` of FOL qrels). A document found in neither is an error naming its line."""
    res = run.results.copy()
    whole = ((res["xpath"] == "") & (res["length"] < 0)).to_numpy()
    if doc_lengths is not None and whole.any():
        n = res.loc[whole, "doc"].map(doc_lengths)
        known = n.notna().to_numpy()
        idx = np.flatnonzero(whole)[known]
        res.loc[res.index[idx], "offset"] = 0
        res.loc[res.index[idx], "length"] = n[known].astype(np.int64).to_numpy()
        run.results = res
    if collection is not None:
        run = resolve_extents(run, collection)
    return run
