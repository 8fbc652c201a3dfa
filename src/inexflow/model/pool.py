"""INEX document-level pooling (Pal, Mitra & Kamps, section 3; INEX 2005 paper, section 7).

For one topic, each run contributes the documents of its top d; the pool depth is the
smallest d at which the distinct documents of all runs reach the target pool size (all
documents if the target is never reached). A document enters the pool at the smallest
depth at which any run returns it. Depth is counted one of two ways:

- in result positions (the campaign's pool, build_pool, and the simulator's): a run's top
  d are its first d results, ``pos``, the 1-based position of a document's first result in
  the run's list for the topic;
- in articles (Pal et al.'s pools, ``articles=True``): a run's top d are its first d
  distinct documents, ``pos`` replaced by the document's rank among them
  (:func:`article_ranks`). Pal et al. count the INEX pool depth this way: "the dynamically
  chosen pool depth, which is at least 30 in terms of articles (and substantially higher in
  terms of elements)" (Introduction), and regenerate their pools from it ("d_Q is taken to be
  the minimum depth at which the number of distinct documents in the generated pool is
  greater than (or equal to) the original pool size for Q", "Reducing Pool Depth").
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from inexflow.errors import UsageError
from inexflow.io.tables import read_codes, read_dictionary_table, read_parquet, table_codes
from inexflow.io.topic_order import topic_sort_key


def first_positions(results: pd.DataFrame) -> pd.DataFrame:
    """(topic, doc, pos): the first position at which one run returns each document."""
    r = results[["topic", "doc"]]
    pos = r.groupby("topic", sort=False).cumcount().to_numpy() + 1
    first = ~r.duplicated(["topic", "doc"]).to_numpy()
    out = r[first].copy()
    out["pos"] = pos[first]
    return out


def entry_depths(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """(topic, doc, entry): the smallest result position at which any run returns doc."""
    return entries_from_first_positions({name: first_positions(runs[name]) for name in runs})


def article_ranks(topic_codes: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Per row of one run's first-positions table (a topic's code and its document's first
    position; each document once per topic): the document's rank among the run's distinct
    documents for the topic, 1 for the first, the depth in articles at which the run
    contributes it to a pool (Pal et al., "at least 30 in terms of articles")."""
    n = len(positions)
    if not n:
        return np.zeros(0, np.int64)
    t = np.asarray(topic_codes)
    change = t[1:] != t[:-1]
    starts = np.flatnonzero(np.r_[True, change])
    if len(np.unique(t[starts])) == len(starts) and (np.diff(positions)[~change] > 0).all():
        # each topic's rows together, by position (as a run lists them): the rank is the row's place in its topic
        return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n])) + 1
    order = np.lexsort((positions, topic_codes))  # by topic, then position
    t = np.asarray(topic_codes)[order]
    start = np.r_[True, t[1:] != t[:-1]]
    first = np.maximum.accumulate(np.where(start, np.arange(n), 0))  # each row's topic's first row
    ranks = np.empty(n, np.int64)
    ranks[order] = np.arange(n) - first + 1
    return ranks


def entries_from_first_positions(firstpos, articles: bool = False) -> pd.DataFrame:
    """Entry depths from the runs' cached first positions (:func:`first_positions`), in the
    order the (topic, doc) pairs first come in the runs taken by name; in result positions,
    or with ``articles`` in articles (:func:`article_ranks`). ``firstpos`` maps run names to
    tables; a :class:`LazyTables` reads each only when it is its turn, so the memory held is
    one table and integer arrays for all of them."""
    codes, uniq, pos, topics, docs, _ = _pair_codes(firstpos, sorted(firstpos), articles)
    if not len(codes):
        return pd.DataFrame({"topic": pd.Series([], dtype=object), "doc": pd.Series([], dtype=object),
                             "entry": pd.Series([], dtype=np.int64)})
    entry = np.full(len(uniq), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(entry, codes, pos.astype(np.int64))  # one dtype: ufunc.at's fast loop
    return pd.DataFrame({"topic": np.asarray(topics, dtype=object)[uniq >> 32],
                         "doc": np.asarray(docs, dtype=object)[uniq & 0xFFFFFFFF], "entry": entry})


def regenerated_entries(firstpos) -> pd.DataFrame:
    """Pal et al.'s pool regenerated from some runs (the analysed ones): the entry depths in
    articles (:func:`entries_from_first_positions`) of their first-positions tables
    ``firstpos`` (a :class:`LazyTables` of ``firstpos/RUN.parquet`` files, read one at a time,
    or paths of such files)."""
    if not isinstance(firstpos, Mapping):
        firstpos = LazyTables({Path(p).stem: p for p in firstpos})
    return entries_from_first_positions(firstpos, articles=True)


class LazyTables(Mapping):
    """name -> cached table, read from its parquet file (or by ``reader(path, name)``) each
    time it is asked for, and not kept: stages pass the runs' tables this way so that at most
    one is in memory. Read from parquet, the ``topic`` and ``doc`` columns of a first-positions
    table come as categoricals (:func:`~inexflow.io.tables.read_parquet`), which the pooling
    functions here factorise at no cost. With ``keep_keys``, the integer arrays the pooling
    functions make of the tables (one pair code and one position per row, the distinct pairs)
    are kept for the next function that pools the same runs the same way (Pal et al.'s
    regenerated pool and the leave-one-group-out pools are both made of the analysed runs'
    depths in articles)."""

    def __init__(self, paths: dict, reader=None, keep_keys: bool = False, hand_over: LazyTables | None = None):
        self.paths = dict(paths)
        self.reader = reader
        self.kept: dict | None = {} if keep_keys else None
        # the integer arrays read from a file that ``hand_over`` also reads (the campaign's pool
        # and the analysed runs' pools read the same first positions) are passed on to it, and
        # it takes each once instead of reading the file again
        self.hand_over = hand_over
        self.handed: dict = {}

    def __getitem__(self, name):
        if self.reader is not None:
            return self.reader(self.paths[name], name)
        return read_parquet(self.paths[name], categories=("topic", "doc"))

    def __iter__(self):
        return iter(self.paths)

    def __len__(self):
        return len(self.paths)


def _check_positions(name: str, positions: np.ndarray) -> None:
    """Run ``name``'s positions fit the int32 arrays pooling keeps, or a :class:`UsageError` names it."""
    if len(positions) and positions.max() > np.iinfo(np.int32).max:
        raise UsageError(f"run {name}: a result position over {np.iinfo(np.int32).max} (a list that long cannot be "
                         "pooled)")


def _first_position_parts(firstpos, names, tid: dict, did: dict, articles: bool = False):
    """The tables ``names`` of ``firstpos`` one at a time, as (topic numbers, doc numbers,
    positions): topics and docs numbered in order of first appearance over the tables, in
    ``tid`` and ``did`` (name -> number, filled as they come); each position a document's
    first in the run, or with ``articles`` its rank in articles (:func:`article_ranks`)."""
    for name in names:
        tc, tu, dc, du, p = _coded(firstpos, name)
        tmap = np.array([tid.setdefault(str(x), len(tid)) for x in tu], dtype=np.int32)
        dmap = np.array([did.setdefault(str(x), len(did)) for x in du], dtype=np.int32)
        _check_positions(name, p)
        if articles:
            p = article_ranks(tc, p)
        empty = np.zeros(0, np.int32)
        # int32 numbers and positions (of one run's list): half the memory of the largest arrays
        yield (tmap[tc], dmap[dc]) if len(p) else (empty, empty), p.astype(np.int32)


def _first_position_keys(firstpos, names, articles: bool = False):
    """One pass over the tables ``names`` of ``firstpos``: every row's (topic, doc) as one
    int64 key (topic number << 32 | doc number, both numbered in order of first appearance),
    its position (with ``articles``, its rank in articles, :func:`article_ranks`), the topic
    and doc names, and each table's row count. Only integer arrays are kept."""
    tid: dict[str, int] = {}
    did: dict[str, int] = {}
    keys, pos, counts = [], [], []
    for (t, d), p in _first_position_parts(firstpos, names, tid, did, articles):
        keys.append(_key(t, d))
        pos.append(p)
        counts.append(len(p))
    all_keys = _concat(keys)
    del keys[:]  # each run's parts freed before the next concatenation: memory peaks lower
    all_pos = _concat(pos)
    del pos[:]
    return all_keys, all_pos, list(tid), list(did), counts


def _key(t: np.ndarray, d: np.ndarray) -> np.ndarray:
    """(topic, doc) numbers as one int64 key, topic << 32 | doc."""
    k = t.astype(np.int64)
    k <<= 32
    k |= d
    return k


def _grid_fits(cells: int, rows: int) -> bool:
    """Whether a (topic, doc) grid of ``cells`` cells is small next to ``rows`` pairs (at most
    2 cells a row): an array of the grid then replaces a hash table of the pairs."""
    return cells <= 2 * rows + (1 << 16)


def factorise_pairs(keys: np.ndarray, ntopics: int, ndocs: int) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(keys)`` of (topic, doc) keys (topic number << 32 | doc number, numbers
    below ``ntopics`` and ``ndocs``): each key's code, and the distinct keys, numbered in order
    of first appearance. Where the grid of topics x docs is small (:func:`_grid_fits`), each
    pair's first row is the minimum taken in an array of the grid and the pairs are ordered by
    it, without a hash table (7-10x faster on a campaign's 5 M pairs)."""
    nd = max(ndocs, 1)
    if not len(keys) or not _grid_fits(ntopics * nd, len(keys)) or len(keys) >= np.iinfo(np.int32).max:
        return pd.factorize(keys)
    cells = keys >> 32  # the pairs' cells in the grid, with one temporary array
    cells *= nd
    cells += keys & 0xFFFFFFFF
    first = np.full(ntopics * nd, len(keys), dtype=np.int32)
    np.minimum.at(first, cells, np.arange(len(keys), dtype=np.int32))
    present = np.flatnonzero(first < len(keys))
    present = present[np.argsort(first[present])]  # the pairs in order of first appearance
    code_of = np.empty(ntopics * nd, dtype=np.int64)
    code_of[present] = np.arange(len(present))
    return code_of[cells], ((present // nd) << 32) | (present % nd)


def _pair_codes(firstpos, names, articles: bool = False):
    """The rows of :func:`_first_position_keys` with their (topic, doc) keys factorised: each
    row's pair code, the distinct keys in order of first appearance, then the positions, topic
    and doc names and row counts; kept for the next call on the same :class:`LazyTables` when
    it keeps them."""
    memo = firstpos.kept if isinstance(firstpos, LazyTables) else None
    if memo is not None and ("codes", tuple(names), articles) in memo:
        return memo["codes", tuple(names), articles]
    keys, pos, topics, docs, counts = _first_position_keys(firstpos, names, articles)
    codes, uniq = factorise_pairs(keys, len(topics), len(docs))
    out = codes, uniq, pos, topics, docs, counts
    if memo is not None:
        memo["codes", tuple(names), articles] = out
    return out


def _coded(firstpos, name) -> tuple:
    """One first-positions table as (topic codes, topic names, doc codes, doc names,
    positions): from its file by :func:`~inexflow.io.tables.read_codes` when ``firstpos`` is a
    :class:`LazyTables` of files, else by factorising the table."""
    if isinstance(firstpos, LazyTables) and firstpos.reader is None:
        coded = firstpos.handed.pop(name, None)
        if coded is None:
            c = read_codes(firstpos.paths[name], ("topic", "doc"), ("pos",))
            coded = (*c["topic"], *c["doc"], c["pos"].astype(np.int64, copy=False))
        other = firstpos.hand_over
        if other is not None and other.reader is None and str(other.paths.get(name)) == str(firstpos.paths[name]):
            other.handed[name] = coded
        return coded
    t = firstpos[name]
    tc, tu = pd.factorize(t["topic"])
    dc, du = pd.factorize(t["doc"])
    return tc, tu, dc, du, t["pos"].to_numpy(np.int64)


def _concat(arrays: list) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, np.int64)


def pool_from_entries(ent: pd.DataFrame, target: int | None = None, depth: int | None = None):
    """The pool and the depth per topic from entry depths (see :func:`build_pool`), vectorised
    on integer codes."""
    if (target is None) == (depth is None):
        raise UsageError("give exactly one of target (pool size) or depth")
    if ent.empty:
        return _empty_pool(ent)
    tcode, topics = pd.factorize(ent["topic"])
    dcode, docs = pd.factorize(ent["doc"])
    return _pool_from_codes(list(topics), list(docs), tcode, dcode, ent["entry"].to_numpy(np.int64), target, depth)


def pool_from_first_positions(firstpos, target: int | None = None, depth: int | None = None):
    """:func:`pool_from_entries` of the entry depths in result positions of the runs' cached
    first positions ``firstpos`` (see :func:`entries_from_first_positions`), made without
    numbering the (topic, doc) pairs in order of first appearance (the pool's order does not
    depend on it): where the grid of topics x documents is small next to the rows
    (:func:`_grid_fits`), each pair's entry depth is the minimum taken in an array of the grid,
    run by run, else the pairs are numbered by a hash table."""
    if (target is None) == (depth is None):
        raise UsageError("give exactly one of target (pool size) or depth")
    if _files_unread(firstpos):
        topic_names, doc_names, parts = _unified_first_positions(firstpos, sorted(firstpos))
        tid, did = dict.fromkeys(topic_names), dict.fromkeys(doc_names)
    else:
        tid, did = {}, {}
        parts = list(_first_position_parts(firstpos, sorted(firstpos), tid, did))
    nt, nd = len(tid), max(len(did), 1)
    rows = sum(len(p) for _, p in parts)
    if not rows:
        return _empty_pool(pd.DataFrame({"topic": pd.Series([], dtype=object), "doc": pd.Series([], dtype=object),
                                         "entry": pd.Series([], dtype=np.int64)}))
    if _grid_fits(nt * nd, rows):
        # 32 bits as the positions; ``never``, above every int32 position, marks a pair no run holds
        never = np.iinfo(np.uint32).max
        grid = np.full(nt * nd, never, dtype=np.uint32)
        for (t, d), p in parts:
            np.minimum.at(grid, t.astype(np.int64) * nd + d, p.astype(np.uint32))
        cell = np.flatnonzero(grid != never)
        tcode, dcode, entry = cell // nd, cell % nd, grid[cell].astype(np.int64)
    else:
        codes, uniq = pd.factorize(_concat([_key(t, d) for (t, d), _ in parts]))
        entry = np.full(len(uniq), np.iinfo(np.int32).max, dtype=np.int32)  # every pair gets a position
        np.minimum.at(entry, codes, _concat([p for _, p in parts]))
        tcode, dcode, entry = uniq >> 32, uniq & 0xFFFFFFFF, entry.astype(np.int64)
    return _pool_from_codes(list(tid), list(did), tcode, dcode, entry, target, depth)


def _files_unread(firstpos) -> bool:
    """Whether ``firstpos`` is a :class:`LazyTables` of files none of which another one has
    handed over read: :func:`_unified_first_positions` can read them all."""
    return isinstance(firstpos, LazyTables) and firstpos.reader is None and not firstpos.handed


def _unified_first_positions(firstpos: LazyTables, names):
    """The first-positions tables ``names`` of ``firstpos`` read by Arrow and their topics and
    documents numbered over all of them at once (Arrow's ``unify_dictionaries``: no Python
    call per document name, where :func:`_first_position_parts` maps each table's names in
    turn): the topic names, the document names, and per table (topic numbers, doc numbers)
    and positions, as :func:`_first_position_parts` yields them. A table the tables
    ``firstpos.hand_over`` also hold is handed to them coded, as :func:`_coded` hands it."""
    other = firstpos.hand_over
    tables = []
    for name in names:
        t = read_dictionary_table(firstpos.paths[name], ("topic", "doc"), ("pos",))
        if other is not None and other.reader is None and str(other.paths.get(name)) == str(firstpos.paths[name]):
            c = table_codes(t, ("topic", "doc"), ("pos",))
            other.handed[name] = (*c["topic"], *c["doc"], c["pos"].astype(np.int64, copy=False))
        tables.append(t)
    if not tables:
        return [], [], []
    unified = pa.concat_tables([t.cast(tables[0].schema) for t in tables]).unify_dictionaries()
    bounds = np.cumsum([t.num_rows for t in tables])[:-1]
    columns = {}
    for c in ("topic", "doc"):
        chunks = [ch for ch in unified.column(c).chunks if len(ch)]
        if not chunks:
            columns[c] = ([], [np.zeros(0, np.int32)] * len(tables))
            continue
        codes = np.concatenate([ch.indices.to_numpy(zero_copy_only=False) for ch in chunks]).astype(np.int32, copy=False)
        names_of = chunks[0].dictionary
        # the names some row uses, numbered in their dictionary order
        used = np.bincount(codes, minlength=len(names_of)) > 0
        if not used.all():
            codes = (np.cumsum(used) - 1).astype(np.int32)[codes]
            names_of = names_of.filter(pa.array(used))
        columns[c] = (names_of.to_pylist(), np.split(codes, bounds))
    parts = []
    for k, t in enumerate(tables):
        p = t.column("pos").to_numpy().astype(np.int64, copy=False)
        _check_positions(names[k], p)
        parts.append(((columns["topic"][1][k], columns["doc"][1][k]), p.astype(np.int32)))
    return columns["topic"][0], columns["doc"][0], parts


def _empty_pool(ent: pd.DataFrame):
    return ent.copy(), pd.DataFrame(columns=["topic", "depth", "pool_size", "candidates"])


def _pool_from_codes(topics: list, docs: list, tcode: np.ndarray, dcode: np.ndarray, entry: np.ndarray,
                     target: int | None, depth: int | None):
    """:func:`pool_from_entries` of the pairs (``topics[tcode[i]]``, ``docs[dcode[i]]``) with
    entry depths ``entry``: topics in topic order (numeric topics numerically), documents by
    name."""
    order = sorted(range(len(topics)), key=lambda i: topic_sort_key(str(topics[i])))
    remap = np.empty(len(topics), dtype=np.int64)
    remap[order] = np.arange(len(topics))
    uniq = [str(topics[i]) for i in order]
    dorder = np.argsort(np.asarray(docs, dtype=object), kind="stable")
    drank = np.empty(len(docs), dtype=np.int64)
    drank[dorder] = np.arange(len(docs))
    duniq = np.asarray(docs, dtype=object)[dorder]
    code, dcode = remap[tcode], drank[dcode]
    order = np.lexsort((dcode, entry, code))
    code, entry, dcode = code[order], entry[order], dcode[order]
    size = np.bincount(code, minlength=len(uniq))
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    if depth is not None:
        d = np.full(len(uniq), int(depth))
    else:
        # smallest depth with >= target distinct documents (all documents when fewer)
        d = entry[start + np.minimum(size, target) - 1]
    keep = entry <= d[code]
    uniq_arr = np.asarray(uniq, dtype=object)
    pool = pd.DataFrame({"topic": uniq_arr[code[keep]], "doc": duniq[dcode[keep]], "entry": entry[keep]})
    dep = pd.DataFrame({"topic": uniq, "depth": d.astype(np.int64),
                        "pool_size": np.bincount(code[keep], minlength=len(uniq)).astype(np.int64),
                        "candidates": size.astype(np.int64)})
    return pool, dep


def build_pool(runs: dict[str, pd.DataFrame], target: int | None = None,
               depth: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool to a ``target`` size per topic, or to a fixed ``depth``.

    Returns (pool: topic, doc, entry; depths: topic, depth, pool_size, candidates).
    """
    if (target is None) == (depth is None):
        raise UsageError("give exactly one of target (pool size) or depth")
    return pool_from_entries(entry_depths(runs), target, depth)


NEVER = np.iinfo(np.int64).max  # the entry depth of a pair no (other) group retrieves


def leave_group_out_entries(runs, groups: dict[str, str], cached: bool = False,
                            articles: bool = False) -> LeftOutEntries:
    """For every group, the entry depths of the pool built without that group's runs, as a
    mapping group -> table (topic, doc, entry) computed when asked for, rows in (topic, doc)
    order; depths in result positions, or with ``articles`` in articles.

    ``runs`` holds result tables, or (``cached=True``) the runs' first positions (a
    :class:`LazyTables` reads them one at a time). Computed once from a (topic, doc) x group
    matrix of first positions: leaving group g out, a document enters at the smallest
    position over the other groups, the smallest over all groups unless g holds it, then the
    second smallest.
    """
    names = sorted(runs)
    source = runs if cached else LazyTables({n: n for n in names}, lambda _, n: first_positions(runs[n]))
    codes, uniq, pos, topics, docs, counts = _pair_codes(source, names, articles)
    gnames = sorted({groups.get(n, n) for n in names})
    gidx = {g: i for i, g in enumerate(gnames)}
    # the distinct (topic, doc) pairs numbered in (topic, doc) order as the strings sort
    nd = max(len(docs), 1)
    trank = np.argsort(np.argsort(np.asarray(topics, dtype=object), kind="stable"))
    drank = np.argsort(np.argsort(np.asarray(docs, dtype=object), kind="stable"))
    sortable = trank[uniq >> 32] * nd + drank[uniq & 0xFFFFFFFF]
    order = np.argsort(sortable)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = rank[codes]
    sortable = sortable[order]
    # pairs x groups, each cell the group's smallest entry depth of the pair (32 bits, as the
    # positions: half the memory; ``top``, above every int32 position, for none)
    top = np.iinfo(np.uint32).max
    m = np.full((len(order), max(len(gnames), 1)), top, dtype=np.uint32)
    flat = m.reshape(-1)  # flat cells: 2-4x faster than (row, column)
    for n, (a, b) in zip(names, zip(np.cumsum([0, *counts[:-1]]), np.cumsum(counts))):  # run by run
        np.minimum.at(flat, codes[a:b] * m.shape[1] + gidx[groups.get(n, n)], pos[a:b].astype(np.uint32))
    rows = np.arange(len(m))
    first = m.argmin(axis=1)
    low = m[rows, first]
    if m.shape[1] > 1:  # the second smallest: the smallest once the smallest is set aside (in place, no copy)
        m[rows, first] = top
        second = m.min(axis=1)
    else:
        second = np.full(len(m), top, dtype=np.uint32)
    low, second = (np.where(x == top, NEVER, x.astype(np.int64)) for x in (low, second))
    return LeftOutEntries({n: groups.get(n, n) for n in names}, gnames, first, low, second, sortable,
                          sorted(topics), sorted(docs))


class LeftOutEntries(Mapping):
    """group -> entry depths without that group (see :func:`leave_group_out_entries`): the
    distinct (topic, doc) pairs of all runs are numbered in (topic, doc) order (``sortable``:
    topic rank x number of docs + doc rank, ascending). ``runs`` maps the pooled runs to their
    groups."""

    never = NEVER

    def __init__(self, runs, gnames, first, low, second, sortable, topics, docs):
        self.runs, self.gnames = dict(runs), list(gnames)
        self.first, self.low, self.second = first, low, second
        self.sortable, self.topics, self.docs = sortable, list(topics), list(docs)
        self._nd = max(len(docs), 1)
        self.tcode = sortable // self._nd      # topic rank of every pair, ascending

    def best(self, g) -> np.ndarray:
        """Every pair's entry depth in the pool without group ``g`` (``never``: no other group
        retrieves it); a group none of whose runs is pooled (``None``) takes nothing away."""
        if g not in self.gnames:
            return self.low
        k = self.gnames.index(g)
        if len(self.gnames) == 1:
            return np.full(len(self.low), self.never)
        return np.where(self.first == k, self.second, self.low)

    def __getitem__(self, g):
        best = self.best(g)
        keep = best != self.never
        return pd.DataFrame({"topic": self.topics_of_pairs()[keep], "doc": self.docs_of_pairs()[keep],
                             "entry": best[keep]})

    def pooled(self, g, target: int | Mapping | None = None, depth: int | None = None) -> np.ndarray:
        """Which pairs the pool built without group ``g`` (``None``: with every group) holds:
        :func:`pool_from_entries`' rule (per topic, every document entering at or above the
        depth where the pool first reaches ``target`` documents, or at or above ``depth``) on
        integers, with no strings built per group. ``target`` is one size for every topic or a
        mapping topic -> size (a topic it lacks: 1)."""
        if (target is None) == (depth is None):
            raise UsageError("give exactly one of target (pool size) or depth")
        best = self.best(g)
        keep = best != self.never
        if depth is not None:
            return keep & (best <= int(depth))
        if isinstance(target, Mapping):
            target = np.array([target.get(t, 1) for t in self.topics], dtype=np.int64)
        return keep & (best <= self._target_depths(best, keep, target)[self.tcode])

    def _target_depths(self, best, keep, target) -> np.ndarray:
        """Per topic, the ``target``-th smallest entry depth (``target``: one number, or one
        per topic in :attr:`topics` order) among the pairs ``keep`` holds (the largest when
        fewer; -1 when none): from a (topic, depth) histogram when the depths are list
        positions (6x faster than sorting, for leave-one-group-out's one call per group), else
        by sorting."""
        nt = len(self.topics)
        kept = best[keep]
        hi = int(kept.max()) + 1 if len(kept) else 1
        size = np.bincount(self.tcode[keep], minlength=nt)
        k = np.maximum(np.minimum(size, target), 1)
        if self._histogram_fits(nt * hi):
            below = np.bincount(self.tcode[keep] * hi + kept, minlength=nt * hi).reshape(nt, hi).cumsum(axis=1)
            d = (below < k[:, None]).sum(axis=1)  # the smallest depth with k pairs at or above it
        else:
            order = np.lexsort((best, self.tcode))  # by topic, then entry (never last)
            start = np.r_[0, np.cumsum(np.bincount(self.tcode, minlength=nt))[:-1]].astype(np.int64)
            d = best[order][start + k - 1]
        return np.where(size > 0, d, -1)

    def _histogram_fits(self, cells: int) -> bool:
        """Whether a (topic, depth) histogram of ``cells`` cells is cheap next to sorting the pairs."""
        return cells <= 8 * len(self.low) + (1 << 16)

    def topics_of_pairs(self) -> np.ndarray:
        return np.asarray(self.topics, dtype=object)[self.tcode]

    def docs_of_pairs(self) -> np.ndarray:
        return np.asarray(self.docs, dtype=object)[self.sortable % self._nd]

    def pair_index(self, topic, docs) -> np.ndarray:
        """The pair numbers of (``topic``, each of ``docs``); -1 where no run retrieves it."""
        out = np.full(len(docs), -1, dtype=np.int64)
        ti = bisect.bisect_left(self.topics, topic)
        if ti == len(self.topics) or self.topics[ti] != topic:
            return out
        for i, d in enumerate(docs):
            di = bisect.bisect_left(self.docs, d)
            if di < len(self.docs) and self.docs[di] == d:
                k = int(np.searchsorted(self.sortable, ti * self._nd + di))
                if k < len(self.sortable) and self.sortable[k] == ti * self._nd + di:
                    out[i] = k
        return out

    def __iter__(self):
        return iter(self.gnames)

    def __len__(self):
        return len(self.gnames)
