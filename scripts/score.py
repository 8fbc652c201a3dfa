"""Stage score: one parsed run x one measure family -> tidy per-topic and mean scores."""
from pathlib import Path

from inexflow.formats.assessments import Assessments
from inexflow.formats.runs import Run
from inexflow.measures import ScoringContext, score_run
from inexflow.stage import run_stage
from inexflow.tables import read_parquet, write_parquet


def main(smk, log):
    a = Assessments.load(Path(smk.input.elements).parent)
    run = Run.load(smk.input.run)
    rbs = {Path(p).stem: read_parquet(p) for p in smk.input.recallbases}
    options = dict(smk.params.options)
    if smk.input.get("index"):
        options["index"] = read_parquet(smk.input.index)
    ctx = ScoringContext(a, rbs, options)
    scores = score_run(run, smk.wildcards.family, ctx)
    log.info("run %s family %s: %d values", run.run_id, smk.wildcards.family, len(scores))
    write_parquet(scores, smk.output.scores)


run_stage(main, snakemake)  # noqa: F821
