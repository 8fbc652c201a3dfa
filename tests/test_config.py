"""Config checks made when the DAG is built, before any job runs: every key naming a measure,
a task or a quantisation, and the campaign's own data keys with --configfile."""
import copy

import pytest
import yaml

from conftest import ROOT, cli, write
from inexflow.config import ConfigError, check_measure_keys, check_quantisations, own_campaign_data
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


@pytest.mark.parametrize("changes,message", [
    ({"tasks__focused__main_measure": "MAIP"}, "config tasks.focused.main_measure: 'MAIP' is not a measure of the "
                                               "families passage; did you mean MAiP"),
    ({"correlation__measures__focused": ["MAiP", "iP[0.02]"]}, "config correlation.measures.focused: 'iP[0.02]'"),
    ({"correlation__measures__thorough": ["nxCG[7]"]}, "'nxCG[7]' is not a measure of the families xcg"),
    ({"correlation__measures": {"best-in-context": ["MAgP"]}, "tasks": {"focused": BASE["tasks"]["focused"]}},
     "config correlation.measures.best-in-context: task 'best-in-context' is not configured under 'tasks'"),
    ({"analysis__measures": ["MAiP", "gP[5]"]}, "config analysis.measures: 'gP[5]' cannot be re-computed"),
    ({"analysis__significance__measures": ["MAiP"]}, "config analysis.significance.measures: 'MAiP' is not a "
                                                      "measure of the families xcg"),
    ({"analysis__significance__quants": ["strict"]}, "config analysis.significance.quants: 'strict' is not among"),
])
def test_measure_keys_are_checked_before_anything_runs(changes, message):
    with pytest.raises(UsageError) as e:
        check_measure_keys(cfg(**changes))
    assert message in str(e.value)


def test_cutoffs_decide_which_nxcg_exist():
    changes = {"correlation__measures__thorough": ["nxCG[7]", "MAep"], "analysis__significance__measures": ["MAep"]}
    check_measure_keys(cfg(cutoffs=[7], **changes))
    with pytest.raises(UsageError, match="'nxCG\\[10\\]' is not a measure of the families xcg"):
        check_measure_keys(cfg(cutoffs=[7], **dict(changes, analysis__significance__measures=["nxCG[10]"])))


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
    c = cfg(quantisations=[quant])
    c["_assessment_files"] = [str(f)]
    if ok:
        check_quantisations(c)
    else:
        with pytest.raises(ConfigError, match=f"config quantisations: quantisation '{quant}' is not defined"):
            check_quantisations(c)


def test_own_campaign_data_with_configfile():
    c = cfg()
    with pytest.raises(ConfigError) as e:
        own_campaign_data(c, {"campaign": "mine"}, ["mine.yaml"])
    assert "config mine.yaml: no 'assessments', 'runs' given" in str(e.value)
    given = {"campaign": "mine", "assessments": {"path": "q.fol"}, "runs": [{"path": "r/*"}]}
    own_campaign_data(c, given, ["mine.yaml"])
    assert c["collection"] is None and c["topics"] is None  # not the demo's


def test_check_config_names_the_yaml_line(tmp_path):

    bad = write(tmp_path / "mine.yaml", "campaign: x\nruns:\n  - path: [\n")
    code, out, err = cli("check-config", "--configfile", bad)
    assert code == 2 and f"inexflow: error: {bad}:line 4: not valid YAML" in err, err


def test_check_config_accepts_the_presets_and_fills_defaults(tmp_path, monkeypatch):
    from inexflow.config import load_config
    from inexflow.simulate import SimulationConfig, simulate

    simulate(tmp_path / "demo", SimulationConfig(seed=3, n_docs=20, n_topics=3, n_groups=1, results_per_topic=10,
                                                 pool_target=5))
    monkeypatch.chdir(tmp_path)
    config, runs = load_config([ROOT / "config" / "campaigns" / "inex2006.yaml"], default=ROOT / "config" / "config.yaml")
    assert config["campaign"] == "inex2006-demo" and config["beta"] == 0.25  # a schema default
    assert {r["task"] for r in runs.values()} >= {"thorough", "focused"}


def test_schema_defaults_are_the_options_defaults():
    from dataclasses import fields

    from inexflow.options import Options

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
    from inexflow.cli import build_parser, options_from_args
    from inexflow.options import Options

    for task, want in (("focused", "on"), ("thorough", "off"), ("fetch-browse", "off")):
        cli = options_from_args(build_parser().parse_args(["score", "--task", task, "--assessments", "q", "r"]))
        assert cli.for_task(task).overlap == Options.from_config(cfg(), task).for_task(task).overlap == want
    c = cfg()
    c["tasks"]["focused"]["overlap"] = "off"
    assert Options.from_config(c, "focused").for_task("focused").overlap == "off"


def test_schema_assessment_formats_are_the_readers():
    from inexflow.formats.assessments import ASSESSMENT_FORMATS

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert tuple(schema["properties"]["assessments"]["properties"]["format"]["enum"]) == ASSESSMENT_FORMATS


def test_a_key_that_changed_meaning_names_its_replacement(tmp_path):
    from inexflow.config import prepare_config

    c = cfg()
    c["analysis"]["depth_reductions"] = c["analysis"].pop("pool_depth_percents")
    with pytest.raises(ConfigError) as e:
        prepare_config(c)
    assert "config analysis.depth_reductions was replaced by analysis.pool_depth_percents" in str(e.value)


def test_summary_trends_are_monotonicity_tests_on_rounded_values():
    from inexflow.analysis.summary import trend

    assert trend([0.8, 0.9, 0.9999999999999998, 1.0], "pools") == "falls as pools shrink"
    assert trend([1.0, 0.9999999999999998], "pools") == "stays at 1.000 as pools shrink"
    assert trend([0.8, 0.95, 0.9, 1.0], "topic sets") == "not monotone as topic sets shrink"
    assert trend([0.3, 0.2, 0.1], "topic sets") == "rises as topic sets shrink"  # error rates by growing size
