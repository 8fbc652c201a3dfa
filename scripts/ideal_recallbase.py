"""Stage ideal_recallbase: assessments (+ index) -> full and ideal recall-base of one quantisation."""
from pathlib import Path

from inexflow.campaign.stage import made_from, merged_keys, run_stage, settings_of
from inexflow.io.tables import read_parquet, write_parquet
from inexflow.model.assessments import Assessments
from inexflow.model.recallbase import build_recallbases


def main(smk, log):
    a = Assessments.load(Path(smk.input.elements).parent)
    index = read_parquet(smk.input.index) if smk.input.get("index") else None
    quant = smk.wildcards.quant
    rb = build_recallbases(a, index, [quant], smk.params.ideal_tie)[quant]
    log.info("quant %s: %d relevant elements, %d ideal", quant, len(rb), int(rb["ideal"].sum()))
    write_parquet(rb, smk.output.recallbase, {"quant": quant, "scale": a.scale, "ideal_tie": smk.params.ideal_tie,
                                                "made_from": made_from(smk),
                                                **merged_keys(smk.input),
                                                "settings": settings_of({"ideal_tie": smk.params.ideal_tie})})


run_stage(main, snakemake)  # noqa: F821
