"""The settings of a simulated campaign (:mod:`inexflow.simulate`), defined once for the
generator, the ``inexflow simulate`` options and the workflow config's ``simulate:`` block;
kept apart from the generator so that reading them imports nothing heavy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SimulationConfig:
    seed: int = 42
    n_docs: int = 150
    n_topics: int = 10
    n_groups: int = 4
    runs_per_group: int = 1          # per task
    results_per_topic: int = 100     # maximum list length
    rel_docs_per_topic: tuple = (4, 12)
    pool_target: int = 40
    tasks: tuple = ("thorough", "focused", "relevant-in-context", "best-in-context", "fetch-browse", "fol")
    max_runs: int | None = None      # keep a seeded selection of this many (group, task) runs
    structure: str = "demo"          # "demo", "inex2005" or "wikipedia" (inexflow.simulate's docstring)


STRUCTURES = ("demo", "inex2005", "wikipedia")


# the keys of the workflow config's ``simulate:`` block and of ``inexflow simulate``'s options
SETTINGS = {"seed": "seed", "docs": "n_docs", "topics": "n_topics", "groups": "n_groups",
            "runs_per_group": "runs_per_group", "results": "results_per_topic", "pool_target": "pool_target",
            "max_runs": "max_runs", "structure": "structure"}


def simulation_config(settings: dict) -> SimulationConfig:
    """A :class:`SimulationConfig` from the settings named as in :data:`SETTINGS` (missing
    ones keep their defaults; ``out`` is ignored)."""
    return SimulationConfig(**{SETTINGS[k]: v for k, v in settings.items() if k in SETTINGS and v is not None})
