"""The eval's topic set: the four covered sample topics, the same topics in new words, topics the
library does not cover, and topics answered only by documents imported for the run."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EvalTopic:
    topic: str
    group: str  # covered | reworded | uncovered | imported
    library_topic: str | None  # the sample library's topic slug a cited source must belong to
    imported: list[tuple[str, str]] = field(default_factory=list)  # (filename, markdown) added first


SOURDOUGH = """---
title: How Sourdough Starters Leaven Bread
kind: web
year: 2023
---
# How Sourdough Starters Leaven Bread

A sourdough starter is a stable community of wild yeasts and lactic acid bacteria living in a paste of flour and water.
The yeasts in a sourdough starter ferment sugars from the flour and release carbon dioxide, which leavens the dough.
The lactic acid bacteria in sourdough produce lactic and acetic acids, which give sourdough bread its sour taste.
Bakers feed a sourdough starter with fresh flour and water every day to keep its yeasts and bacteria active.
A long, cool fermentation of sourdough dough develops more acidity and flavour than a short, warm one.
Sourdough bread keeps longer than yeasted bread because its acids slow the growth of mould.
"""

SOURDOUGH_BOOK = """---
title: The Sourdough Handbook: History and Science of Sourdough Bread
kind: book
year: 2019
---
# The Sourdough Handbook

Sourdough is the oldest form of leavened bread, and bakers in ancient Egypt are thought to have made sourdough bread.
Until baker's yeast was sold commercially in the nineteenth century, nearly all leavened bread was sourdough bread.
Scientists who study sourdough starters find that each starter hosts its own mix of yeasts and bacteria.
The acidity of sourdough lowers the glycemic response to bread, a benefit that studies of sourdough bread report.
Modern bakeries revived sourdough bread in the late twentieth century as interest in slow fermentation grew.
"""

TOPICS: list[EvalTopic] = [
    EvalTopic("How do mRNA vaccines work?", "covered", "mrna-vaccines"),
    EvalTopic("What was the impact of the printing press?", "covered", "printing-press"),
    EvalTopic("How did Impressionism change painting?", "covered", "impressionism"),
    EvalTopic("Rust vs Go for backend services", "covered", "rust-vs-go"),
    EvalTopic("What are the side effects and risks of mRNA vaccines?", "reworded", "mrna-vaccines"),
    EvalTopic("Why did the printing press spread so fast across Europe?", "reworded", "printing-press"),
    EvalTopic("Who were the Impressionist painters and how were they received?", "reworded", "impressionism"),
    EvalTopic("Should a backend team choose Rust or Go?", "reworded", "rust-vs-go"),
    EvalTopic("What are the health effects of intermittent fasting?", "uncovered", None),
    EvalTopic("How are bagpipes made?", "uncovered", None),
    EvalTopic("What causes volcanic eruptions?", "uncovered", None),
    EvalTopic(
        "How does sourdough bread fermentation work?",
        "imported",
        None,
        [("sourdough-web.md", SOURDOUGH), ("sourdough-book.md", SOURDOUGH_BOOK)],
    ),
]
