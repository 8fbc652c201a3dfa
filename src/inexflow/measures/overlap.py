"""Overlap-aware gains for the Focused strategy (``overlap=on``): rv and rv_norm of the
INEX 2005 evaluation measures paper (section 3.2, Eq. 7-9) as settled in docs/measures.md.

Within one topic and document, with R the results returned so far:

- rv(c) = quant(c) if c is unseen (neither c, an ancestor nor a descendant of c in R);
  (1 - alpha) quant(c) if fully seen (c or an ancestor of c in R); alpha * sum over the
  assessed children ch of c of rv(ch) |ch| / |c| + (1 - alpha) quant(c) if partly seen
  (a descendant of c in R), children recursively, text in no assessed child counting 0.
- rv_norm caps the credit of the cluster of an ideal element I (its ancestors and
  descendants) at rv(I) = quant(I): a result inside I (I or a descendant) gets
  min(rv(c), remaining(I)); a result above ideal elements I1..Ik gets min(rv(c), their
  summed remaining credit), charged to them in document order; results outside every
  cluster get 0. remaining(I) = quant(I) minus what has been charged to I, so gains are
  never negative.

Seen-ness is decided on the xpaths (containment), so sizes are needed only for partly
seen elements. The work per result is proportional to its depth plus the assessed
children of partly seen elements below it: linear in the run's length for a fixed tree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import InputError, place
from inexflow.io.xpath import ancestors
from inexflow.measures.element_arrays import Codes, RowIndex, frame_codes


class DocumentState:
    """Assessed elements of one (topic, document) and what the user has seen of them."""

    def __init__(self, xpaths, gains, sizes, ideal):
        self.gain = dict(zip(xpaths, gains))
        self.size = dict(zip(xpaths, sizes))
        self.children: dict[str, list[str]] = {}
        for x in xpaths:
            i = x.rfind("/")
            if i > 0:
                self.children.setdefault(x[:i], []).append(x)
        self.ideal_order = [x for x, flag in zip(xpaths, ideal) if flag]  # document (assessment) order
        self.remaining = {x: self.gain[x] for x in self.ideal_order}
        self.ideal_below: dict[str, list[str]] = {}
        for x in self.ideal_order:
            for a in ancestors(x):
                self.ideal_below.setdefault(a, []).append(x)
        self.returned: set[str] = set()
        self.partial: set[str] = set()  # ancestors of returned elements
        self.up: dict[str, tuple[str, ...]] = {}  # each xpath met: its ancestors (kept with the assessed elements)

    def _ancestors(self, x: str) -> tuple[str, ...]:
        up = self.up.get(x)
        if up is None:
            up = self.up[x] = tuple(ancestors(x))
        return up

    def fresh(self) -> DocumentState:
        """This document with nothing seen: its assessed elements shared, what the user has seen
        of them new (a run's walk starts from it)."""
        state = DocumentState.__new__(DocumentState)
        state.__dict__.update(self.__dict__)  # the assessed elements' tables shared, not copied
        state.remaining = {x: self.gain[x] for x in self.ideal_order}
        state.returned, state.partial = set(), set()
        return state

    def _fully_seen(self, x: str) -> bool:
        return x in self.returned or not self.returned.isdisjoint(self._ancestors(x))

    def rv(self, x: str, alpha: float) -> float:
        if x not in self.gain:
            return 0.0  # unassessed: all its text is unassessed and counts 0
        q = self.gain[x]
        if self._fully_seen(x):
            return (1 - alpha) * q
        if x not in self.partial:
            return q
        size = self.size.get(x, -1)
        if size <= 0:
            raise ValueError(x)
        inner = 0.0
        for ch in self.children.get(x, ()):
            csize = self.size.get(ch, -1)
            if csize < 0:
                raise ValueError(ch)
            inner += self._rv_below(ch, alpha) * csize
        return alpha * inner / size + (1 - alpha) * q

    def _rv_below(self, x: str, alpha: float) -> float:
        # below a partly seen element an ancestor is never returned, so only x itself can be
        if x in self.returned:
            return (1 - alpha) * self.gain.get(x, 0.0)
        if x in self.partial:
            return self.rv(x, alpha)
        return self.gain.get(x, 0.0)

    def take(self, x: str, alpha: float) -> float:
        """The gain rv_norm of returning x now, then mark x as seen."""
        v = self.rv(x, alpha)
        up = self._ancestors(x)
        if v == 0.0:  # nothing to charge (the remaining credits are never negative): only seen
            self.returned.add(x)
            self.partial.update(up)
            return 0.0
        owner = x if x in self.remaining else next((a for a in up if a in self.remaining), None)
        if owner is not None:
            g = min(v, self.remaining[owner])
            self.remaining[owner] -= g
        else:
            below = self.ideal_below.get(x, [])
            g = min(v, sum(self.remaining[i] for i in below))
            left = g
            for i in below:
                c = min(left, self.remaining[i])
                self.remaining[i] -= c
                left -= c
        self.returned.add(x)
        self.partial.update(up)
        return max(g, 0.0)


class AssessedDocuments:
    """A recall-base by (topic, document), made once per scoring context: the index of its
    (topic, doc) pairs (:class:`~inexflow.measures.element_arrays.RowIndex`) and each pair's
    rows, from which a document's :class:`DocumentState` is built when a run first reaches it
    (then kept, each run walking a :meth:`~DocumentState.fresh` copy)."""

    def __init__(self, recallbase: pd.DataFrame):
        groups = recallbase.groupby(["topic", "doc"], sort=False).indices
        pairs = pd.DataFrame(list(groups), columns=["topic", "doc"], dtype=object)
        self.index = RowIndex(pairs, ["topic", "doc"], frame_codes(pairs, ["topic", "doc"]))  # the pairs are distinct
        self.rows = list(groups.values())
        self.columns = {c: recallbase[c].to_numpy(dtype=object if c == "xpath" else None)
                        for c in ("xpath", "gain", "size", "ideal")}
        self.built: dict[int, DocumentState] = {}

    def state(self, pair: int) -> DocumentState:
        """The document ``pair`` with nothing seen yet."""
        built = self.built.get(pair)
        if built is None:
            rows = self.rows[pair]
            built = self.built[pair] = DocumentState(*(self.columns[c][rows].tolist()
                                                       for c in ("xpath", "gain", "size", "ideal")))
        return built.fresh()


def focused_gains(results: pd.DataFrame, recallbase: pd.DataFrame, alpha: float, source="run",
                  documents: AssessedDocuments | None = None, codes: Codes | None = None) -> np.ndarray:
    """xG = rv_norm for every result (topic, doc, xpath in rank order) against ``recallbase``
    (all assessed elements with gain, size and the ideal flag; ``documents``: its
    :class:`AssessedDocuments`, made here where not given). The results' documents are looked
    up at once (by their ``codes``, else factorised); only the results in assessed documents
    are walked, each document's in rank order (the others gain nothing)."""
    documents = documents if documents is not None else AssessedDocuments(recallbase)
    pair = documents.index.rows(codes if codes is not None else frame_codes(results, ["topic", "doc"]))
    out = np.zeros(len(results))
    walked = np.flatnonzero(pair >= 0)
    xpaths = results["xpath"].to_numpy(dtype=object)[walked].tolist()
    states: dict[int, DocumentState] = {}
    for k, (i, p) in enumerate(zip(walked.tolist(), pair[walked].tolist())):
        st = states.get(p)
        if st is None:
            st = states[p] = documents.state(p)
        try:
            out[i] = st.take(xpaths[k], alpha)
        except ValueError as e:
            line = results["line"].iloc[i] if "line" in results.columns else 0
            raise InputError(source, place(source, line), f"element {results['doc'].iloc[i]}{e} has no size: overlap-aware "
                             "scoring needs element sizes", "sizes in the assessments or a collection index") from None
    return out
