"""Stage simulate_demo: the simulated campaign of config ``simulate:`` (as inexflow simulate)."""
from inexflow.campaign.stage import run_stage
from inexflow.simulate.simconfig import simulation_config
from inexflow.simulate.simulate import simulate


def main(smk, log):
    settings = dict(smk.params.settings)
    summary = simulate(settings["out"], simulation_config(settings), processes=smk.threads)
    log.info("simulated %d runs, %d topics, %d documents into %s", summary["runs"], summary["topics"],
             summary["documents"], settings["out"])


run_stage(main, snakemake)  # noqa: F821
