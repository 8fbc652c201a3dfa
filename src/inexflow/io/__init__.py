"""Readers for every INEX input format, each producing one canonical table.

- :mod:`.assessments` the canonical assessment tables and :func:`read_assessments`
  (dispatching to :mod:`.assessments_inex2002`, :mod:`.assessments_inex2005`, :mod:`.qrels_fol`)
- :mod:`.runs` the canonical run table and :func:`read_run` (dispatching to
  :mod:`.run_xml` and :mod:`.run_text`)
- :mod:`.topics` INEX topic files
- :mod:`.collection` the collection index (element xpaths <-> character ranges)
- :mod:`.xpath` canonical xpaths

The schemas are documented in ``docs/formats.md``.
"""
