"""What a measure family scores in: the :class:`ScoringContext`, the columns of every score
table (:data:`SCORE_COLUMNS`), and the element results of a run for the element families
(:func:`element_results`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from inexflow.errors import InputError, counted, warn_input
from inexflow.model.assessments import Assessments
from inexflow.model.options import Options

SCORE_COLUMNS = ["run", "topic", "task", "quant", "measure", "value"]


@dataclass
class ScoringContext:
    """What a measure family may use: the assessments, the recall-bases per quantisation (for
    families that declare ``needs={"recallbases"}``, :mod:`inexflow.measures.registry`), the collection index (``"index"``)
    and the :class:`~inexflow.model.options.Options` (a mapping of option names is accepted too).
    """

    assessments: Assessments
    recallbases: dict[str, pd.DataFrame] = field(default_factory=dict)
    options: Options | dict = field(default_factory=Options)
    index: pd.DataFrame | None = None

    cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if isinstance(self.options, dict):
            opts = dict(self.options)
            if "index" in opts:
                self.index = opts.pop("index")
            self.options = Options.from_dict(opts)

    def opt(self, name):
        """An option's value (its default from :class:`~inexflow.model.options.Options` when not set)."""
        return getattr(self.options, name)

    def memo(self, key: str, compute):
        """``compute()`` once per context (for data derived from the assessments that every
        run needs, e.g. the merged highlighted passages)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def assessed_topics(self) -> list[str]:
        """The assessments' topics (:attr:`~inexflow.model.assessments.Assessments.topics`), once per context."""
        return self.memo("assessed topics", lambda: self.assessments.topics)


def tidy(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    """Rows (topic, quant, measure, value) as a family's score table."""
    if not rows:
        return pd.DataFrame.from_records(rows, columns=["topic", "quant", "measure", "value"]).astype(
            {"topic": object, "quant": object, "measure": object, "value": "float64"})
    topic, quant, measure, value = zip(*rows)
    return pd.DataFrame({"topic": _strings(topic), "quant": _strings(quant), "measure": _strings(measure),
                         "value": np.asarray(value, dtype=np.float64)})


def _strings(values) -> pd.Series:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return pd.Series(out, dtype=object, copy=False)


def tidy_columns(topics: list[str], quant: str, columns: dict[str, np.ndarray], tail: list[tuple]) -> pd.DataFrame:
    """A family's score table from per-topic ``columns`` (measure -> one value per topic of
    ``topics``, in output order): each topic's measures in the order of ``columns``, then the
    rows ``tail`` (topic, quant, measure, value), e.g. the means."""
    names = list(columns)
    values = np.column_stack([np.asarray(columns[m], np.float64) for m in names]) if names and topics \
        else np.zeros((len(topics), len(names)))
    return tidy_matrix(topics, quant, names, values, tail)


def tidy_matrix(topics: list[str], quant: str, names: list[str], values: np.ndarray, tail: list[tuple]
                ) -> pd.DataFrame:
    """:func:`tidy_columns` from a matrix: ``values[i, j]`` is measure ``names[j]`` of topic
    ``topics[i]``."""
    return tidy_blocks([(topics, quant, names, values, tail)])


def tidy_blocks(blocks: list[tuple[list[str], str, list[str], np.ndarray, list[tuple]]]) -> pd.DataFrame:
    """A family's score table from blocks ``(topics, quant, names, values, tail)`` in turn, each
    as :func:`tidy_matrix` takes them (e.g. one per quantisation)."""
    topic, quants, measure, value = [], [], [], []
    for topics, quant, names, values, tail in blocks:
        topic.append(np.repeat(np.asarray(topics, dtype=object), len(names)))
        measure.append(np.tile(np.asarray(names, dtype=object), len(topics)))
        value.append(np.asarray(values, np.float64).reshape(-1))
        quants.append(np.full(len(topics) * len(names), quant, dtype=object))
        if tail:
            for column, part in zip((topic, quants, measure), zip(*tail)):
                column.append(np.asarray(part, dtype=object))
            value.append(np.asarray([v for *_, v in tail], np.float64))

    def joined(parts, dtype):
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

    return pd.DataFrame({"topic": pd.Series(joined(topic, object), dtype=object),
                         "quant": pd.Series(joined(quants, object), dtype=object),
                         "measure": pd.Series(joined(measure, object), dtype=object),
                         "value": joined(value, np.float64)})


def element_results(run, family: str) -> pd.DataFrame:
    """The element results (those with an XPath) of ``run``, which the element families score:
    a run with results but no element among them (a passage or document run) is an
    :class:`~inexflow.errors.InputError`, since every value would be 0; results that are not
    elements in an element run are left out with a warning."""
    res = run.results
    codes = run.codes("xpath")
    el = (np.asarray(codes[1], dtype=object) != "")[codes[0]] if codes is not None else (res["xpath"] != "").to_numpy()
    if len(res) and not el.any():
        raise InputError(run.source, None, f"run {run.run_id} holds no element results (no XPath: passages or whole "
                         f"documents), and the {family} family scores elements", "an element run, or a family that "
                         "scores passages for this one (e.g. --family passage)")
    if not el.all():
        n = int((~el).sum())
        warn_input(run.source, None, f"{counted(n, 'result')} without an XPath (passages or whole documents) "
                   f"{'is' if n == 1 else 'are'} left out by the {family} family, which scores elements")
    if el.all() and res.index.equals(pd.RangeIndex(len(res))):
        return res  # (the frame itself: the families only read it)
    return res[el].reset_index(drop=True)
