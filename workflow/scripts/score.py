"""Stage score: one parsed run x one measure family of one evaluation task -> tidy per-topic and
mean scores (column ``task``: the evaluation task)."""
from pathlib import Path

from inexflow.campaign.stage import made_from, run_stage
from inexflow.io.tables import check_identity, check_inputs, read_parquet, read_parquet_metadata, write_parquet
from inexflow.measures.session import score_run, scoring_context
from inexflow.model.assessments import Assessments
from inexflow.model.options import Options
from inexflow.model.runs import Run


def main(smk, log):
    a = Assessments.load(Path(smk.input.elements).parent)
    run = Run.load(smk.input.run, name=smk.wildcards.run)
    rbs = {}
    for p in smk.input.recallbases:
        meta = read_parquet_metadata(p)
        check_identity(p, meta, quant=Path(p).stem)
        check_inputs(p, meta, [smk.input.elements, smk.input.passages, smk.input.documents])
        rbs[Path(p).stem] = read_parquet(p)
    index = read_parquet(smk.input.index) if smk.input.get("index") else None
    ctx = scoring_context(a, smk.params.type, [smk.wildcards.family], Options.from_dict(smk.params.options), rbs,
                          index)
    task = smk.wildcards.task
    scores = score_run(run, smk.wildcards.family, ctx).assign(task=task)
    log.info("task %s run %s family %s: %d values", task, run.name, smk.wildcards.family, len(scores))
    write_parquet(scores, smk.output.scores, {"task": task, "run": run.name, "family": smk.wildcards.family,
                                              "made_from": made_from(smk)})


run_stage(main, snakemake)  # noqa: F821
