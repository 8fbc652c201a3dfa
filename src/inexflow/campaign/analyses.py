"""Which meta-evaluation analyses a campaign runs, and on what: the config's ``analysis`` with
the defaults its data allows.

Without an ``analysis`` key every analysis the data allows runs (``analysis: false`` or
``null`` runs none), each at the papers' settings, which the schema's defaults hold
(``workflow/schemas/config.schema.yaml``). What depends on the data is chosen here:

- ``task``: the evaluation task whose runs are analysed: the first with at least
  :data:`MIN_RUNS` runs among the focused tasks scored by the ``passage`` family (Pal, Mitra &
  Kamps analyse the INEX 2007 focused task), else the first task in config order with that
  many runs; with none, no analyses (a warning says why);
- ``rejudge``: the analyses that re-judge passages (pool sampling, pool depth, leave one group
  out) need FOL passage assessments: on when the analysed task has them;
- ``measures``: re-judging, Pal et al.'s MAiP and iP at 0.00, 0.01, 0.05 and 0.10; else the
  headline measures of the task's first family (:func:`inexflow.measures.registry.headline_measures`);
- ``quant``: the task's first quantisation when its first family is quantised and it has several;
- ``significance``: Ogilvie & Lalmas' tests on the analysed task, over the headline measures of
  its first family (the main measure first, two measures as in their Tables 3-4) and every
  quantisation its scores carry; Tables 3-4 compare every ordered pair of them
  (``comparisons``: predictor, truth) and Figure 1 draws the first against each other
  (``differences``: reference, other);
- ``leave_one_group_out``: needs analysed runs of at least two participants (Pal et al.'s pools
  are regenerated from the analysed runs).

Each analysis is switched off by setting its key to ``false``: :data:`SWITCHES`.
"""

from __future__ import annotations

from inexflow.campaign.tasks import check_task_name, runs_of
from inexflow.errors import ConfigError, Problems, counted, log
from inexflow.measures.registry import analysis_measures, check_measures, get_family, headline_measures, measure_quants, score_quants

# the analyses, by rule name, each with the ``analysis`` key whose ``false`` switches it off
SWITCHES = {
    "topic_sampling": "topic_fractions",
    "swap_rates": "swap",
    "significance": "significance",
    "pool_sampling": "pool_fractions",
    "pool_depth": "pool_depth_percents",
    "leave_one_group_out": "leave_one_group_out",
}
# the analyses that re-judge the analysed runs' passages (FOL assessments)
REJUDGING = ("pool_sampling", "pool_depth", "leave_one_group_out")
# an analysis compares rankings of runs: it needs at least two
MIN_RUNS = 2
# the measures significance tests by default: as many of the task's headline measures as
# Ogilvie & Lalmas test (MAep and nxCG[25] in their Tables 3-4)
SIGNIFICANCE_MEASURES = 2


def analysed_task(tasks: dict, runs: dict) -> str | None:
    """The default ``analysis.task`` (the module's docstring); None when no task has
    :data:`MIN_RUNS` runs."""
    enough = [t for t in tasks if len(runs_of(runs, t)) >= MIN_RUNS]
    passage = [t for t in enough if tasks[t]["type"] == "focused" and "passage" in tasks[t]["families"]]
    return (passage or enough or [None])[0]


def _check_runs(runs: dict, task: str, key: str):
    n = len(runs_of(runs, task))
    if n < MIN_RUNS:
        raise ConfigError(f"config {key}: task {task!r} has {counted(n, 'run')}; the analyses compare "
                          f"rankings of at least {MIN_RUNS} (name a task with runs, or set analysis: false)")


def _first_family_measures(task: dict, options: dict) -> tuple[list[str], list[str]]:
    """The headline measures of ``task``'s first family, its main measure first, and the
    quantisation labels they carry: the task's quantisations for a quantised family (whose
    headline measures are quantised: ``P[k]``, not the cutoff family's ``overlap[k]``), else
    the family's fixed labels (``chars`` ...)."""
    fam = task["families"][0]
    names = headline_measures([fam], options)
    if task["main_measure"] in names:
        names = [task["main_measure"], *(n for n in names if n != task["main_measure"])]
    family = get_family(fam)
    return names, list(task["quantisations"]) if family.quantised else list(family.fixed_quants)


def resolve_analyses(config: dict, tasks: dict, runs: dict, formats: dict, options,
                     problems: Problems | None = None) -> list[str]:
    """Fill ``config["analysis"]`` in place with the defaults the data allows and check it; the
    names of the analyses that run (:data:`SWITCHES`), none when ``analysis`` is false or null.
    ``formats``: {assessment set id: its format (``fol`` ...)}; ``options(task)``: the measure
    options of an evaluation task (:func:`inexflow.campaign.config.measure_options`). Errors are
    :class:`~inexflow.errors.ConfigError` naming the key, each check's collected in
    ``problems`` (raised at once without it)."""
    p = problems or Problems()
    an = config.get("analysis")
    if not an:
        return []
    if "task" not in an:
        task = analysed_task(tasks, runs)
        if task is None:
            log.warning("no analyses: they compare rankings of runs, and no evaluation task has %d runs "
                        "(set analysis: false to say so)", MIN_RUNS)
            config["analysis"] = False
            return []
        an["task"] = task
    before = len(p.lines)
    with p.check():
        t = check_task_name(config, tasks, "analysis.task", an["task"])
    if len(p.lines) > before:
        if problems is None:
            p.raise_any()
        return []
    with p.check():
        _check_runs(runs, an["task"], "analysis.task")
    fol = formats[t["aset"]] == "fol"
    if "rejudge" not in an:
        an["rejudge"] = fol
    elif an["rejudge"] and not fol:
        p.lines.append(f"config analysis.rejudge: true re-judges passages, which needs FOL assessments; task "
                       f"{an['task']!r} is assessed in the {formats[t['aset']]} format (set analysis.rejudge: "
                       "false to run the analyses over the scores)")
    headline, quants = _first_family_measures(t, options(t))
    known = analysis_measures()
    if "measures" not in an:
        an["measures"] = ([m for m in headline_measures(["passage"], options(t)) if m in known] if an["rejudge"]
                          else headline)
    if an["rejudge"]:
        for m in an["measures"]:
            if m not in known:
                p.lines.append(f"config analysis.measures: {m!r} cannot be re-computed by the analyses "
                               f"(one of {', '.join(known)}; with analysis.rejudge false any measure of "
                               "the analysed task)")
    else:
        with p.check():
            check_measures(an["measures"], t["families"], options(t), "config analysis.measures")
    if "quant" not in an:  # one label per measure, unless the scores carry several
        several = len(score_quants(t["families"][:1], t["quantisations"])) > 1
        an["quant"] = quants[0] if several else None
    if an["quant"] is not None:
        with p.check():
            check_score_quants([an["quant"]], t, an["task"], "config analysis.quant", an["measures"], options(t))
    sig = an.get("significance")
    if sig:
        sig.setdefault("task", an["task"])
        with p.check():
            st = check_task_name(config, tasks, "analysis.significance.task", sig["task"])
            with p.check():
                _check_runs(runs, sig["task"], "analysis.significance.task")
            names, labels = _first_family_measures(st, options(st))
            sig.setdefault("measures", names[:SIGNIFICANCE_MEASURES])
            sig.setdefault("quants", labels)
            with p.check():
                check_measures(sig["measures"], st["families"], options(st), "config analysis.significance.measures")
            with p.check():
                check_score_quants(sig["quants"], st, sig["task"], "config analysis.significance.quants",
                                   sig["measures"], options(st))
            sig.setdefault("comparisons", default_comparisons(sig["quants"]))
            sig.setdefault("differences", [[sig["quants"][0], q] for q in sig["quants"][1:]])
            for key in ("comparisons", "differences"):
                with p.check():
                    _check_quant_pairs(sig[key], sig["quants"], f"config analysis.significance.{key}")
    groups = {runs[r]["participant"] for r in runs_of(runs, an["task"])}  # the pools it recreates are of these runs
    if an.get("leave_one_group_out") is None:
        an["leave_one_group_out"] = len(groups) >= 2
        if an["rejudge"] and len(groups) < 2:
            log.warning("no leave-one-group-out analysis: the analysed runs come from %d participant", len(groups))
    if problems is None:
        p.raise_any()
    on = [name for name, key in SWITCHES.items() if an.get(key) is not False and an.get(key) is not None]
    return [name for name in on if an["rejudge"] or name not in REJUDGING]


def default_comparisons(quants) -> list[list[str]]:
    """Every (predictor, truth) pair of distinct ``quants``, grouped by truth in their order:
    the rows of Ogilvie & Lalmas' Tables 3-4 when the config names none."""
    return [[q1, q2] for q2 in quants for q1 in quants if q1 != q2]


def _check_quant_pairs(pairs, quants, key: str):
    """Each pair of ``pairs`` names two different quantisations of ``quants``."""
    for pair in pairs:
        a, b = pair
        for q in pair:
            if q not in quants:
                raise ConfigError(f"{key}: {q!r} (in [{a}, {b}]) is not one of analysis.significance.quants "
                                  f"({', '.join(quants)}); add it there or name one of those")
        if a == b:
            raise ConfigError(f"{key}: [{a}, {b}] compares {a!r} with itself; name two different quantisations")


def check_score_quants(quants, task: dict, name: str, key: str, measures=(), options=None):
    """Each of ``quants`` must be a label the scores of evaluation task ``task`` (named ``name``)
    carry: one of its quantisations for the quantised families, ``chars``, ``bep`` or ``-`` for
    the quantisation-free ones (:func:`inexflow.measures.registry.score_quants`), and one that
    each of ``measures`` carries (:func:`inexflow.measures.registry.measure_quants`: the cutoff
    family's ``P[k]`` under the quantisations, its ``overlap[k]`` under ``-``)."""
    have = score_quants(task["families"], task["quantisations"])
    for q in quants:
        if q not in have:
            free = [f for f in task["families"] if not get_family(f).quantised]
            why = f" (the families {', '.join(free)} use no quantisation)" if free else ""
            raise ConfigError(f"{key}: {q!r} is not a quantisation the scores of task {name} carry{why}; "
                              f"give one of {', '.join(have)}, e.g. [{have[0]}]")
        for m in measures:
            labels = measure_quants(m, task["families"], task["quantisations"], options)
            if labels and q not in labels:
                raise ConfigError(f"{key}: the values of {m} in task {name} carry no {q!r}; give one of "
                                  f"{', '.join(labels)}, e.g. [{labels[0]}]")
