"""The measure catalogue: every family declares the measure names it emits, so that config
keys naming measures (main_measure, correlation.measures, ...) are checked before anything
runs. Checked here against what each family really emits on a simulated campaign."""
from types import SimpleNamespace

import pytest

from inexflow.errors import UsageError
from inexflow.measures.context import ScoringContext
from inexflow.measures.registry import FAMILIES, check_measures, families_for, measure_names
from inexflow.measures.session import score_run
from inexflow.model.assessments import index_assessed, read_assessments
from inexflow.model.recallbase import build_recallbases
from inexflow.model.runs import read_run, resolve_extents
from inexflow.simulate.simconfig import SimulationConfig
from inexflow.simulate.simulate import simulate

# family -> (assessments under the simulated campaign, task of the run it scores)
CASES = {"xcg": ("qrels.fol", "thorough"), "cutoff": ("qrels.fol", "thorough"),
         "fetchbrowse": ("qrels.fol", "fetch-browse"), "passage": ("qrels.fol", "focused"),
         "passage_thorough": ("qrels.fol", "thorough"), "ric": ("qrels.fol", "relevant-in-context"),
         "bic": ("qrels.fol", "best-in-context"), "bepd": ("qrels.fol", "best-in-context"),
         "hixeval": ("inex2006", "relevant-in-context"), "precall": ("inex2002", "thorough"),
         "inex_eval_ng": ("inex2002", "thorough"),
         "trec": ("qrels.fol", "focused")}
OPTIONS = {"cutoffs": [3, 7], "cutoff_ks": [2, 9], "bepd_a": [0.5, 2], "max_list_length": 40,
           "per_topic_curves": True}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim")
    simulate(out, SimulationConfig(seed=3, n_docs=20, n_topics=3, n_groups=1, results_per_topic=20, pool_target=10))
    return out


def test_every_family_is_in_the_catalogue_and_the_tests():
    assert set(CASES) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(CASES))
def test_declared_names_are_the_emitted_names(campaign, family):
    where, task = CASES[family]
    a = read_assessments([str(campaign / "assessments" / where)])
    index = index_assessed(campaign / "collection", a)
    ctx = ScoringContext(a, build_recallbases(a, index, ["gen"] if a.scale != "inex2002" else ["strict"]),
                         dict(OPTIONS, index=index))
    runs = sorted(p for p in (campaign / "runs").iterdir() if read_run(p).scoring_type == task)
    emitted = set()
    for p in runs[:2]:
        run = resolve_extents(read_run(p), campaign / "collection", index)
        emitted |= set(score_run(run, family, ctx)["measure"])
    declared = measure_names([family], OPTIONS)
    assert emitted and emitted <= set(declared), sorted(emitted - set(declared))
    # a declared name that is never emitted would let a config pass and then fail
    assert set(declared) == emitted, sorted(set(declared) - emitted)


def test_options_change_the_names():
    assert "nxCG[7]" in measure_names(["xcg"], {"cutoffs": [7]})
    assert "nxCG[10]" not in measure_names(["xcg"], {"cutoffs": [7]})
    assert "BEPD[0.5]" in measure_names(["bepd"], {"bepd_a": [0.5]})


def test_unknown_measure_names_the_key_and_the_closest_names():
    with pytest.raises(UsageError) as e:
        check_measures(["MAiP", "iP[0.02]"], ["passage"], {}, "config correlation.measures.focused")
    msg = str(e.value)
    assert "config correlation.measures.focused: 'iP[0.02]' is not a measure of the families passage" in msg
    assert "did you mean iP[0." in msg and "iP[0.00] .. iP[0.10]" in msg  # the curve shortened


def test_means_counts_and_curves():
    from inexflow.measures.catalogue import curve_point, is_count, per_topic_name

    # every family's mean name maps to a per-topic name the family emits too
    for fam in FAMILIES:
        names = set(measure_names([fam], OPTIONS))
        for mean in names:
            assert per_topic_name(mean) in names, (fam, mean)
    assert [per_topic_name(m) for m in ("MAiP", "MAgP", "precall_MAP", "MAep", "iP[0.01]")] == \
        ["AiP", "AgP", "precall_AP", "MAep", "iP[0.01]"]
    assert is_count("num_rel") and is_count("ret_size") and not is_count("MAiP")
    assert curve_point("ep[0.25]") == ("ep[", 0.25) and curve_point("nxCG@[15]") == ("nxCG@[", 15.0)
    assert curve_point("ircl_prn.0.10") == ("ircl_prn.", 0.1) and curve_point("nxCG[10]") is None


@pytest.mark.parametrize("family", sorted(CASES))
def test_means_are_the_declared_aggregates_of_the_per_topic_values(campaign, family):
    """Every ``all`` value is its measure's per-topic values (topic order) under the aggregator
    the family declares, exactly; and, computed independently, their exact mean (math.fsum /
    n, to 1e-12), sum or number of topics."""
    import math

    from inexflow.measures.catalogue import aggregate, aggregator, per_topic_name

    where, task = CASES[family]
    a = read_assessments([str(campaign / "assessments" / where)])
    index = index_assessed(campaign / "collection", a)
    ctx = ScoringContext(a, build_recallbases(a, index, ["gen"] if a.scale != "inex2002" else ["strict"]),
                         dict(OPTIONS, index=index))
    p = sorted(p for p in (campaign / "runs").iterdir() if read_run(p).scoring_type == task)[0]
    df = score_run(resolve_extents(read_run(p), campaign / "collection", index), family, ctx)
    per, means = df[df["topic"] != "all"], df[df["topic"] == "all"]
    n_topics = per["topic"].nunique()
    checked = 0
    for r in means.itertuples():
        how = aggregator(family, r.measure)
        if how == "topics":
            assert r.value == n_topics
            continue
        v = per[(per["measure"] == per_topic_name(r.measure)) & (per["quant"] == r.quant)]["value"].tolist()
        if not v or how == "qrels_sum":  # a curve averaged but not printed per topic; a qrels-wide count
            continue
        assert len(v) == n_topics
        assert aggregate(family, r.measure, v) == r.value, r
        expect = (math.fsum(v) if how == "sum" else
                  math.exp(math.fsum(math.log(max(x, 1e-5)) for x in v) / len(v)) if how == "geometric" else
                  math.fsum(v) / len(v))
        assert math.isclose(r.value, expect, rel_tol=1e-12, abs_tol=1e-15), r
        checked += 1
    assert checked >= 1


def test_aggregators_by_hand():
    from inexflow.measures.catalogue import AGGREGATORS, aggregator

    v = [0.1] * 10  # summed left to right: 0.9999999999999999; numpy's pairwise sum gives 1.0
    assert AGGREGATORS["tool_mean"](v) == 0.9999999999999999 / 10
    assert AGGREGATORS["mean"](v) == 1.0 / 10
    assert AGGREGATORS["sum"]([3, 4]) == 7.0 and AGGREGATORS["topics"]([{}, {}, {}]) == 3.0
    assert aggregator("passage", "MAiP") == "tool_mean" and aggregator("xcg", "MAep") == "mean"
    assert aggregator("ric", "num_rel") == "qrels_sum" and aggregator("passage", "num_rel") == "sum"
    assert aggregator("xcg", "num_q") == "topics"


def test_a_task_without_a_family_on_these_assessments_names_its_family_elsewhere():
    """Fetch & browse has a default family on element assessments only: on FOL qrels the error
    says which family to name (the CLI's --family, the API's families=)."""
    with pytest.raises(UsageError, match=r"fetch-browse' on fol assessments yet .*; or name a family \(--family, "
                                         r"families=\) and the collection \(--collection, collection:\): the task's "
                                         r"on other assessments: fetchbrowse$"):
        families_for("fetch-browse", SimpleNamespace(scale="fol"))
    assert families_for("fetch-browse", SimpleNamespace(scale="fol"), ["fetchbrowse"]) == ["fetchbrowse"]
