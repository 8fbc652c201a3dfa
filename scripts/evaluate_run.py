"""Stage evaluate_run: one run file, read once, gives everything the campaign needs of it:

- ``runs/RUN.parquet``: the parsed run, element extents resolved through the collection's index
  shards (reading only the documents the run returns);
- ``firstpos/RUN.parquet``: the first position of each document per topic (all pooling needs);
- ``scores/by_run/RUN.parquet``: its scores for every evaluation task it belongs to and every
  measure family of that task (column ``task``: the evaluation task), scored through the same
  :class:`~inexflow.measures.session.Session` as ``inexflow score`` and :func:`inexflow.evaluate`;
- ``judged/RUN.parquet`` (rule evaluate_analysed_run, the runs of the analysed task): the run
  judged against the analysis' assessments, for the analyses that re-judge it.
"""
from pathlib import Path

import pandas as pd

from inexflow.analysis.rejudge import JudgedRuns
from inexflow.campaign.stage import check_shards, check_unchanged, made_from, merged_keys, run_stage, task_settings
from inexflow.io.tables import check_identity, check_inputs, read_parquet, read_parquet_metadata, write_parquet
from inexflow.measures.context import SCORE_COLUMNS
from inexflow.measures.session import Session, scoring_context
from inexflow.model.assessments import Assessments
from inexflow.model.collection_index import iter_document_tables
from inexflow.model.options import Options
from inexflow.model.pool import first_positions
from inexflow.model.run_checks import outside_topic_set, run_warnings, to_log
from inexflow.model.runs import read_run, resolve_extents


def recallbases(smk, aset: str) -> dict:
    """The recall-bases of assessment set ``aset`` per quantisation (RES/recallbase/ASET/QUANT),
    each checked to be the one of its quantisation, made from the current assessment tables and
    collection index."""
    tables = [*(p for p in smk.input.tables if Path(p).parent.name == aset), *smk.input.index]
    out = {}
    for p in smk.input.recallbases:
        if Path(p).parent.name == aset:
            meta = read_parquet_metadata(p)
            check_identity(p, meta, quant=Path(p).stem)
            check_inputs(p, meta, tables)
            out[Path(p).stem] = read_parquet(p)
    return out


def main(smk, log):
    name = smk.wildcards.run
    shards = list(smk.params.shards)  # the collection's index shards, named by their content keys
    check_shards(shards)
    inputs = made_from(smk, shards)  # every input, hashed once; each table records those it was made from
    parsed_from = {f: k for f, k in inputs.items() if f == smk.input.run or f in shards}
    run = read_run(smk.input.run, task=smk.params.scoring_type, participant=smk.params.participant)
    run.name = name  # runs are filed under their file name: run ids need not be unique
    # the assessed documents' index (what the families that need one score with)
    index = read_parquet(smk.input.index) if smk.input.get("index") else None
    if smk.params.collection:  # element results resolved through the index shards: no document parsed
        res = run.results
        docs = res.loc[(res["xpath"] != "") | (res["length"] < 0), "doc"].unique()
        run = resolve_extents(run, smk.params.collection, tables=iter_document_tables(shards, docs))
    log.info("run %s (participant %s, task %s, %s): %d results, %d topics", run.run_id, run.participant,
             run.scoring_type, run.format, len(run.results), run.results["topic"].nunique())
    run_key = (smk.params.content or [None])[0]  # each table records it (campaign.stage.check_run_keys)
    run.save(smk.output.run, parsed_from, run_key)
    # the first position of every document per topic: all that pooling needs from a run
    write_parquet(first_positions(run.results), smk.output.docs, {"participant": run.participant,
                                                                  "run_key": run_key})

    # the topics the run answers outside the campaign's topic set (the config's topics file), once per run
    topic_set = read_parquet(smk.input.topics[0], columns=["topic"])["topic"] if smk.input.get("topics") else None
    outside = [] if topic_set is None else outside_topic_set(run.results, topic_set, smk.params.topic_file)
    assessments: dict[str, Assessments] = {}
    tables, warnings, said = [], {}, set()
    for task, t in smk.params.tasks.items():
        a = assessments.get(t["aset"]) or assessments.setdefault(
            t["aset"], Assessments.load(Path(smk.params.aset_dirs[t["aset"]])))
        options = Options.from_dict(t["options"])
        assessed = [x for x in a.topics if options.topic_subset is None or x in options.topic_subset]
        warnings[task] = outside + run_warnings(run.results, assessed, options.max_list_length,
                                                options.all_qrels_topics)
        for w in to_log(warnings[task], run.results):  # each once per run, those about its topics once per task
            if w not in said:
                said.add(w)
                log.warning("run %s%s: %s", name, f", task {task}" if w.startswith("answers") and w not in outside
                            else "", w)
        ctx = scoring_context(a, t["type"], t["families"], options, recallbases(smk, t["aset"]), index)
        for family, scores in Session(ctx, t["families"]).score_families(run):
            log.info("task %s family %s: %d values", task, family, len(scores))
            tables.append(scores.assign(task=task))
    scores = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=SCORE_COLUMNS)
    # what the scores were made from and under which settings (the recall-bases' and the tasks' scoring)
    made = merged_keys([*smk.input.tables, *smk.input.index, *smk.input.recallbases])
    made["settings"] = made.get("settings", {}) | task_settings(dict(smk.params.tasks))
    write_parquet(scores, smk.output.scores, {"run": name, "tasks": list(smk.params.tasks), "warnings": warnings,
                                              "made_from": inputs, "run_key": run_key, **made})

    if smk.output.get("judged"):
        aset = smk.params.analysis_aset
        a = assessments.get(aset) or Assessments.load(Path(smk.params.aset_dirs[aset]))
        part = JudgedRuns.from_parts(a, {}).judge(run)
        judged_from = parsed_from | {f: k for f, k in inputs.items() if Path(f).parent.name == aset and f in smk.input.tables}
        log.info("run %s: %d results retrieve highlighted text", name, len(part))
        write_parquet(part, smk.output.judged, {"name": name, "participant": run.participant,
                                                "made_from": judged_from, "run_key": run_key})
    # the run file read is still the one the job was planned for: else the job fails and its
    # outputs are removed, never numbers of a mix
    check_unchanged(smk.input.run, run_key)


run_stage(main, snakemake)  # noqa: F821
