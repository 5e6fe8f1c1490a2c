"""The offline brain: topic classes -> allocation, type-specific query templates, coverage
judging and the extractive report. Deterministic, no key, no network."""

from __future__ import annotations

import re

import pytest

from research.brains.base import JudgeRequest, WriteRequest, number_sources
from research.brains.offline.offline_brain import OfflineBrain
from research.schemas.state_shapes import ResearcherTask, Source
from research.topic.offline_plan import ALLOCATION_GUIDANCE, classify_topic

TOPICS = [
    # technology, tools and products: 2,1,0
    ("Rust vs Go for backend services", "210"),
    ("How does Kubernetes schedule containers?", "210"),
    ("Comparing PostgreSQL and MongoDB for a startup", "210"),
    # scientific and medical: 1,2,0
    ("How do mRNA vaccines work?", "120"),
    ("Does intermittent fasting improve health?", "120"),
    ("CRISPR gene therapy for sickle cell disease", "120"),
    # humanities and arts: 0,2,1
    ("Impressionism and its influence on painting", "021"),
    ("Themes of Romanticism in English poetry", "021"),
    ("The philosophy of Kant's aesthetics", "021"),
    # historical and theoretical: 1,1,1
    ("The impact of the printing press on the Reformation", "111"),
    ("Causes of the fall of the Roman Empire", "111"),
    ("The origins of the Cold War", "111"),
    # breaking news: 3,0,0 (recency wins over the subject's field)
    ("Latest news on the Mars mission announced today", "300"),
    ("Breaking: major cloud outage this week", "300"),
    # unclear: 1,1,1
    ("What is hygge?", "111"),
    ("Quokkas", "111"),
]


@pytest.mark.parametrize(("topic", "expected"), TOPICS)
def test_plan_allocates_by_topic_class(topic: str, expected: str) -> None:
    plan = OfflineBrain().plan(topic, max_researchers=3, wants_allocation=True)
    assert plan.allocation is not None and plan.allocation.notation == expected
    assert plan.allocation_reasoning.startswith("Guidance: ")
    assert f"({expected[0]},{expected[1]},{expected[2]})" in plan.allocation_reasoning


def test_the_table_covers_every_class() -> None:
    assert len(TOPICS) >= 12
    assert {classify_topic(t)[0] for t, _ in TOPICS} == set(ALLOCATION_GUIDANCE)


def test_plan_reasoning_names_the_class_and_its_cues() -> None:
    plan = OfflineBrain().plan("CRISPR gene therapy for sickle cell disease", max_researchers=3, wants_allocation=True)
    assert "scientific" in plan.reasoning and "crispr" in plan.reasoning.lower()


def test_plan_without_allocation_when_the_user_gave_one() -> None:
    plan = OfflineBrain().plan("How do mRNA vaccines work?", max_researchers=3, wants_allocation=False)
    assert plan.allocation is None
    assert plan.research_questions  # still plans the questions


def test_plan_questions_are_about_the_subject() -> None:
    plan = OfflineBrain().plan("How do mRNA vaccines work?", max_researchers=3, wants_allocation=True)
    assert 2 <= len(plan.research_questions) <= 5
    assert all("mRNA vaccines" in q and q.endswith("?") for q in plan.research_questions)
    assert len(set(plan.research_questions)) == len(plan.research_questions)


def test_plan_is_deterministic() -> None:
    a = OfflineBrain().plan("Rust vs Go for backend services", max_researchers=3, wants_allocation=True)
    b = OfflineBrain().plan("Rust vs Go for backend services", max_researchers=3, wants_allocation=True)
    assert a == b


# --- queries ---------------------------------------------------------------------------------

QUESTION = "What is the mechanism behind mRNA vaccines?"


def task(kind: str, angle: str = "angle 1: first", **extra) -> ResearcherTask:
    return ResearcherTask(
        researcher_id=f"{kind}-1",
        kind=kind,
        question=QUESTION,
        topic="How do mRNA vaccines work?",
        angle=angle,
        **extra,
    )


@pytest.mark.parametrize("kind", ["web", "academic", "book"])
def test_two_or_three_queries_on_the_subject(kind: str) -> None:
    for angle in ("angle 1: a", "angle 2: b", "angle 3: c"):
        queries = OfflineBrain().queries(task(kind, angle), kind)
        assert 2 <= len(queries) <= 3
        assert len(set(queries)) == len(queries)
        assert all("mRNA vaccines" in q and "mechanism" in q for q in queries)


def test_web_queries_look_for_official_news_blogs_and_forums_not_papers() -> None:
    queries = " | ".join(OfflineBrain().queries(task("web"), "web")).lower()
    for cue in ("official", "news", "blog", "forum"):
        assert cue in queries
    for paper_cue in ("systematic review", "meta-analysis", "journal", "paper"):
        assert paper_cue not in queries


def test_academic_queries_add_methodology_terms() -> None:
    queries = OfflineBrain().queries(task("academic"), "academic")
    joined = " | ".join(queries).lower()
    assert "systematic review" in joined and "meta-analysis" in joined
    assert "official" not in joined and "blog" not in joined


def test_book_queries_use_book_forms() -> None:
    queries = OfflineBrain().queries(task("book"), "book")
    assert [q.split(" mRNA")[0] for q in queries] == ["introduction to", "handbook of", "companion to"]


def test_follow_up_researchers_run_the_analysts_recommended_queries() -> None:
    focus = ["mRNA vaccines lipid nanoparticle delivery", "mRNA vaccines cold chain storage"]
    assert OfflineBrain().queries(task("web", focus_queries=focus), "web") == focus


# --- judging coverage ---------------------------------------------------------------------------

TOPIC = "How do heat pumps work?"
Q = "How efficient are heat pumps in cold climates?"
ON_TOPIC = "Heat pumps remain efficient in cold climates: modern units keep a high coefficient of performance."


def web(url: str, title: str = "Heat pumps in winter", snippet: str = ON_TOPIC) -> Source:
    return Source(title=title, url=url, kind="web", provider="test", snippet=snippet)


def judge(sources: list[Source], texts: dict[str, str] | None = None):
    texts = texts or {}
    return OfflineBrain().judge(JudgeRequest(TOPIC, [Q], sources, [], 1, lambda sid: texts.get(sid, "")))


def test_a_question_needs_two_sources_from_two_origins() -> None:
    covered = judge([web("https://a.example.org/1"), web("https://b.example.org/2")])
    assert covered.status == "APPROVED"
    assert covered.coverage[0].covered and covered.coverage[0].source_count == 2
    assert covered.missing_topics == []

    one_origin = judge([web("https://a.example.org/1"), web("https://www.a.example.org/2")])
    assert one_origin.status == "NEEDS_IMPROVEMENT"
    assert one_origin.missing_topics == [Q]
    assert not one_origin.coverage[0].covered
    assert one_origin.recommended_queries and all("heat pumps" in q for q in one_origin.recommended_queries)
    assert any("Thin" in point for point in one_origin.critique)

    assert judge([web("https://a.example.org/1")]).status == "NEEDS_IMPROVEMENT"


def test_off_topic_sources_do_not_count() -> None:
    bread = web(
        "https://b.example.org/bread",
        title="Sourdough baking",
        snippet="Sourdough bread needs a lively starter and a long proof.",
    )
    verdict = judge([web("https://a.example.org/1"), bread])
    assert verdict.status == "NEEDS_IMPROVEMENT"
    assert verdict.coverage[0].source_count == 1


def test_full_text_from_the_store_counts_not_just_the_snippet() -> None:
    thin = [web("https://a.example.org/1", snippet="A page."), web("https://b.example.org/2", snippet="Another page.")]
    assert judge(thin).status == "NEEDS_IMPROVEMENT"
    texts = {s.id: ON_TOPIC for s in thin}
    assert judge(thin, texts).status == "APPROVED"


def test_library_documents_each_count_as_their_own_origin() -> None:
    docs = [
        Source(
            title="Heat pumps in cold climates",
            url=f"library://sample/heat-pumps-{i}",
            kind="academic",
            provider="library",
            snippet=ON_TOPIC,
        )
        for i in (1, 2)
    ]
    assert judge(docs).status == "APPROVED"


def test_no_sources_is_named_in_the_critique() -> None:
    verdict = judge([])
    assert verdict.status == "NEEDS_IMPROVEMENT"
    assert any("No sources" in point for point in verdict.critique)


# --- writing --------------------------------------------------------------------------------


def test_the_report_quotes_the_sources_by_question_and_cites_each_sentence() -> None:
    texts = {
        "s-a": (
            "Heat pumps move heat with a refrigerant cycle that carries it from the outside air into the house. "
            "Because heat pumps move heat rather than making it, they deliver more energy than they consume. "
            "The compressor in heat pumps raises the refrigerant's temperature so the heat can be released indoors."
        ),
        "s-b": (
            "Field trials of heat pumps in cold climates found they stay efficient well below freezing. "
            "In the coldest climates heat pumps kept a seasonal coefficient of performance near 2.5 in those trials. "
            "Cold climate models of heat pumps use variable-speed compressors to stay efficient at low temperatures."
        ),
    }
    numbered = number_sources(
        [
            Source(id="s-a", title="How heat pumps work", url="https://a.example.org", kind="web", provider="t"),
            Source(
                id="s-b",
                title="Heat pumps in cold climates",
                url="https://b.example.org",
                kind="academic",
                provider="t",
            ),
        ]
    )
    questions = ["How do heat pumps move heat?", Q]
    body = OfflineBrain().write(
        WriteRequest(TOPIC, questions, numbered, lambda sid: texts.get(sid, ""), ["Installation cost"])
    )
    lines = body.splitlines()
    assert lines[0] == "# How do heat pumps work?"
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [
        "## Summary",
        "## How do heat pumps move heat",
        "## How efficient are heat pumps in cold climates",
        "## Known gaps",
    ]
    assert "- Installation cost" in lines

    # Extractive: every cited sentence is a sentence of the source its marker points at.
    cited = re.findall(r"([^.!?\n]+?) \[(\d+)\]([.!?])", body)
    assert len(cited) >= 4
    for sentence, n, end in cited:
        source_id = numbered[int(n) - 1].source.id
        assert sentence.strip() + end in texts[source_id], (sentence, n)
    # Each question's section quotes the source that answers it.
    sections = body.split("## ")
    move = next(s for s in sections if s.startswith("How do heat pumps move heat"))
    cold = next(s for s in sections if s.startswith("How efficient are heat pumps"))
    assert "[1]" in move and "[2]" in cold


@pytest.mark.parametrize("kind", ["web", "academic", "book"])
def test_same_kind_researchers_on_one_question_never_send_the_same_query(kind: str) -> None:
    brain = OfflineBrain()
    seen: set[str] = set()
    for angle in ("angle 1: a", "angle 2: b", "angle 3: c"):
        queries = brain.queries(task(kind, angle=angle), kind)
        assert 2 <= len(queries) <= 3
        assert not seen & set(queries), f"{angle} repeats another researcher's query"
        seen |= set(queries)


@pytest.mark.parametrize(
    "topic, expected",
    [
        ("What was Impressionism reacting against?", "humanities"),  # "reacting" is not React
        ("Artificial sweeteners and health", "scientific"),  # "artificial" is not art
        ("Software supply chain attacks", "technology"),  # "software" is not war
        ("General relativity explained simply", "unclear"),  # "general" is not a gene
    ],
)
def test_cues_match_whole_words_not_fragments(topic: str, expected: str) -> None:
    from research.topic.offline_plan import classify_topic

    assert classify_topic(topic)[0] == expected


def test_the_subject_drops_the_question_and_its_verb() -> None:
    from research.topic.subject import subject_of

    assert subject_of("What was Impressionism reacting against?") == "Impressionism"
    assert subject_of("What was the impact of the printing press?") == "the printing press"
    assert subject_of("Rust vs Go for backend services") == "Rust and Go for backend services"


def test_each_section_quotes_sentences_that_answer_its_question(runner) -> None:
    """On the shipped sample library: the extractive writer picks by the question's own terms (and
    their usual phrasings), weighted by how much the whole source is about them."""
    from research.schemas.state_shapes import ResearchRequest

    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120"))
    draft = runner.store.latest_draft(run_id).markdown
    sections = {block.split("\n", 1)[0]: block for block in draft.split("\n## ")[1:]}
    mechanism = next(text for title, text in sections.items() if "mechanism" in title)
    history = next(text for title, text in sections.items() if "develop" in title)
    assert "lipid" in mechanism.lower() or "translated" in mechanism.lower()
    assert "Karikó" in history or "Nobel" in history
    summary = sections["Summary"]
    assert "mRNA" in summary and summary.count("[") >= 2
