"""A scripted stand-in for a chat model that answers the LLM brain's prompts sensibly.

It recognises the requested schema (json_schema name, tool name, or the "JSON schema named X"
line of the plain-JSON fallback) and, for free-text calls, the prompt's `Role:` line. Answers are
built from what the prompt contains (topic, questions, numbered sources), so a whole graph run
against the fake server produces a plan, type-specific queries, a revision round and a draft
whose citations all resolve.
"""

from __future__ import annotations

import re
from typing import Any

_NAMED_SCHEMA = re.compile(r"JSON schema named (\w+)")
_TOPIC = re.compile(r"<topic>\s*(.*?)\s*</topic>", re.DOTALL)
_ROLE = re.compile(r"^Role: ([^\n]+)", re.MULTILINE)
_NUMBERED_SOURCE = re.compile(r'<source n="(\d+)" kind="(\w+)" title="([^"]*)"')
_PASSAGE = re.compile(r'<source n="(\d+)" kind="passage"[^>\n]*>\n([^\n]*)')
_SOURCE_ID = re.compile(r'<source id="([^"]+)" kind="(\w+)" title="([^"]*)"')


_QUESTION_LEAD = re.compile(r"^(how|what|why|when|who|which)\s+(do|does|did|is|are|was|were)?\s*", re.IGNORECASE)
_QUESTION_TAIL = re.compile(r"\s+(work|works|matter|happen|happened)\s*$", re.IGNORECASE)


def subject_of(topic: str) -> str:
    """'How do mRNA vaccines work?' -> 'mRNA vaccines' (good enough for scripted questions)."""
    subject = _QUESTION_TAIL.sub("", _QUESTION_LEAD.sub("", topic.strip().rstrip("?")))
    return subject or topic


def requested_schema_name(request: dict[str, Any]) -> str | None:
    """Which output schema the client asked for, by whichever mechanism it used."""
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("name")
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and (choice.get("function") or {}).get("name"):
        return choice["function"]["name"]
    tools = request.get("tools") or []
    if tools:
        return (tools[0].get("function") or {}).get("name")
    match = _NAMED_SCHEMA.search(last_user_text(request))
    return match.group(1) if match else None


def message_texts(request: dict[str, Any], role: str | None = None) -> list[str]:
    out: list[str] = []
    for message in request.get("messages") or []:
        if role and message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        out.append(content or "")
    return out


def last_user_text(request: dict[str, Any]) -> str:
    texts = message_texts(request, "user")
    return texts[-1] if texts else ""


class ScriptedModel:
    """Default responder: plan 1/1/1, 2 queries per kind, NEEDS_IMPROVEMENT on review rounds
    before `approve_from_round` (the analyst numbers reviews from 1, so the default 2 gives one
    revision round), then APPROVED; notes and a cited draft as plain text."""

    def __init__(self, *, approve_from_round: int = 2, allocation: tuple[int, int, int] = (1, 1, 1)) -> None:
        self.approve_from_round = approve_from_round
        self.allocation = allocation

    def __call__(self, request: dict[str, Any]) -> Any:
        schema = requested_schema_name(request)
        system = "\n".join(message_texts(request, "system"))
        user = "\n".join(message_texts(request, "user"))
        topic_match = _TOPIC.search(user)
        topic = topic_match.group(1).strip() if topic_match else "the topic"
        if schema == "SupervisorDecision":
            return self.plan(topic)
        if schema == "QueryPlan":
            return self.queries(system, user, topic)
        if schema == "AnalystVerdict":
            return self.verdict(system, user)
        if schema == "SectionSentences":
            return self.section(user)
        if schema == "RelevanceJudgements":  # a cooperative relevance judge: every source is on the subject
            count = len(re.findall(r'<source n="\d+"', user))
            return {
                "verdicts": [{"source": i, "reason": "on the subject", "relevant": True} for i in range(1, count + 1)]
            }
        if schema == "ClaimJudgements":  # a cooperative judge: every passage supports its claim
            count = len(re.findall(r'<source n="\d+"', user))
            return {"judgements": [{"index": i, "verdict": "supported"} for i in range(1, count + 1)]}
        if schema == "Condensation":  # an editor that leaves nothing out: the copy stays
            return {"text": user.split("Sentence to shorten:\n")[-1].split("\n")[0]}
        if schema:
            return {}
        role_match = _ROLE.search(system)
        role = role_match.group(1) if role_match else ""
        if "writer" in role:
            return self.draft(system, user, topic)
        if "taking notes" in role:
            return self.notes(user)
        return "OK"

    def plan(self, topic: str) -> dict[str, Any]:
        web, academic, book = self.allocation
        topic = subject_of(topic)
        return {
            "action": "conduct_research",
            "reasoning": f"Split '{topic}' into what it is, the evidence, and its limits.",
            "research_questions": [
                f"What is {topic} and how does it work?",
                f"What does the evidence say about {topic}?",
                f"What are the open problems and limitations of {topic}?",
            ],
            "web_researchers": web,
            "academic_researchers": academic,
            "book_researchers": book,
            "allocation_reasoning": "Unclear class: a balanced team (1,1,1).",
        }

    def queries(self, system: str, user: str, topic: str) -> dict[str, Any]:
        kind_match = re.search(r"Role: (web|academic|book) researcher", system)
        kind = kind_match.group(1) if kind_match else "web"
        question_match = re.search(r"Research question: (.+)", user)
        question = question_match.group(1).strip().rstrip("?") if question_match else topic
        gaps = re.findall(r"^- (.+)$", user, flags=re.MULTILINE)
        if gaps:
            return {"queries": gaps[:3]}
        topic = subject_of(topic)
        if kind == "academic":
            queries = [f"{topic} systematic review", f"{question} meta-analysis"]
        elif kind == "book":
            queries = [f"introduction to {topic}", f"handbook of {topic}"]
        else:
            queries = [f"{topic} official documentation", f"{question} expert blog"]
        return {"queries": queries}

    def verdict(self, system: str, user: str) -> dict[str, Any]:
        round_match = re.search(r"review round (\d+)", system)
        review_round = int(round_match.group(1)) if round_match else 0
        questions = re.findall(r"^\d+\. (.+)$", user.split("Researcher notes:")[0], flags=re.MULTILINE)
        sources = len(re.findall(r"<source ", user))
        approved = review_round >= self.approve_from_round and sources > 0
        coverage = [
            {"question": q, "covered": approved or i > 0, "source_count": sources, "note": "scripted"}
            for i, q in enumerate(questions)
        ]
        if approved:
            return {
                "status": "APPROVED",
                "critique": ["Every question has support."],
                "missing_topics": [],
                "recommended_queries": [],
                "coverage": coverage,
            }
        gap = questions[0] if questions else "the main question"
        return {
            "status": "NEEDS_IMPROVEMENT",
            "critique": [f"Thin evidence on: {gap}"],
            "missing_topics": [gap],
            "recommended_queries": [gap.rstrip("?") + " evidence"],
            "coverage": coverage,
        }

    def section(self, user: str) -> dict[str, Any]:
        """The grounded writer's section: one sentence from each of the first two passages, mostly in
        the passage's own words (a cooperative writer: every sentence rests on its passage)."""
        passages = _PASSAGE.findall(user)
        if not passages:
            return {"sentences": [{"passage": 0, "text": "The passages do not answer this question."}]}
        sentences = []
        summary = "Summarise what the passages say" in user  # its words from the passage's end: no repeats
        for n, text in passages[:2]:
            words = text.split()[-12:] if summary else text.split()[:12]
            # "addresses this question": how tests tell the fake model's draft from the offline one.
            sentences.append({"passage": int(n), "text": " ".join(words).rstrip(".,;:") + " addresses this question."})
        return {"sentences": sentences}

    def notes(self, user: str) -> str:
        sources = _SOURCE_ID.findall(user)
        if not sources:
            return "- The sources do not answer the question."
        return "\n".join(f"- {title} addresses the question [{sid}]" for sid, _kind, title in sources[:5])

    def draft(self, system: str, user: str, topic: str) -> str:
        sources = _NUMBERED_SOURCE.findall(user)
        questions = re.findall(r"^\d+\. (.+)$", user.split("<<<SOURCES>>>")[0], flags=re.MULTILINE)
        gaps = (
            re.findall(r"^- (.+)$", system.split("Known gaps", 1)[1], flags=re.MULTILINE)
            if "Known gaps" in system
            else []
        )
        cite = [f"[{n}]" for n, _kind, _title in sources]
        lines = [f"# {topic}", "", "## Summary", ""]
        lines.append(f"This report draws on {len(sources)} sources {''.join(cite[:2])}.".replace(" .", "."))
        for i, question in enumerate(questions):
            lines += ["", f"## {question}", ""]
            if sources:
                n, kind, title = sources[i % len(sources)]
                lines.append(f"{title} ({kind}) addresses this question [{n}].")
            else:
                lines.append("The sources do not answer this question.")
        if gaps:
            lines += ["", "## Known gaps", ""] + [f"- {gap}" for gap in gaps]
        return "\n".join(lines) + "\n"
