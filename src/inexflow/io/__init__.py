"""The readers and writers: one module per input format, each returning plain records of the
canonical tables (:mod:`.canonical`); nothing here imports the model.

- :mod:`.canonical` the canonical assessment and run tables, the records the readers return
  (:class:`~.canonical.AssessmentTables`, :class:`~.canonical.RunTable`), the ordering rule
- :mod:`.detect` the format of an input file from its first bytes; :mod:`.task_labels` task labels
- :mod:`.qrels_fol`, :mod:`.qrels_trec`, :mod:`.assessments_inex2002`, :mod:`.assessments_inex2005`
  (the 2005 and 2006 XML assessments) the assessment formats
- :mod:`.run_xml`, :mod:`.run_text` the run formats
- :mod:`.topics` INEX topic files
- :mod:`.collection` the collection index (element xpaths <-> character ranges)
- :mod:`.xpath` canonical xpaths; :mod:`.xmlutil` the safe XML parser and its helpers
- :mod:`.tables` parquet and TSV tables, written atomically, and their checksums

The model (:mod:`inexflow.model`) turns the records into :class:`~inexflow.model.assessments.Assessments`
and :class:`~inexflow.model.runs.Run`. The schemas are documented in ``docs/formats.md``.
"""
