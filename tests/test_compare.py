"""inexflow compare (and the significance functions it shares with the workflow), -m on
inexflow score and inexflow.evaluate's measure selection, inexflow validate.

Expected values are worked another way: p-values with scipy (ttest_rel, wilcoxon) and
statsmodels (Benjamini-Yekutieli), the bootstrap with a loop of its own, wins/ties/losses
and AiP by hand."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import parse_out, run_cli, write
from inexflow.analysis.compare import compare_runs, compared_pairs, topic_differences
from inexflow.analysis.significance import benjamini_yekutieli, by_adjusted, two_sided_pvalues
from inexflow.errors import UsageError
from inexflow.measures.registry import select_measures

# three topics, one relevant passage 0:100 in each topic's article; a result on exactly that
# passage scores AiP 1 (precision 1 at every recall level), one on 500:100 AiP 0
QRELS = "".join(f"{t} Q0 d{t} 100 1000 100 0:100\n" for t in (1, 2, 3))
BASE = "1 Q0 d1 1 3 base 0 100\n2 Q0 d2 1 3 base 0 100\n3 Q0 d3 1 3 base 500 100\n"  # AiP 1, 1, 0
NEW = "1 Q0 d1 1 3 new 500 100\n2 Q0 d2 1 3 new 0 100\n3 Q0 d3 1 3 new 0 100\n"  # AiP 0, 1, 1


def matrix(seed, runs=3, topics=30, ties=False):
    rng = np.random.default_rng(seed)
    x = rng.random((runs, topics))
    if ties:
        x = np.round(x, 1)
        x[1, :4] = x[0, :4]
    return pd.DataFrame(x, index=[f"r{i}" for i in range(runs)], columns=[str(t) for t in range(topics)])


def bootstrap_by_loop(a, b, n_boot, seed):
    """The paired bootstrap written out: resample topics, take each mean difference. Returns
    the two-sided p-value, the 95% interval and the fraction of resampled differences within
    rounding of 0 (where the side a difference falls on depends on the order of summation)."""
    idx = np.random.default_rng(seed).integers(0, len(a), size=(n_boot, len(a)))
    diffs = np.array([a[i].mean() - b[i].mean() for i in idx])
    p = min(1.0, 2 * min((diffs <= 0).mean(), (diffs >= 0).mean()))
    return p, np.quantile(diffs, [0.025, 0.975]), np.isclose(diffs, 0, rtol=0, atol=1e-12).mean()


@pytest.mark.parametrize("topics, ties", [(30, False), (8, True), (60, True)])
def test_compare_runs_against_scipy_and_by_hand(topics, ties):
    m = matrix(topics, topics=topics, ties=ties)
    pairs = compared_pairs(list(m.index))
    assert pairs == [("r1", "r0"), ("r2", "r0")]
    res = compare_runs(m, pairs, n_boot=500, seed=3)
    for r in res.itertuples():
        a, b = m.loc[r.run_a].to_numpy(), m.loc[r.run_b].to_numpy()
        d = a - b
        assert r.p_t == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
        assert r.p_wilcoxon == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-9)
        p_boot, ci, near_zero = bootstrap_by_loop(a, b, 500, 3)
        assert abs(r.p_bootstrap - p_boot) <= 2 * near_zero + 1e-12 and [r.ci_low, r.ci_high] == pytest.approx(ci)
        assert (r.wins, r.ties, r.losses) == (sum(d > 0), sum(d == 0), sum(d < 0))
        assert r.diff == pytest.approx(a.mean() - b.mean())
        assert r.d_z == pytest.approx(d.mean() / d.std(ddof=1))
    assert res["p_t_by"].tolist() == pytest.approx(by_adjusted(res["p_t"]))


def test_by_adjusted_is_statsmodels_fdr_by_and_the_workflows_decisions():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(0)
    for p in (rng.random(12) ** 3, np.array([0.001, 0.001, 0.2, 0.04, 1.0]), np.array([0.03])):
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method="fdr_by")
        assert by_adjusted(p) == pytest.approx(adjusted)
        assert ((by_adjusted(p) <= 0.05) == benjamini_yekutieli(p, 0.05)).all()
        assert (reject == benjamini_yekutieli(p, 0.05)).all()


def test_two_sided_pvalues_of_the_workflow_functions():
    m = matrix(5, runs=2, topics=9, ties=True).to_numpy()
    pairs = np.array([[1, 0]])
    assert two_sided_pvalues(m, pairs, "t")[0] == pytest.approx(stats.ttest_rel(m[1], m[0]).pvalue)
    assert two_sided_pvalues(m, pairs, "wilcoxon")[0] == pytest.approx(stats.wilcoxon(m[1], m[0]).pvalue)


def test_all_pairs_and_topic_differences():
    m = matrix(1, runs=3, topics=4)
    assert compared_pairs(["a", "b", "c"], all_pairs=True) == [("b", "a"), ("c", "a"), ("c", "b")]
    d = topic_differences(m, [("r2", "r0")])
    assert d["difference"].tolist() == pytest.approx((m.loc["r2"] - m.loc["r0"]).tolist())
    assert d["topic"].tolist() == list(m.columns)


def test_compare_cli_by_hand(tmp_path):
    q, base, new = write(tmp_path / "q.fol", QRELS), write(tmp_path / "base.run", BASE), write(tmp_path / "new.run", NEW)
    out = run_cli("compare", "--task", "focused", "--assessments", q, "-m", "MAiP", "--format", "tsv",
                  "--plot", tmp_path / "d.svg", base, new, check=0).stdout
    row = pd.read_csv(__import__("io").StringIO(out), sep="\t").iloc[0]
    # new - base per topic: -1, 0, +1: one win, one tie, one loss; mean 0; both tests p = 1
    assert (row.measure, row.run_a, row.run_b, row.topics) == ("MAiP", "new", "base", 3)
    assert (row.wins, row.ties, row.losses) == (1, 1, 1)
    assert (row.mean_a, row.mean_b, row["diff"], row.d_z) == pytest.approx((2 / 3, 2 / 3, 0, 0))
    assert (row.p_t, row.p_wilcoxon, row.p_t_by) == pytest.approx((1, 1, 1))
    assert (tmp_path / "d.svg").stat().st_size > 1000
    text = run_cli("compare", "--task", "focused", "--assessments", q, base, new, check=0).stdout
    assert "MAiP: 3 topics, baseline base" in text and "1/1/1" in text and "iP[0.10]" in text  # headline measures


def test_compare_names_runs_by_run_id_else_as_the_workflow_does(tmp_path):
    """docs/formats.md#run-names: the run ids; where two share one (the real 2009 runs all say
    TREC2INEX), the workflow's names (file names without extension and compression suffix);
    where those repeat too, the paths as given."""
    q = write(tmp_path / "q.fol", QRELS)

    def pair(*paths):
        out = run_cli("compare", "--task", "focused", "--assessments", q, "-m", "MAiP", "--format", "tsv",
                      "--bootstrap", "10", *paths, check=0).stdout
        row = pd.read_csv(__import__("io").StringIO(out), sep="\t").iloc[0]
        return row.run_b, row.run_a

    base, new = write(tmp_path / "base.run", BASE), write(tmp_path / "new.txt", NEW)
    assert pair(base, new) == ("base", "new")
    a = write(tmp_path / "a" / "g01-fol.run", BASE.replace(" base ", " TREC2INEX "))
    b = tmp_path / "b.txt.gz"
    b.write_bytes(__import__("gzip").compress(NEW.replace(" new ", " TREC2INEX ").encode()))
    assert pair(a, b) == ("g01-fol", "b")
    c = write(tmp_path / "c" / "g01-fol.txt", NEW.replace(" new ", " TREC2INEX "))
    assert pair(a, c) == (str(a), str(c))


def test_compare_cli_p_values_are_scipys_on_the_scored_topics(tmp_path):
    rng = np.random.default_rng(7)
    qrels, runs = [], {"a": [], "b": []}
    for t in range(1, 21):
        qrels.append(f"{t} Q0 d{t} 300 1000 100 100:300\n")
        for name in runs:
            start = int(rng.integers(0, 700))
            runs[name].append(f"{t} Q0 d{t} 1 3 {name} {start} 300\n")
    q = write(tmp_path / "q.fol", "".join(qrels))
    paths = [write(tmp_path / f"{n}.run", "".join(lines)) for n, lines in runs.items()]
    per_topic = {}
    for p in paths:  # AiP per topic, as inexflow score prints them
        vals = parse_out(run_cli("score", "--task", "focused", "--assessments", q, "-q", p, check=0).stdout)
        per_topic[p.stem] = np.array([vals[("AiP", str(t))] for t in range(1, 21)])
    out = run_cli("compare", "--task", "focused", "--assessments", q, "-m", "MAiP", "--format", "tsv",
                  "--bootstrap", "200", "--seed", "4", *paths, check=0).stdout
    row = pd.read_csv(__import__("io").StringIO(out), sep="\t").iloc[0]
    a, b = per_topic["b"], per_topic["a"]
    assert row.p_t == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert row.p_wilcoxon == pytest.approx(stats.wilcoxon(a, b).pvalue)
    p_boot, _, near_zero = bootstrap_by_loop(a, b, 200, 4)
    assert abs(row.p_bootstrap - p_boot) <= 2 * near_zero + 1e-12
    again = run_cli("compare", "--task", "focused", "--assessments", q, "-m", "MAiP", "--format", "tsv",
                    "--bootstrap", "200", "--seed", "4", *paths, check=0).stdout
    assert again == out  # seeded


def test_compare_cli_errors_are_one_line(tmp_path):
    q, base = write(tmp_path / "q.fol", QRELS), write(tmp_path / "base.run", BASE)
    r = run_cli("compare", "--task", "focused", "--assessments", q, base)
    assert r.returncode == 2 and r.stderr.strip() == "inexflow: error: compare needs at least two runs (the first " \
                                                     "is the baseline)"
    r = run_cli("compare", "--task", "focused", "--assessments", q, "-m", "MAIP", base, base)
    assert r.returncode == 2 and "'MAIP' is not a measure" in r.stderr and "MAiP" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("compare", "--task", "focused", "--assessments", q, base, base)
    assert r.returncode == 2 and "a run is given twice" in r.stderr
    new = write(tmp_path / "new.run", NEW)
    r = run_cli("compare", "--task", "focused", "--assessments", q, "--plot", tmp_path / "d.png", base, new)
    assert r.returncode == 2 and r.stderr.strip() == (f"inexflow: error: --plot draws an SVG: give a file name ending "
                                                      f"in .svg (not {tmp_path / 'd.png'})")
    assert not (tmp_path / "d.png").exists()


@pytest.mark.parametrize("spec, families, want", [
    (["P.5,10", "map"], ["trec"], ["map", "P_5", "P_10"]),  # the trec family: in trec_eval's order
    (["iP[0.01]", "MAiP"], ["passage"], ["iP[0.01]", "MAiP"]),
    (["iP.0.01,0.1"], ["passage"], ["iP[0.01]", "iP[0.10]"]),
    ("iP", ["passage"], ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]"]),
    ("MAiP,iP[0.05]", ["passage"], ["MAiP", "iP[0.05]"]),
    ("official", ["passage"], ["MAiP", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]"]),
    ("nxCG[5,10]", ["xcg"], ["nxCG[5]", "nxCG[10]"]),
    ("el_MAep.off,on", ["fetchbrowse"], ["el_MAep[off]", "el_MAep[on]"]),
    ("ircl_prn.0.5", ["passage"], ["ircl_prn.0.50"]),
])
def test_select_measures_as_trec_eval(spec, families, want):
    assert select_measures(spec, families) == want


@pytest.mark.parametrize("spec, message", [("MAIP", "-m: 'MAIP' is not a measure of the families passage; did you "
                                                    "mean MAiP?"),
                                           ("iP.0.02", "iP has no parameter '0.02' with these options (it has 0.00, "
                                                       "0.01, 0.05, 0.10)")])
def test_select_measures_names_the_unknown_one(spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")
                       .replace("[", r"\[")):
        select_measures([spec], ["passage"])


def test_score_m_prints_the_selected_measures_and_a_means_per_topic_measure(tmp_path):
    q, base = write(tmp_path / "q.fol", QRELS), write(tmp_path / "base.run", BASE)
    out = run_cli("score", "--task", "focused", "--assessments", q, "-q", "-m", "MAiP", "-m", "iP.0.01",
                  "--format", "trec", base, check=0).stdout
    assert parse_out(out) == {("AiP", "1"): 1, ("iP[0.01]", "1"): 1, ("AiP", "2"): 1, ("iP[0.01]", "2"): 1,
                              ("AiP", "3"): 0, ("iP[0.01]", "3"): 0, ("MAiP", "all"): 2 / 3,
                              ("iP[0.01]", "all"): 2 / 3}
    r = run_cli("score", "--task", "focused", "--assessments", q, "-m", "nDCG", base)
    assert r.returncode == 2 and r.stderr.startswith("inexflow: error: -m: 'nDCG' is not a measure of the families "
                                                     "passage") and "MAiP" in r.stderr


def test_evaluate_measures_and_per_topic_names(tmp_path):
    import inexflow

    q, base = write(tmp_path / "q.fol", QRELS), write(tmp_path / "base.run", BASE)
    means = inexflow.evaluate(q, base, ["iP.0.01", "MAiP"], task="focused")
    assert means.to_dict("list") == {"measure": ["iP[0.01]", "MAiP"], "value": pytest.approx([2 / 3, 2 / 3])}
    per = inexflow.evaluate(q, base, "MAiP", task="focused", per_topic=True)
    assert list(zip(per["topic"], per["measure"], per["value"])) == [("1", "AiP", 1), ("2", "AiP", 1),
                                                                      ("3", "AiP", 0), ("all", "MAiP", 2 / 3)]


def test_validate(tmp_path):
    q = write(tmp_path / "q.fol", QRELS)
    ok = write(tmp_path / "ok.run", BASE)
    overlap = write(tmp_path / "overlap.run", "1 Q0 d1 1 3 ov 0 100\n1 Q0 d1 2 2 ov 50 100\n2 Q0 d2 1 1 ov 0 10\n"
                                              "9 Q0 d9 1 1 ov 0 10\n")
    bad = write(tmp_path / "bad.run", "1 Q0 d1 one 3 x 0 100\n")
    r = run_cli("validate", "--task", "focused", "--assessments", q, ok)
    assert r.returncode == 0 and r.stdout == f"{ok}: OK (run base, task focused, 3 topics, 3 results)\n"
    r = run_cli("validate", "--task", "focused", "--assessments", q, "--max-list-length", "1", ok, overlap, bad)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert f"{overlap}:line 2: error: run ov, topic 1: passage 50:100 of article d1 overlaps passage 0:100 on line 1" \
           in "\n".join(lines)
    assert f"{overlap}: warning: answers 2 of the 3 assessed topics: its means are over the topics it answers" in r.stdout
    assert f"{overlap}: warning: 1 topic of the run is not assessed: 9;" in r.stdout
    assert f"{overlap}: warning: 1 topic with more than 1 results (most: 2 on topic 1)" in r.stdout
    assert f"{bad}:line 1: error: rank 'one' is not an integer" in r.stdout
    assert lines[-1] == "1 of 3 runs OK, 2 FAILED"
    # overlap is allowed in the thorough task; a topic set of ids; no task named
    r = run_cli("validate", "--task", "thorough", "--topics", "1,2", overlap)
    assert r.returncode == 0 and "missing" not in r.stdout and "2 topics of the run are not in the topic set: " \
                                                                "1, 9" not in r.stdout
    assert "1 topic of the run is not in the topic set: 9" in r.stdout
    r = run_cli("validate", ok)
    assert r.returncode == 1 and "error: the run does not name its task: give --task" in r.stdout


def test_validate_task_label_of_an_xml_run(tmp_path):
    xml = write(tmp_path / "r.xml", '<inex-submission participant-id="7" run-id="r1" task="Thorough"><topic '
                                    'topic-id="5"><result><file>d1</file><path>/article[1]</path><rank>1</rank>'
                                    '</result><result><file>d1</file><path>/article[1]/sec[1]</path><rank>2</rank>'
                                    '</result></topic></inex-submission>')
    r = run_cli("validate", "--task", "CO.Focussed", xml)
    assert r.returncode == 1 and "error: the run is a thorough run (task 'Thorough'), not focused" in r.stdout
    r = run_cli("validate", xml)
    assert r.returncode == 0 and "OK (run r1, task thorough, 1 topic, 2 results)" in r.stdout
    focused = write(tmp_path / "f.xml", xml.read_text().replace('task="Thorough"', 'task="Focused"'))
    r = run_cli("validate", focused)
    assert r.returncode == 0 and "warning: 2 results overlap another of their topic" in r.stdout
