"""A Wikipedia-shaped simulated collection (``structure: wikipedia``), written at disk speed.

The INEX 2006-2008 ad hoc collection (Denoyer & Gallinari, The Wikipedia XML corpus, SIGIR
Forum 40(1), 2006) holds 659,388 articles in 4.6 GB: about 7 KB per article file, markup
included, and on the order of 160 elements per article (docs/configuration.md gives the
figures chosen here and why). Its articles are ``<article>`` with a ``<name>``, a
``<conversionwarning>`` and a ``<body>`` of paragraphs, nested ``<section>``\\ s with a
``<title>``, lists (``normallist``/``numberlist`` of ``item``), tables (``table``/``row``/
``cell``), templates, images with captions, and many inline elements: links to other
articles (``collectionlink``, with XLink attributes), to articles that do not exist
(``unknownlink``) and outside (``outsidelink``), and emphasis (``emph2``, ``emph3``).

Here every article draws a log-normal size factor (mean 1, long right tail), which scales
its number of sections, paragraphs and the lengths of its paragraphs; text is words drawn
(numpy, vectorised) from a fixed vocabulary. Articles are written one file each, as the
collection was distributed: ``collection/part-NNN/ID.xml``, a thousand articles per
directory. Runs and assessments name an article by its number ``ID``, as INEX's did; that
names the one file of that name in the tree (:mod:`inexflow.io.collection`).

Each directory (chunk) has its own random stream, seeded from the campaign's seed and the
chunk's number, so the bytes written do not depend on how many processes write them.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

DOCS_PER_DIR = 1000
FIRST_ID = 1000
SIZE_SIGMA = 0.9  # the log-normal size factor's sigma (mean 1): the long tail of article lengths

VOCABULARY = np.array((
    "the of and in to a is was for as on by with from that at his an which are it be were this also has "
    "its first after their new two one not or he had been they other have all city river history music "
    "language war world national state university system century film album series season team league "
    "government party election church school water species population family company station area region "
    "county district village town island mountain lake valley north south east west early later during "
    "between since under known born died released published founded built named called used including "
    "retrieval evaluation element passage structure document section paragraph query topic relevance "
    "science theory energy protein market novel painting galaxy ocean forest climate algorithm network "
    "king queen emperor army battle bridge railway road airport museum library theatre art poet writer").split())
TEMPLATES = ("infobox", "cite", "fact", "stub", "main", "coord", "reflist", "commons", "portal", "citation")
LANGS = ("de", "fr", "nl", "es", "it", "pl", "ja", "pt", "sv", "fi")


def doc_id(i: int, per_dir: int = DOCS_PER_DIR) -> str:
    """The path of article ``i`` (0-based) in the collection, without ``.xml``: ``part-NNN/ID``."""
    return f"part-{i // per_dir:03d}/{FIRST_ID + i}"


def doc_ids(n: int, per_dir: int = DOCS_PER_DIR) -> list[str]:
    return [doc_id(i, per_dir) for i in range(n)]


class _Writer:
    """One article's text, built from a pre-drawn stream of words and random numbers."""

    def __init__(self, rng, n_docs: int):
        self.rng = rng
        self.n_docs = n_docs

    def article(self, i: int) -> tuple[str, int]:
        """(the XML of article ``i``, its number of elements)."""
        rng = self.rng
        f = float(rng.lognormal(-SIZE_SIGMA ** 2 / 2, SIZE_SIGMA))
        n_words = int(900 * f) + 300
        self.words = VOCABULARY[rng.integers(0, len(VOCABULARY), n_words)].tolist()
        self.w = 0
        # inline element kinds per word slot: 0 none, 1 collectionlink, 2 emph2, 3 unknownlink, 4 emph3, 5 outsidelink
        inline = rng.choice(6, size=n_words, p=(0.75, 0.10, 0.07, 0.02, 0.05, 0.01))
        targets = (FIRST_ID + rng.integers(0, self.n_docs, n_words)).tolist()
        self.tokens = self._tokens(self.words, inline, targets)
        self.n = 0
        out = ['<?xml version="1.0" encoding="UTF-8"?>\n<article xmlns:xlink="http://www.w3.org/1999/xlink">\n'
               f'<name id="{FIRST_ID + i}">{self.text(int(rng.integers(1, 4)))}</name>\n'
               "<conversionwarning>0</conversionwarning>\n<body>\n"]
        self.n += 4
        if rng.random() < 0.45:
            out.append(self.template(infobox=True))
        for _ in range(1 + int(rng.poisson(0.8 * f))):  # the lead paragraphs
            out.append(self.paragraph(f))
        if rng.random() < 0.2:
            out.append(self.image())
        for _ in range(int(rng.poisson(2.3 * f))):
            out.append(self.section(f, 1))
        if rng.random() < 0.5:
            out.append(self.template())
        for _ in range(int(rng.poisson(1.2))):
            out.append(f'<languagelink lang="{LANGS[int(rng.integers(0, len(LANGS)))]}">{self.text(2)}</languagelink>\n')
            self.n += 1
        out.append("</body>\n</article>\n")
        return "".join(out), self.n

    def text(self, k: int) -> str:
        w = self.w
        self.w = w + k
        return " ".join(self.words[w:w + k]) if w + k <= len(self.words) else " ".join(
            self.words[(w + j) % len(self.words)] for j in range(k))

    def rich(self, k: int) -> str:
        """``k`` words of text with inline elements (links and emphasis): the next ``k``
        tokens of the article's stream (:meth:`_tokens`)."""
        w = self.w
        self.w = w + k
        toks = self.tokens
        if w + k <= len(toks):
            part = toks[w:w + k]
        else:
            part = [toks[(w + j) % len(toks)] for j in range(k)]
        self.n += sum(1 for t in part if t[0] == "<")
        return " ".join(part)

    def _tokens(self, words, inline, targets) -> list[str]:
        """The article's stream of tokens: each word, or an inline element around it (and
        the next word, for odd slots)."""
        toks = list(words)
        m = len(words)
        nz = np.flatnonzero(inline)
        for x, kind in zip(nz.tolist(), inline[nz].tolist()):
            word = words[x]
            anchor = word if not x & 1 else f"{word} {words[(x + 1) % m]}"
            if kind == 1:
                toks[x] = f'<collectionlink xlink:type="simple" xlink:href="{targets[x]}.xml">{anchor}</collectionlink>'
            elif kind == 2:
                toks[x] = f"<emph2>{anchor}</emph2>"
            elif kind == 3:
                toks[x] = f'<unknownlink src="{anchor}">{anchor}</unknownlink>'
            elif kind == 4:
                toks[x] = f"<emph3>{anchor}</emph3>"
            else:
                toks[x] = f'<outsidelink xlink:type="simple" xlink:href="http://www.{word}.org/">{anchor}</outsidelink>'
        return toks

    def paragraph(self, f: float) -> str:
        self.n += 1
        k = 6 + int(self.rng.gamma(1.5, 12))
        return f"<p>{self.rich(k)}</p>\n"

    def section(self, f: float, depth: int) -> str:
        rng = self.rng
        self.n += 2
        out = [f"<section>\n<title>{self.text(int(rng.integers(1, 4)))}</title>\n"]
        for _ in range(1 + int(rng.poisson(1.2))):
            out.append(self.paragraph(f))
        u = rng.random()
        if u < 0.35:
            out.append(self.listing())
        elif u < 0.6:
            out.append(self.table())
        if depth < 4:
            for _ in range(int(rng.poisson(0.5 / depth))):
                out.append(self.section(f, depth + 1))
        out.append("</section>\n")
        return "".join(out)

    def listing(self) -> str:
        rng = self.rng
        items = 2 + int(rng.poisson(6))
        self.n += 1 + items
        tag = "normallist" if rng.random() < 0.75 else "numberlist"
        body = "".join(f"<item>{self.rich(2 + int(rng.integers(0, 9)))}</item>\n" for _ in range(items))
        return f"<{tag}>\n{body}</{tag}>\n"

    def table(self) -> str:
        rng = self.rng
        rows, cols = 2 + int(rng.poisson(4)), 2 + int(rng.integers(0, 3))
        self.n += 1 + rows * (1 + cols)
        body = "".join("<row>" + "".join(f"<cell>{self.rich(1 + int(rng.integers(0, 4)))}</cell>" for _ in range(cols))
                       + "</row>\n" for _ in range(rows))
        return f"<table>\n{body}</table>\n"

    def template(self, infobox: bool = False) -> str:
        rng = self.rng
        name = "infobox" if infobox else TEMPLATES[int(rng.integers(1, len(TEMPLATES)))]
        params = 1 + int(rng.poisson(6 if infobox else 1))
        self.n += 1 + params
        body = "".join(f'<wikiparameter number="{j}">{self.rich(1 + int(rng.integers(0, 4)))}</wikiparameter>'
                       for j in range(params))
        return f'<template name="{name}">{body}</template>\n'

    def image(self) -> str:
        self.n += 2
        return f'<image xlink:type="simple" xlink:href="../pictures/{self.text(1)}.jpg"><caption>' \
               f"{self.rich(6)}</caption></image>\n"


def write_chunk(collection, seed: int, chunk: int, n_docs: int, per_dir: int = DOCS_PER_DIR) -> tuple[int, int, int]:
    """Write the articles of directory ``chunk`` (``per_dir`` of them, fewer in the last)
    of a collection of ``n_docs``; returns (documents, bytes, elements)."""
    rng = np.random.default_rng([seed, 32, chunk])
    writer = _Writer(rng, n_docs)
    lo, hi = chunk * per_dir, min(n_docs, (chunk + 1) * per_dir)
    d = Path(collection) / f"part-{chunk:03d}"
    d.mkdir(parents=True, exist_ok=True)
    size = elements = 0
    for i in range(lo, hi):
        text, n = writer.article(i)
        data = text.encode("utf-8")
        with open(d / f"{FIRST_ID + i}.xml", "wb") as fh:
            fh.write(data)
        size += len(data)
        elements += n
    return hi - lo, size, elements


def _write_chunk(args):
    return write_chunk(*args)


def write_collection(collection, n_docs: int, seed: int, processes: int | None = None, progress=None,
                     per_dir: int = DOCS_PER_DIR) -> dict:
    """Write the ``n_docs`` articles under ``collection`` with ``processes`` processes (default
    one: on a 2-core machine shared with other work, two processes wrote half as fast as one),
    ``per_dir`` to a directory; ``progress(done, total)``
    after each directory. The bytes written depend on ``seed``, ``n_docs`` and ``per_dir`` only."""
    chunks = (n_docs + per_dir - 1) // per_dir
    processes = max(1, min(processes or 1, chunks))
    jobs = [(str(collection), seed, c, n_docs, per_dir) for c in range(chunks)]
    done = size = elements = 0

    def count(r):
        nonlocal done, size, elements
        done += r[0]
        size += r[1]
        elements += r[2]
        if progress is not None:
            progress(done, n_docs)
    if processes == 1:
        for job in jobs:
            count(write_chunk(*job))
    else:
        with ProcessPoolExecutor(processes) as ex:
            for r in ex.map(_write_chunk, jobs):
                count(r)
    return {"documents": done, "bytes": size, "elements": elements}
