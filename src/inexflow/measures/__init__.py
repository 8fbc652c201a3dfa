"""The measures: every family's declaration in the pandas-free :mod:`.registry` (names,
parameters, needs, means, aggregation, result order, the scoring function to load), what a
measure name means in :mod:`.catalogue`, the :class:`~.context.ScoringContext` families score
in, the :class:`~.session.Session` that scores runs (also :func:`~.session.score_run`), and the
official tools' output format in :mod:`.output`.

A family is one function ``score(run, ctx) -> DataFrame[topic, quant, measure, value]``
returning per-topic values and the means over topics (topic ``all``); adding a family is one
:func:`~.registry.register` call. This package's ``__init__`` imports nothing: a family
module never imports it back.

Families so far:

- ``xcg``      XCG measures (Kazai & Lalmas, INEX 2005 paper, section 3): nxCG[k],
               MAnxCG[k], MAep, iMAep, Q, R, the ep/gr and nxCG curves, with overlap off
               (Thorough) or on (Focused, option ``overlap``/``alpha``) --
               :mod:`inexflow.measures.xcg`, :mod:`inexflow.measures.overlap`
- ``fetchbrowse`` FetchBrowse article- and element-level ep/gr --
               :mod:`inexflow.measures.fetchbrowse`
- ``passage``  the official INEX 2007-2010 focused passage measures iP[x], AiP, MAiP
               and the tool's bookkeeping lines (Pal, Mitra & Kamps; INEX 2009 tool) --
               :mod:`inexflow.measures.passage`; ``passage_thorough`` the same for the
               Thorough task (overlap allowed, the tool's ``-t``)
- ``ric``      Relevant in Context: per-article F_beta, gP[r], gR[r], AgP, MAgP --
               :mod:`inexflow.measures.incontext`
- ``bic``      Best in Context: (n - d)/n per article, gP[r], AgP, MAgP -- idem
- ``hixeval``  Relevant in Context 2006 on element runs: HiXEval F per article, gP[r],
               gR[r], AgP, MAgP (2006 paper section 6) -- :mod:`inexflow.measures.hixeval`
- ``bepd``     Best in Context 2006: BEPD[A] and EPRUM[A] -- :mod:`inexflow.measures.bepd`
- ``cutoff``   precision and set-based overlap at cut-offs (Hiemstra & Mihajlovic) --
               :mod:`inexflow.measures.cutoff`
- ``precall``  inex_eval 2002: precall with expected search length over tie levels --
               :mod:`inexflow.measures.precall`
- ``inex_eval_ng`` INEX 2003: overlap-aware recall_o[k] and precision_o[k] (Hiemstra &
               Mihajlovic Eq. 5-7) -- :mod:`inexflow.measures.inexevalng`
- ``trec``     document-level map, P_k, Rprec, ndcg as trec_eval (TREC qrels, or any
               assessments read at document level) -- :mod:`inexflow.measures.trec`
"""
