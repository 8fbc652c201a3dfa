"""Config checks made when the DAG is built, before any job runs: every key naming a measure,
a task or a quantisation, and the campaign's own data keys with --configfile."""
import copy
import re

import pytest
import yaml

from conftest import ROOT, cli, write
from inexflow.campaign.config import ConfigError, check_measure_keys, check_quantisations, own_campaign_data
from inexflow.campaign.tasks import task_options
from inexflow.errors import UsageError

BASE = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def cfg(**changes):
    c = copy.deepcopy(BASE)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        d = c
        for p in parents:
            d = d[p]
        d[last] = value
    return c


def test_the_shipped_config_passes():
    check_measure_keys(cfg())


def test_the_campaign_is_built_once_and_nothing_is_written_back_into_the_config(tmp_path, monkeypatch):
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simulate import SimulationConfig, simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=2, n_groups=2, results_per_topic=10,
                                                  pool_target=5))
    monkeypatch.chdir(tmp_path)
    config, campaign = load_config(default=ROOT / "config" / "config.yaml")
    assert not [k for k in config if k.startswith("_")]
    assert campaign.name == config["campaign"] and campaign.planned is None
    assert list(campaign.eval_tasks) == list(config["tasks"])
    assert set(campaign.runs) == {p.stem for p in (tmp_path / "demo" / "runs").iterdir()}
    assert campaign.runs_of("focused") == sorted(r for r, v in campaign.runs.items() if v["type"] == "focused")


@pytest.mark.parametrize("key,value,message", [
    ("collection", "demo/nocollection", "config collection: 'demo/nocollection' not found \\(give the path of a "
                                        "directory of XML documents, or leave the key out; a relative path is read "
                                        "from the working folder, .*, not from the config file's\\)"),
    ("collection", "demo/topics.xml", "config collection: 'demo/topics.xml' is not a directory of XML documents"),
    ("topics", "demo/topics.xmll", "config topics: 'demo/topics.xmll' not found \\(give the path of a topic file"),
    ("topics", "demo/runs", "config topics: 'demo/runs' is not a topic file"),
])
def test_a_missing_collection_or_topic_file_is_named_before_anything_runs(tmp_path, monkeypatch, key, value, message):
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simulate import SimulationConfig, simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=2, n_groups=2, results_per_topic=10,
                                                  pool_target=5))
    monkeypatch.chdir(tmp_path)
    mine = dict(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()), **{key: value})
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(mine))
    with pytest.raises(ConfigError, match=message):
        load_config([tmp_path / "mine.yaml"], default=ROOT / "config" / "config.yaml")


@pytest.mark.parametrize("changes,message", [
    ({"tasks__focused__main_measure": "MAIP"}, "config tasks.focused.main_measure: 'MAIP' is not a measure of the "
                                               "families passage; did you mean MAiP"),
    ({"correlation__measures__focused": ["MAiP", "iP[0.02]"]}, "config correlation.measures.focused: 'iP[0.02]'"),
    ({"correlation__measures__thorough": ["nxCG[7]"]}, "'nxCG[7]' is not a measure of the families xcg"),
    ({"correlation__measures": {"best-in-context": ["MAgP"]}, "tasks": {"focused": BASE["tasks"]["focused"]}},
     "config correlation.measures.best-in-context: task 'best-in-context' is not configured under 'tasks'"),
])
def test_measure_keys_are_checked_before_anything_runs(changes, message):
    with pytest.raises(UsageError) as e:
        check_measure_keys(cfg(**changes))
    assert message in str(e.value)


def campaign_of(c):
    from inexflow.campaign.config import prepare_config

    return prepare_config(c)


@pytest.mark.parametrize("changes,message", [
    ({"analysis__measures": ["MAiP", "gP[5]"]}, "config analysis.measures: 'gP[5]' cannot be re-computed"),
    ({"analysis__significance__measures": ["MAiP"]}, "config analysis.significance.measures: 'MAiP' is not a "
                                                      "measure of the families xcg"),
    ({"analysis__significance__quants": ["strict"]}, "config analysis.significance.quants: 'strict' is not a "
                                                      "quantisation the scores of task thorough carry; give one of gen"),
    # with rejudge false the analysed measures are the task's own, not re-computed passage measures
    ({"analysis__rejudge": False, "analysis__measures": ["MAep"]},
     "config analysis.measures: 'MAep' is not a measure of the families passage"),
    # the passage measures count characters: their scores carry no quantisation (the 2007-2010 preset's error)
    ({"analysis__quant": "gen"}, "config analysis.quant: 'gen' is not a quantisation the scores of task focused "
                                 "carry (the families passage use no quantisation); give one of chars, e.g. [chars]"),
    ({"analysis__significance__task": "focused", "analysis__significance__measures": ["MAiP"]},
     "config analysis.significance.quants: 'gen' is not a quantisation the scores of task focused carry"),
    ({"analysis__task": "nosuch"}, "config analysis.task: task 'nosuch' is not configured under 'tasks'"),
    # an analysis over a task without runs would fail in its job: named before anything runs
    ({"tasks__extra": {"families": ["passage"], "main_measure": "MAiP"}, "analysis__task": "focused",
      "analysis__significance__task": "best-in-context", "runs": BASE["runs"][1:]},
     "config analysis.significance.task: task 'best-in-context' has 0 runs; the analyses compare rankings of at "
     "least 2"),
])
def test_analysis_keys_are_checked_before_anything_runs(changes, message):
    changes.pop("tasks__extra", None)
    with pytest.raises(ConfigError) as e:
        campaign_of(cfg(**changes))
    assert message in str(e.value)


def test_every_config_error_is_reported_at_once():
    c = cfg(quantisations=["gen", "nosuch"], tasks__focused__main_measure="MAIP",
            correlation__measures__thorough=["nxCG[7]"], pool={"target": 5, "depth": 3})
    with pytest.raises(ConfigError) as e:
        campaign_of(c)
    lines = str(e.value).splitlines()
    assert lines[0] == "config has 4 errors (see docs/configuration.md):"
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "config quantisations", "config pool", "config tasks.focused.main_measure",
        "config correlation.measures.thorough"]


def test_without_an_analysis_key_every_analysis_the_data_allows_runs_at_the_papers_settings():
    c = cfg()
    del c["analysis"]
    campaign = campaign_of(c)
    an = c["analysis"]
    # FOL assessments and a focused task scored by the passage family: Pal et al.'s analyses on it
    assert an["task"] == "focused" and an["rejudge"] is True
    assert an["measures"] == ["MAiP", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]"]
    assert campaign.analyses == ["topic_sampling", "swap_rates", "significance", "pool_sampling", "pool_depth",
                                 "leave_one_group_out"]
    assert (an["seed"], an["samples"], an["pool_fractions"]) == (42, 10, [0.2, 0.4, 0.6, 0.8, 1.0])
    assert an["pool_depth_percents"] == [5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert an["swap"] == {"iterations": 50, "tolerances": [0, 0.05, 0.1, 0.2, 0.3], "min_size": None}
    # Ogilvie & Lalmas' tests on the analysed task: two headline measures, every label its scores carry
    assert an["significance"] == {"task": "focused", "measures": ["MAiP", "iP[0.00]"], "quants": ["chars"],
                                  "tests": ["t", "wilcoxon", "sign", "bootstrap"], "bootstrap": 10000,
                                  "alpha": 0.05, "splits": 50, "error_rate_bootstrap": 1000,
                                  "comparisons": [], "differences": []}


@pytest.mark.parametrize("changes,off", [
    ({"analysis": False}, "all"), ({"analysis": None}, "all"),
    ({"analysis__significance": False}, ["significance"]), ({"analysis__significance": None}, ["significance"]),
    ({"analysis__swap": False}, ["swap_rates"]), ({"analysis__topic_fractions": False}, ["topic_sampling"]),
    ({"analysis__pool_fractions": False}, ["pool_sampling"]), ({"analysis__pool_depth_percents": False}, ["pool_depth"]),
    ({"analysis__leave_one_group_out": False}, ["leave_one_group_out"]),
    ({"analysis__rejudge": False, "analysis__measures": ["MAiP"]}, ["pool_sampling", "pool_depth", "leave_one_group_out"]),
])
def test_the_analyses_or_any_one_of_them_switch_off_with_false(changes, off):
    from inexflow.campaign.analyses import SWITCHES
    from inexflow.campaign.config import schema_errors, schema_path

    schema = yaml.safe_load(schema_path().read_text())
    c = cfg(**changes)
    assert schema_errors(c, schema) == []
    on = campaign_of(c).analyses
    assert on == ([] if off == "all" else [a for a in SWITCHES if a not in off])


def test_true_is_not_an_analysis_setting():
    from inexflow.campaign.config import schema_errors, schema_path

    schema = yaml.safe_load(schema_path().read_text())
    for changes in ({"analysis": True}, {"analysis__significance": True}, {"analysis__swap": True}):
        assert schema_errors(cfg(**changes), schema)  # true is not a setting: name them, or false


def test_element_assessments_run_the_analyses_over_the_scores_alone():
    c = cfg(assessments={"path": "demo/assessments/inex2006", "format": "inex2006"}, tasks={
        "thorough": {"families": ["xcg"], "main_measure": "MAep"},
        "focused": {"families": ["xcg"], "main_measure": "MAep"}}, quantisations=["gen", "spec"])  # the 2006 scale's
    for k in ("analysis", "correlation", "pool"):
        del c[k]
    c["runs"] = [{"path": "demo/runs/*-thorough-*.xml"}, {"path": "demo/runs/*-focused-*.xml"}]
    campaign = campaign_of(c)
    an = c["analysis"]
    # no focused task scored by the passage family: the first task with two runs; no FOL: no re-judging
    assert an["task"] == "thorough" and an["rejudge"] is False
    assert an["measures"] == ["MAep", "iMAep", "nxCG[5]", "nxCG[10]", "nxCG[25]", "nxCG[50]", "Q", "R"]
    assert an["quant"] == "gen"  # the task has several: the first
    assert an["significance"]["measures"] == ["MAep", "iMAep"] and an["significance"]["quants"] == ["gen", "spec"]
    # Tables 3-4 compare each with the other (grouped by truth); Figure 1 draws gen against spec
    assert an["significance"]["comparisons"] == [["spec", "gen"], ["gen", "spec"]]
    assert an["significance"]["differences"] == [["gen", "spec"]]
    assert campaign.analyses == ["topic_sampling", "swap_rates", "significance"]
    for key, pairs, message in (
            ("differences", [["gen", "genLifted"]], "config analysis.significance.differences: 'genLifted' (in [gen, "
                                                    "genLifted]) is not one of analysis.significance.quants (gen, spec)"),
            ("comparisons", [["gen", "gen"]], "config analysis.significance.comparisons: [gen, gen] compares 'gen' "
                                              "with itself")):
        c3 = copy.deepcopy(c)
        c3["analysis"] = {"significance": {key: pairs}}
        with pytest.raises(ConfigError, match=re.escape(message)):
            campaign_of(c3)
    c2 = copy.deepcopy(c)
    c2["analysis"] = {"rejudge": True}
    with pytest.raises(ConfigError, match="config analysis.rejudge: true re-judges passages, which needs FOL "
                                          "assessments; task 'thorough' is assessed in the inex2006 format"):
        campaign_of(c2)


def test_swap_topic_set_sizes_start_at_the_papers_5_or_lower_for_three_sizes():
    from inexflow.analysis.swap import topic_set_sizes

    assert topic_set_sizes(107) == list(range(5, 54))  # INEX 2007: 107 topics, sizes 5..53
    assert topic_set_sizes(16) == [5, 6, 7, 8]
    assert topic_set_sizes(10) == [3, 4, 5]  # 5 would leave one size: no fit
    assert topic_set_sizes(3) == [1]
    assert topic_set_sizes(10, 2) == [2, 3, 4, 5]


def test_cutoffs_decide_which_nxcg_exist():
    changes = {"correlation__measures__thorough": ["nxCG[7]", "MAep"], "analysis__significance__measures": ["MAep"]}
    campaign_of(cfg(cutoffs=[7], **changes))
    with pytest.raises(UsageError, match="'nxCG\\[10\\]' is not a measure of the families xcg"):
        campaign_of(cfg(cutoffs=[7], **dict(changes, analysis__significance__measures=["nxCG[10]"])))


@pytest.mark.parametrize("text,quant,ok", [
    ("1 Q0 A 100 500 0 0:100\n", "gen", True),
    ("1 Q0 A 100 500 0 0:100\n", "strict", False),  # FOL qrels are on the 2006 scale
    ('<assessments topic="1"><file name="A"><element path="/article[1]" exhaustivity="2" size="5" rsize="5"/>'
     "</file></assessments>", "strict", True),
    ('<assessments topic="1"><file name="A"><element path="/article[1]" size="5" rsize="5"/></file></assessments>',
     "strict", False),
])
def test_quantisation_against_the_sniffed_scale(tmp_path, text, quant, ok):
    f = write(tmp_path / "a", text)
    aset = {"format": "auto", "files": [str(f)]}
    if ok:
        check_quantisations(aset, [quant])
    else:
        with pytest.raises(ConfigError, match=f"config quantisations: quantisation '{quant}' is not defined"):
            check_quantisations(aset, [quant])


def test_own_campaign_data_with_configfile():
    c = cfg()
    with pytest.raises(ConfigError) as e:
        own_campaign_data(c, {"campaign": "mine"}, ["mine.yaml"])
    assert "config mine.yaml: no 'assessments', 'runs' given" in str(e.value)
    given = {"campaign": "mine", "assessments": {"path": "q.fol"}, "runs": [{"path": "r/*"}]}
    own_campaign_data(c, given, ["mine.yaml"])
    assert c["collection"] is None and c["topics"] is None  # not the demo's
    assert "tasks" not in c and "analysis" not in c  # nothing else is inherited either


def test_a_config_file_stands_alone_and_three_keys_are_a_campaign(tmp_path, monkeypatch):
    """With --configfile nothing comes from config/config.yaml: a key the file lacks takes the
    workflow's default, never the demo's value; campaign, assessments and runs are enough."""
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simulate import SimulationConfig, simulate

    mine = write(tmp_path / "mine.yaml", yaml.safe_dump(
        {"campaign": "mine", "assessments": {"path": "q.fol"}, "runs": [{"path": "r/*"}]}))
    with pytest.raises(ConfigError, match="config assessments.path 'q.fol': no assessment file found"):
        load_config([mine], default=ROOT / "config" / "config.yaml")
    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=2, n_groups=2, results_per_topic=10,
                                                  pool_target=5))
    monkeypatch.chdir(tmp_path)
    mine.write_text(yaml.safe_dump({"campaign": "mine", "assessments": {"path": "demo/assessments/qrels.fol"},
                                    "runs": [{"path": "demo/runs/*.txt", "task": "focused"}]}))
    config, campaign = load_config([mine], default=ROOT / "config" / "config.yaml")
    # one evaluation task per scoring type with the default families of FOL qrels (the table of
    # scoring types) ranked by the first headline measure; the focused one has the runs
    assert {t: (e["families"], e["main_measure"]) for t, e in campaign.eval_tasks.items()} == {
        "thorough": (["passage_thorough"], "MAiP"), "focused": (["passage"], "MAiP"),
        "relevant-in-context": (["ric"], "MAgP"), "best-in-context": (["bic"], "MAgP")}
    assert {r["eval_tasks"][0] for r in campaign.runs.values()} == {"focused"}
    # pooling: every task, 600 documents per topic (Pal, Mitra & Kamps: "just over 600 articles")
    assert campaign.pool == {"target": 600, "tasks": list(campaign.eval_tasks)}
    # correlation: the headline measures of each task with runs
    assert campaign.correlation == {"focused": ["MAiP", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]"]}
    # the analyses: every one the data allows, at the schema's defaults (none of the demo's settings)
    assert config["analysis"]["swap"]["min_size"] is None and config["analysis"]["task"] == "focused"
    assert campaign.analyses == ["topic_sampling", "swap_rates", "significance", "pool_sampling", "pool_depth",
                                 "leave_one_group_out"]


def test_check_config_names_the_yaml_line(tmp_path):

    bad = write(tmp_path / "mine.yaml", "campaign: x\nruns:\n  - path: [\n")
    code, out, err = cli("check-config", "--configfile", bad)
    assert code == 2 and f"inexflow: error: {bad}:line 4: not valid YAML" in err, err


def test_check_config_says_what_is_scored_and_shows_the_expected_forms(tmp_path):
    """A three-key config: the short forms of assessments and runs are refused with the form
    expected; given as the schema has them, the summary names only the tasks that have runs,
    says that passage scores carry no quantisation, and which tasks have none."""
    qrels = write(tmp_path / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    write(tmp_path / "runs" / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    short = write(tmp_path / "short.yaml", f"campaign: t1\nassessments: {qrels}\nruns: '{tmp_path}/runs/*'\n")
    code, out, err = cli("check-config", "--configfile", short)
    assert code == 2
    assert "config.assessments: " in err and "is not of type 'object' (e.g. {path: qrels.fol})" in err, err
    assert "is not of type 'array' (e.g. [{path: runs/*}])" in err, err
    good = write(tmp_path / "good.yaml", f"campaign: t1\nassessments: {{path: {qrels}}}\n"
                                         f"runs: [{{path: '{tmp_path}/runs/*', task: focused}}]\n")
    code, out, err = cli("check-config", "--configfile", good)
    assert code == 0, err
    assert ("1 run in 1 evaluation task (focused 1), 1 assessment set of 1 file, no quantisation; no runs for "
            "thorough, relevant-in-context, best-in-context (nothing is scored for them)") in out, out


def test_check_config_names_the_significance_task_apart():
    """check-config says on what task and measures the analyses run, significance's own where they differ."""
    from inexflow.front.cli import analyses_line

    an = {"task": "focused", "measures": ["MAiP", "iP[0.01]"], "significance": {"task": "thorough", "measures": ["MAep"]}}
    assert analyses_line(an, ["swap_rates", "significance"]) == (
        "analyses of task 'focused' on MAiP, iP[0.01]: swap_rates; significance of task 'thorough' on MAep")
    assert analyses_line(an, ["significance"]) == "analyses: significance of task 'thorough' on MAep"
    an["significance"] = {"task": "focused", "measures": ["MAiP", "iP[0.01]"]}
    assert analyses_line(an, ["swap_rates", "significance"]) == (
        "analyses of task 'focused' on MAiP, iP[0.01]: swap_rates, significance")
    assert analyses_line(an, []) == "no analyses"


def test_check_config_accepts_the_presets_and_fills_defaults(tmp_path, monkeypatch):
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simconfig import SimulationConfig
    from inexflow.simulate.simulate import simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=3, n_groups=1, results_per_topic=10,
                                                 pool_target=5))
    monkeypatch.chdir(tmp_path)
    config, campaign = load_config([ROOT / "config" / "campaigns" / "inex2006.yaml"], default=ROOT / "config" / "config.yaml")
    assert config["campaign"] == "inex2006" and config["beta"] == 0.25  # a schema default
    assert {r["type"] for r in campaign.runs.values()} >= {"thorough", "focused"}
    # the 2006 Relevant in Context task takes the runs labelled RelevantInContext too
    assert [r["eval_tasks"] for r in campaign.runs.values() if r["label"] == "RelevantInContext"] == [["AllInContext"]]
    config, campaign = load_config([ROOT / "config" / "campaigns" / "inex2007-2010.yaml"],
                               default=ROOT / "config" / "config.yaml")
    assert sorted({t for r in campaign.runs.values() for t in r["eval_tasks"]}) == ["BestInContext", "Focused",
                                                                          "RelevantInContext", "Thorough"]
    assert [r["eval_tasks"] for r in campaign.runs.values() if r["file"].endswith(".txt")] == [["Focused"]]


def test_the_inex2005_preset_plans_its_ten_tasks_before_its_campaign_exists(tmp_path, monkeypatch):
    """On a fresh clone the 2005 preset's campaign is planned (rule simulate_demo writes it):
    every planned run lands in exactly one of the ten tasks, by its 2005 task label, and the
    CO.Thorough runs also in Ogilvie & Lalmas' CO.Thorough.exhaustivity."""
    from inexflow.campaign.config import load_config

    monkeypatch.chdir(tmp_path)
    config, campaign = load_config([ROOT / "config" / "campaigns" / "inex2005.yaml"], default=ROOT / "config" / "config.yaml")
    assert campaign.planned and not (tmp_path / "demo-inex2005").exists()
    per_task = {}
    for name, r in campaign.runs.items():
        assert r["eval_tasks"][0] == r["label"], name
        assert r["eval_tasks"][1:] == (["CO.Thorough.exhaustivity"] if r["label"] == "CO.Thorough" else []), name
        for task in r["eval_tasks"]:
            per_task.setdefault(task, []).append(r["label"])
    assert sorted(per_task) == sorted(config["evaluation_tasks"])
    assert all(set(labels) == {task.removesuffix(".exhaustivity")} for task, labels in per_task.items())
    sets = campaign.assessment_sets
    assert sorted(sets) == ["SSCAS", "SVCAS", "VSCAS", "VVCAS", "main"]
    assert sets["main"]["path"].endswith("CO+S") and campaign.eval_tasks["SSCAS"]["aset"] == "SSCAS"
    assert campaign.eval_tasks["COS.Thorough"]["topic_subset"] == ["202", "203", "205", "206", "208", "209", "211"]


def test_the_wikipedia2007_preset_plans_inex2007_before_its_campaign_exists(tmp_path, monkeypatch):
    """The full-size 2007 preset is planned on a fresh clone (nothing simulated): 80 runs from
    25 groups in the four 2007 tasks, element runs and passage runs, FOL qrels, pools of 600."""
    from inexflow.campaign.config import load_config

    monkeypatch.chdir(tmp_path)
    config, campaign = load_config([ROOT / "config" / "campaigns" / "wikipedia2007.yaml"],
                                   default=ROOT / "config" / "config.yaml")
    assert campaign.planned and not (tmp_path / "wikipedia2007").exists()
    assert config["simulate"]["docs"] == 659388 and config["pool"]["target"] == 600
    assert len(campaign.runs) == 80
    assert len({name.split("-")[0] for name in campaign.runs}) == 25
    per_task: dict = {}
    for name, r in campaign.runs.items():
        per_task.setdefault(r["eval_tasks"][0], []).append(name)
    assert sorted(per_task) == ["BestInContext", "Focused", "RelevantInContext", "Thorough"]
    assert sum(1 for name in campaign.runs if "-fol-" in name) == 20


@pytest.mark.parametrize("change,message", [
    ({"evaluation_tasks": {"F": {"type": "focussed", "families": ["passage"], "main_measure": "MAiP"}}},
     "config.evaluation_tasks.F.type: 'focussed' is not one of"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["pasage"], "main_measure": "MAiP"}}},
     "config evaluation_tasks.F.families: unknown family 'pasage'"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAP"}}},
     "config evaluation_tasks.F.main_measure: 'MAP' is not a measure of the families passage"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAiP",
                                 "quantisations": ["strct"]}}},
     "config evaluation_tasks.F.quantisations: unknown 'strct'"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAiP",
                                 "runs": {"label": ["Focused"]}}}},
     "config.evaluation_tasks.F.runs: Additional properties are not allowed ('label' was unexpected)"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAiP"}},
      "tasks": {"focused": {"families": ["passage"], "main_measure": "MAiP"}}},
     "config: give either 'tasks' (the shorthand: one evaluation task per scoring type) or 'evaluation_tasks'"),
    ({"evaluation_tasks": {"F": {"type": "thorough", "families": ["xcg"], "main_measure": "MAep",
                                 "runs": {"labels": ["Focused"]}}}},
     "config evaluation_tasks.F: run g01-focused-1 (demo/runs/g01-focused-1.xml) is a focused run but the evaluation "
     "task scores thorough runs"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAiP",
                                 "runs": {"paths": ["demo/runs/*.txt"]}}}},
     "config: run g01-focused-1 (demo/runs/g01-focused-1.xml) is a focused run labelled 'Focused' but no entry of "
     "'evaluation_tasks' takes it (configured: F)"),
    ({"evaluation_tasks": {"F": {"type": "focused", "families": ["passage"], "main_measure": "MAiP",
                                 "assessments": {"path": "nowhere/*.xml"}}}},
     "config evaluation_tasks.F.assessments.path 'nowhere/*.xml': no assessment file found"),
])
def test_evaluation_task_errors_name_the_key(tmp_path, monkeypatch, change, message):
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simconfig import SimulationConfig
    from inexflow.simulate.simulate import simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=3, n_groups=1, results_per_topic=10,
                                                 pool_target=5, tasks=("focused", "fol")))
    monkeypatch.chdir(tmp_path)
    mine = {"campaign": "mine", "assessments": {"path": "demo/assessments/qrels.fol"},
            "runs": [{"path": "demo/runs/*.xml"}, {"path": "demo/runs/*.txt", "task": "focused"}],
            "pool": {"target": 5, "tasks": ["F"]}, "correlation": {"measures": {}}, **change}
    if "tasks" in change:
        mine["pool"]["tasks"] = ["F"]
    write(tmp_path / "mine.yaml", yaml.safe_dump(mine))
    with pytest.raises(UsageError) as e:
        load_config([tmp_path / "mine.yaml"], default=ROOT / "config" / "config.yaml")
    assert message in str(e.value)


def test_a_run_is_scored_in_every_evaluation_task_that_takes_it(tmp_path, monkeypatch):
    from inexflow.campaign.config import load_config
    from inexflow.simulate.simconfig import SimulationConfig
    from inexflow.simulate.simulate import simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=3, n_groups=2, results_per_topic=10,
                                                 pool_target=5, tasks=("focused", "fol")))
    monkeypatch.chdir(tmp_path)
    mine = {"campaign": "mine", "assessments": {"path": "demo/assessments/qrels.fol"},
            "runs": [{"path": "demo/runs/*.xml"}, {"path": "demo/runs/*.txt", "task": "focused"}],
            "evaluation_tasks": {
                "Focused": {"type": "focused", "families": ["passage"], "main_measure": "MAiP"},
                "Focused.first2": {"type": "focused", "runs": {"paths": ["demo/runs/*.txt"]}, "topic_subset": [2009001],
                                   "families": ["passage"], "main_measure": "MAiP", "cutoffs": [3]},
                "Elements": {"type": "focused", "runs": {"paths": ["demo/runs/*.xml"]},
                             "assessments": {"path": "demo/assessments/inex2005", "format": "inex2005"},
                             "quantisations": ["strict"], "families": ["xcg"], "main_measure": "nxCG[3]",
                             "cutoffs": [3]}},
            "pool": {"target": 5, "tasks": ["Focused"]}, "correlation": {"measures": {"Elements": ["nxCG[3]"]}}}
    write(tmp_path / "mine.yaml", yaml.safe_dump(mine, sort_keys=False))
    config, campaign = load_config([tmp_path / "mine.yaml"], default=ROOT / "config" / "config.yaml")
    assert {n: r["eval_tasks"] for n, r in campaign.runs.items()} == {
        "g01-focused-1": ["Focused", "Elements"], "g02-focused-1": ["Focused", "Elements"],
        "g01-fol-1": ["Focused", "Focused.first2"], "g02-fol-1": ["Focused", "Focused.first2"]}
    assert sorted(campaign.assessment_sets) == ["inex2005", "main"]
    o = task_options(config, "Focused.first2")
    assert (o.topic_subset, o.cutoffs, o.quantisations) == (("2009001",), (3,), ("gen",))
    assert task_options(config, "Elements").quantisations == ("strict",)


def test_schema_defaults_are_the_options_defaults():
    from dataclasses import fields

    from inexflow.model.options import Options

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())["properties"]
    d = Options()
    compared = 0
    for f in fields(Options):
        if f.name in schema and "default" in schema[f.name]:
            default = schema[f.name]["default"]
            assert (tuple(default) if isinstance(default, list) else default) == getattr(d, f.name), f.name
            compared += 1
    # every option is a config key with the same default, except the per-task ones
    assert compared == len(fields(Options)) - len({"overlap", "alpha"})


def test_both_doors_resolve_the_same_overlap():
    from inexflow.front.cli import build_parser, options_from_args

    for task, want in (("focused", "on"), ("thorough", "off"), ("fetch-browse", "off")):
        cli = options_from_args(build_parser().parse_args(["score", "--task", task, "--assessments", "q", "r"]))
        assert cli.for_task(task).overlap == task_options(cfg(), task).for_task(task).overlap == want
    c = cfg()
    c["tasks"]["focused"]["overlap"] = "off"
    assert task_options(c, "focused").for_task("focused").overlap == "off"


def test_schema_assessment_formats_are_the_readers():
    from inexflow.io.detect import ASSESSMENT_FORMATS

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert tuple(schema["properties"]["assessments"]["properties"]["format"]["enum"]) == ASSESSMENT_FORMATS


def test_schema_scoring_types_and_structures_are_the_library_s():
    """One truth: the schema's scoring types (tasks, evaluation_tasks.NAME.type) and simulated
    structures are the library's lists."""
    from inexflow.io.task_labels import TASKS
    from inexflow.simulate.simconfig import STRUCTURES

    props = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())["properties"]
    assert tuple(props["tasks"]["propertyNames"]["enum"]) == TASKS
    assert tuple(props["evaluation_tasks"]["additionalProperties"]["properties"]["type"]["enum"]) == TASKS
    assert tuple(props["simulate"]["properties"]["structure"]["enum"]) == STRUCTURES


def test_the_table_of_scoring_types_names_registered_families_and_the_papers_overlap():
    from inexflow.io.task_labels import SCORING_TYPES, TASKS
    from inexflow.measures.registry import DEFAULT_FAMILIES, FAMILIES
    from inexflow.model.options import default_overlap

    assert TASKS == tuple(SCORING_TYPES)
    assert {f for fams in DEFAULT_FAMILIES.values() for f in fams} <= set(FAMILIES)
    assert {t for t, _ in DEFAULT_FAMILIES} == set(TASKS)
    # 2005 paper, sections 3-4: overlap on (ideal recall-base) for Focused only
    assert {t: default_overlap(t) for t in TASKS} == {t: "on" if t == "focused" else "off" for t in TASKS}


def test_a_key_that_changed_meaning_names_its_replacement(tmp_path):
    from inexflow.campaign.config import prepare_config

    c = cfg()
    c["analysis"]["depth_reductions"] = c["analysis"].pop("pool_depth_percents")
    with pytest.raises(ConfigError) as e:
        prepare_config(c)
    assert "config analysis.depth_reductions was replaced by analysis.pool_depth_percents" in str(e.value)


def test_a_retired_key_is_accepted_with_a_warning_that_it_does_nothing(caplog):
    from inexflow.campaign.config import prepare_config

    c = cfg()
    c["stage_server"] = False
    with caplog.at_level("WARNING", logger="inexflow"):
        prepare_config(c)
    assert "stage_server" not in c
    assert "config stage_server no longer has an effect: every job is now its own process" in caplog.text


def test_summary_trends_are_monotonicity_tests_on_rounded_values():
    from inexflow.analysis.summary import trend

    assert trend([0.8, 0.9, 0.9999999999999998, 1.0], "pools") == "falls as pools shrink"
    assert trend([1.0, 0.9999999999999998], "pools") == "stays at 1.000 as pools shrink"
    assert trend([0.8, 0.95, 0.9, 1.0], "topic sets") == "not monotone as topic sets shrink"
    assert trend([0.3, 0.2, 0.1], "topic sets") == "rises as topic sets shrink"  # error rates by growing size


def test_a_quantisation_a_measure_does_not_carry_is_named_before_anything_runs():
    # the cutoff family's precision carries the quantisations, its set overlap '-': the 2004 preset's
    # significance failed on P[10] under '-' in its job before this check
    c = yaml.safe_load((ROOT / "config" / "campaigns" / "inex2004.yaml").read_text())
    c["analysis"] = {"significance": {"quants": ["-"], "measures": ["P[10]"]}}
    with pytest.raises(ConfigError, match=r"config analysis.significance.quants: the values of P\[10\] in task CO "
                                          r"carry no '-'; give one of strict, liberal, e3s321, s3e321"):
        campaign_of(c)
    c["analysis"] = {"significance": {"quants": ["-"], "measures": ["overlap[10]"]}}
    assert "significance" in campaign_of(c).analyses


def test_schema_errors_come_all_at_once_with_what_is_allowed_and_an_example():
    with pytest.raises(ConfigError) as e:
        campaign_of(cfg(analysis__samples="x", analysis__swap={"iterations": 0}, foo=1))
    lines = str(e.value).splitlines()[1:]
    assert lines[0].startswith("  config: Additional properties are not allowed ('foo' was unexpected) (allowed: "
                               "campaign, collection,")
    assert lines[1:] == ["  config.analysis.samples: 'x' is not of type 'integer' (e.g. 10)",
                         "  config.analysis.swap.iterations: 0 is less than the minimum of 1 (e.g. 50)"]


def test_a_key_given_twice_or_an_alias_bomb_is_named(tmp_path):
    twice = write(tmp_path / "twice.yaml", "campaign: x\nassessments: {path: q.fol}\ncampaign: y\n")
    code, out, err = cli("check-config", "--configfile", twice)
    assert code == 2 and f"{twice}:line 3: not valid YAML: key 'campaign' given twice (first on line 1)" in err
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"] + [
        f"{b}: &{b} [{', '.join([f'*{a}'] * 10)}]" for a, b in zip("abcdefgh", "bcdefghi")]
    bomb = write(tmp_path / "bomb.yaml", "\n".join(levels) + "\n")  # 10^9 values from nine lines
    code, out, err = cli("check-config", "--configfile", bomb)
    assert code == 2 and f"{bomb}: expands to more than 1,000,000 values (YAML aliases" in err


def test_a_misspelt_key_does_not_hide_the_other_errors():
    c = cfg(pooll={"target": 5}, tasks__focused__main_measure="MAiPP",
            analysis__significance__task="best-in-context", analysis__significance__measures=["MAgPP"],
            runs=BASE["runs"][1:])  # text runs only: best-in-context has none
    with pytest.raises(ConfigError) as e:
        campaign_of(c)
    lines = str(e.value).splitlines()
    assert lines[0] == "config has 5 errors (see docs/configuration.md):"
    assert lines[1].startswith("  config: Additional properties are not allowed ('pooll' was unexpected)")
    assert lines[2].startswith("  config tasks.focused.main_measure: 'MAiPP' is not a measure")
    assert lines[3].startswith("  config analysis.significance.task: task 'best-in-context' has 0 runs")
    assert lines[4].startswith("  config analysis.significance.measures: 'MAgPP' is not a measure of the families bic")
    # the demo's value, named where config/config.yaml gives it
    assert re.match(r"  \S*config/config\.yaml:line \d+: config analysis\.significance\.quants: 'gen' is not a "
                    "quantisation", lines[5]), lines[5]


def test_a_config_files_errors_name_its_file_and_line_and_the_key_a_misspelling_meant(tmp_path):
    """Through --configfile, each schema error starts with the file and line that give the key
    (in a list, the item's line; a misspelt key's own line), a misspelt key is answered with the
    key it is closest to, and a required key given misspelt is named with it."""
    q = write(tmp_path / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    write(tmp_path / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    head = f"campaign: x\nassessments: {{path: {q}}}\n"
    bad = write(tmp_path / "bad.yaml", head + f"beta: high\nruns:\n  - path: '{tmp_path}/r1.run'\n    task: 7\n")
    code, out, err = cli("check-config", "--configfile", bad)
    assert code == 2
    assert f"config {bad} is invalid (see docs/configuration.md):" in err
    assert f"  {bad}:line 3: config.beta: 'high' is not of type 'number'" in err, err
    assert f"  {bad}:line 6: config.runs.0.task: 7 is not of type 'string'" in err, err
    typo = write(tmp_path / "typo.yaml", head + f"runs: [{{path: '{tmp_path}/r1.run', task: focused}}]\n"
                                               "cutofs: [5, 10]\n")
    code, out, err = cli("check-config", "--configfile", typo)
    assert code == 2 and f"{typo}:line 4: config: Additional properties are not allowed ('cutofs' was unexpected) " \
                         "(did you mean 'cutoffs'?)" in err, err
    missing = write(tmp_path / "missing.yaml", f"campaign: x\nassesments: {{path: {q}}}\nruns: [{{path: r1.run}}]\n")
    code, out, err = cli("check-config", "--configfile", missing)
    assert code == 2 and f"config {missing}: no 'assessments' given ('assesments' is not a config key: did you " \
                         "mean 'assessments'?)" in err, err
    nowhere = write(tmp_path / "nowhere.yaml", head + f"topics: {tmp_path}/gone.xml\n"
                                                      f"runs: [{{path: '{tmp_path}/r1.run', task: focused}}]\n")
    code, out, err = cli("check-config", "--configfile", nowhere)
    assert code == 2 and f"{nowhere}:line 3: config topics: '{tmp_path}/gone.xml' not found (give the path of a " \
                         "topic file, or leave the key out)" in err, err


def test_a_topic_file_given_for_the_assessments_is_named_as_one(tmp_path):
    """A topic file in assessments.path is refused before anything runs (check-config, the
    workflow's checks) and by the assessment readers (inexflow score), naming its root."""
    topics = write(tmp_path / "topics.xml", '<?xml version="1.0"?>\n<!DOCTYPE inex-topic-file [\n'
                   '<!ELEMENT inex-topic-file (topic+)>\n]>\n<inex-topic-file>\n<topic id="1" ct_no="1">'
                   '<title>x</title></topic>\n</inex-topic-file>\n')
    write(tmp_path / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    mine = write(tmp_path / "mine.yaml", f"campaign: x\nassessments: {{path: {topics}}}\n"
                                         f"runs: [{{path: '{tmp_path}/r1.run', task: focused}}]\n")
    code, out, err = cli("check-config", "--configfile", mine)
    assert code == 2 and f"config assessments.path: {topics} is a topic file (root <inex-topic-file>), not " \
                         "assessments" in err, err
    code, out, err = cli("score", "--task", "focused", "--assessments", topics, tmp_path / "r1.run")
    assert code == 2 and "no <assessments> element (the root is <inex-topic-file>: a topic file, not assessments)" \
        in err and len(err.strip().splitlines()) == 1, err


def test_a_run_given_for_the_fol_qrels_is_refused_before_anything_runs(tmp_path):
    """FOL qrels whose first line has no integer rel_chars and doc_chars (a run's rank and score
    there): check-config names the file, the line and the columns; real FOL qrels pass."""
    run = write(tmp_path / "r1.run", "# a comment\n1 Q0 d1 1 -0.5 r1 0 10\n")
    mine = write(tmp_path / "mine.yaml", f"campaign: x\nassessments: {{path: {run}, format: fol}}\n"
                                         f"runs: [{{path: '{run}', task: focused}}]\n")
    code, out, err = cli("check-config", "--configfile", mine)
    assert code == 2 and f"config assessments.path: {run}:line 2: doc_chars '-0.5' is not an integer: not FOL " \
                         "qrels (a run file?" in err, err
    q = write(tmp_path / "q.fol", "1 Q0 d1 10 -1 0:10\n")
    write(mine, f"campaign: x\nassessments: {{path: {q}}}\nruns: [{{path: '{run}', task: focused}}]\n")
    code, out, err = cli("check-config", "--configfile", mine)
    assert code == 0, err


def test_key_lines_name_the_last_file_that_gives_a_key_with_its_value(tmp_path):
    from inexflow.campaign.config import key_lines

    a = write(tmp_path / "a.yaml", "beta: 0.5\nruns:\n  - path: x\n    task: focused\npool: {target: 5}\n")
    b = write(tmp_path / "b.yaml", "# b\nbeta: high\n")
    where = key_lines([a, b])
    assert where(("beta",), "high") == f"{b}:line 2"  # the last file that gives it
    assert where(("beta",), "low") is None  # a value given over the files' (--config)
    assert where(("runs", 0, "task"), "focused") == f"{a}:line 4"
    assert where(("runs", 0)) == f"{a}:line 3" and where(("pool", "target")) == f"{a}:line 5"
    assert where(("runs", 1)) is None and where(("cutoffs",)) is None  # in no file: a default


def test_the_checks_after_the_schema_name_the_file_and_line_of_their_key(tmp_path):
    """A value the schema takes but the campaign cannot (a measure its family lacks, a path
    that matches nothing) is named with the file and line that give its key, as the schema's
    errors are: the last of the config files that gives it."""
    q = write(tmp_path / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    write(tmp_path / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    cfg = write(tmp_path / "c.yaml", f"campaign: x\nassessments: {{path: {q}}}\n"
                                     f"runs:\n  - path: '{tmp_path}/r1.run'\n    task: focused\n"
                                     "  - path: 'nowhere/*.run'\n    task: focused\n"
                                     "tasks:\n  focused:\n    families: [passage]\n    main_measure: MAIP\n")
    code, out, err = cli("check-config", "--configfile", cfg)
    assert code == 2
    assert f"  {cfg}:line 6: config runs[1]: path 'nowhere/*.run' matches no file" in err, err
    assert f"  {cfg}:line 11: config tasks.focused.main_measure: 'MAIP' is not a measure" in err, err
    # the key given again by a later file: that file's line
    over = write(tmp_path / "over.yaml", "# the real qrels\nassessments: {path: nowhere.fol}\n")
    code, out, err = cli("check-config", "--configfile", cfg, "--configfile", over)
    assert code == 2 and f"  {over}:line 2: config assessments.path 'nowhere.fol': no assessment file found" in err


def test_a_path_found_nowhere_names_its_line_and_the_working_folder_and_a_taskless_glob_is_said_once(
        tmp_path, monkeypatch):
    """A relative path that names no file is one line with the config's file and line and the
    folder it was read from (the working folder, not the config's), also without ``tasks``
    (whose defaults are read from the assessments); a glob of text runs without ``task`` is one
    error for the entry, however many files it matches; a wrong ``task`` of an entry is one
    error at its line."""
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "conf" / "c.yaml", "campaign: x\nassessments:\n  path: data/q.fol\n"
                                              "runs:\n  - path: 'runs/*.run'\n")
    code, out, err = cli("check-config", "--configfile", cfg)
    assert code == 2 and err.count("\n") == 1, err
    assert err == (f"inexflow: error: {cfg}:line 3: config assessments.path 'data/q.fol': no assessment file "
                   f"found (a relative path is read from the working folder, {tmp_path}, not from the config "
                   "file's)\n"), err
    write(tmp_path / "data" / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    for r in ("a", "b", "c"):
        write(tmp_path / "runs" / f"{r}.run", f"1 Q0 d1 1 1.0 {r} 0 10\n")
    code, out, err = cli("check-config", "--configfile", cfg)
    assert code == 2 and err == (f"inexflow: error: {cfg}:line 5: config runs[0]: no task for runs/a.run and 2 more "
                                 "of the files it matches: give 'task' in the entry (text runs do not name their "
                                 "task)\n"), err
    cfg.write_text(cfg.read_text() + "    task: focussedd\n")
    code, out, err = cli("check-config", "--configfile", cfg)
    assert code == 2 and err.startswith(f"inexflow: error: {cfg}:line 6: config runs[0].task: unknown task "
                                        "'focussedd' (did you mean 'focused'?)") and err.count("\n") == 1, err


def test_a_repeated_cut_off_or_a_is_refused_by_its_key(tmp_path):
    """Two values of cutoffs, cutoff_ks or bepd_a that the measures would name alike (a repeated
    cut-off, A = 1 and 1.0, or 0.5 and 0.5000001, both EPRUM[0.5]) are refused by the scoring
    options, the CLI and the workflow config, the config at its key's line; other lists pass."""
    from inexflow.model.options import Options

    for opts in ({"cutoffs": (5, 10, 5)}, {"cutoff_ks": (10, 20, 10)}, {"bepd_a": (1, 1.0)}, {"bepd_a": (0.5, 0.5000001)}):
        with pytest.raises(UsageError, match="each value once|name apart"):
            Options.from_dict(opts)
    assert Options.from_dict({"cutoffs": (5, 10), "bepd_a": (0.5, 0.51)}).bepd_a == (0.5, 0.51)
    code, _, err = cli("score", "--task", "best-in-context", "--family", "bepd", "--cutoffs", "5,5", "q", "r")
    assert code == 2 and "option cutoffs: (5, 5) is not allowed (expected each value once: 5 is given twice)" in err
    q = write(tmp_path / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    write(tmp_path / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    base = (f"campaign: x\nassessments: {{path: {q}}}\nruns:\n  - path: '{tmp_path}/r1.run'\n    task: focused\n"
            "tasks:\n  focused:\n    families: [passage]\n    main_measure: MAiP\n")
    for key, value, said in (("bepd_a", "[0.5, 0.5000001]", "0.5 and 0.5000001 are both 0.5"),
                             ("cutoffs", "[5, 10, 5]", "has non-unique elements")):
        c = write(tmp_path / f"{key}.yaml", base + f"{key}: {value}\n")
        code, _, err = cli("check-config", "--configfile", c)
        assert code == 2 and f"{c}:line 10: config" in err and said in err, err


def test_the_workflows_planning_says_warnings_as_the_cli_does(capfd):
    """In Snakemake's own process (the config's checks when the workflow plans the campaign) a
    library warning is one line on stderr with the CLI's prefix, not Python's bare last-resort
    line; a second call adds no second handler."""
    import logging

    from inexflow.campaign.stage import planning_logging

    root = logging.getLogger("inexflow")
    saved = root.handlers[:]
    root.handlers.clear()
    try:
        planning_logging()
        planning_logging()
        root.warning("no analyses: %s", "why")
        assert capfd.readouterr().err == "inexflow: warning: no analyses: why\n"
    finally:
        root.handlers[:] = saved


def test_snakemake_says_the_plannings_warning_with_the_clis_prefix(tmp_path):
    """``snakemake -n`` on a config of one run (no analyses possible): the library's warning from
    the workflow's own process is one line with the CLI's prefix, as the user sees it."""
    import subprocess
    import sys

    q = write(tmp_path / "q.fol", "1 Q0 d1 10 100 1 0:10\n")
    write(tmp_path / "r1.run", "1 Q0 d1 1 1.0 r1 0 10\n")
    cfg = write(tmp_path / "c.yaml", f"campaign: x\nassessments: {{path: {q}}}\n"
                                     f"runs:\n  - path: '{tmp_path}/r1.run'\n    task: focused\n")
    p = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet", "-s", str(ROOT / "Snakefile"),
                        "--configfile", str(cfg)], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    said = [line for line in (p.stdout + p.stderr).splitlines() if "no analyses" in line]
    assert said == ["inexflow: warning: no analyses: they compare rankings of runs, and no evaluation task has 2 "
                    "runs (set analysis: false to say so)"], p.stdout + p.stderr
