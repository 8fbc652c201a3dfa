"""What a measure family scores in: the :class:`ScoringContext`, and the columns of every score
table (:data:`SCORE_COLUMNS`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

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


def tidy(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    """Rows (topic, quant, measure, value) as a family's score table."""
    return pd.DataFrame.from_records(rows, columns=["topic", "quant", "measure", "value"]).astype(
        {"topic": object, "quant": object, "measure": object, "value": "float64"})
