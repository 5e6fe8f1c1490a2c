"""The scripted-fake setting's model for everyone: the desk's own script (tests/fakes/scripted_model)
for the desk's prompts, and for a peer's prompts a cooperative script of the same make.

A peer gets what its parsers need: an object built from the JSON schema it asked for (by
response_format or a forced tool), its research tool called on the topic (two queries, as the
desk's script writes two) and then its "done" tool, and for free text that carries sources a
report whose sentences are written like the desk's scripted writer's (a passage's first twelve
words, "addresses this question", the source's number), with a numbered source list. Requests it
does not recognise get "OK", so a peer that depends on something else shows it in the figures.
"""

from __future__ import annotations

import json
import re
from typing import Any

from research.text import split_sentences
from tests.fakes.openai_server import ChatReply
from tests.fakes.scripted_model import ScriptedModel, message_texts, requested_schema_name

DESK_SCHEMAS = frozenset({"SupervisorDecision", "QueryPlan", "AnalystVerdict", "SectionSentences", "ClaimJudgements"})
_URL = re.compile(r"https?://[^\s()<>\[\]\"'`]{1,500}")
_WORDS = 12
_MAX_SOURCES = 8
_PROMPT_CHARS = 200_000
_MARKUP = re.compile(r"</?[a-z_]{1,30}>|\b(?:URL|SUMMARY|Source|Content|Title):\s?|-{3,}|={3,}")
_QUERY_LIST = re.compile(r"respond with a list of strings", re.IGNORECASE)
_AGENT_CHOICE = re.compile(r"agent_role_prompt", re.IGNORECASE)


def _schema_of(request: dict[str, Any]) -> dict[str, Any] | None:
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema") or {}
    if response_format.get("type") == "json_object":
        return response_format.get("schema") or {}
    return None


class PeerScriptedModel(ScriptedModel):
    """`PeerScriptedModel()`; set `.topic` before each run (a script knows what it was asked)."""

    topic = "the topic"

    def __call__(self, request: dict[str, Any]) -> Any:
        name = requested_schema_name(request)
        if name in DESK_SCHEMAS or _desk_prompt(request):
            return super().__call__(request)
        text = "\n".join(message_texts(request))[:_PROMPT_CHARS]
        schema = _schema_of(request)
        tools = request.get("tools") or []
        if schema is not None:
            return self.fill(schema, text)
        if tools and isinstance(request.get("tool_choice"), dict):
            forced = next(t for t in tools if (t.get("function") or {}).get("name") == name)
            return self.fill((forced.get("function") or {}).get("parameters") or {}, text)
        if tools:
            return self.act(request, tools)
        return self.write(text)

    # --- structured replies -------------------------------------------------------------------

    def fill(self, schema: dict[str, Any], context: str, field: str = "") -> Any:
        """A value of `schema`: strings from the topic or the page being summarised, no clarifying."""
        kind = schema.get("type")
        if "anyOf" in schema:
            return self.fill(next(s for s in schema["anyOf"] if s.get("type") != "null"), context, field)
        if kind == "object" or "properties" in schema:
            return {k: self.fill(v, context, k) for k, v in (schema.get("properties") or {}).items()}
        if kind == "array":
            return [self.fill(schema.get("items") or {"type": "string"}, context, field)]
        if kind == "boolean":
            return False  # need_clarification and the like: go on with the research
        if kind in ("integer", "number"):
            return 1
        if "enum" in schema:
            return schema["enum"][0]
        page = _between(context, "<webpage_content>", "</webpage_content>")
        if page and field in ("summary", "key_excerpts"):
            return " ".join(page.split()[: 3 * _WORDS if field == "summary" else _WORDS])
        return self.topic

    def act(self, request: dict[str, Any], tools: list[dict[str, Any]]) -> ChatReply | str:
        """One research step: delegate or search once, then say it is done."""
        names = [(t.get("function") or {}).get("name", "") for t in tools]
        done = next((n for n in names if "complete" in n.lower() or "done" in n.lower()), None)
        searched = any(m.get("role") == "tool" for m in request.get("messages") or [])
        if searched:
            return ChatReply(tool_calls=[(done, {})]) if done else self.write("\n".join(message_texts(request)))
        if "ConductResearch" in names:
            return ChatReply(tool_calls=[("ConductResearch", {"research_topic": self.topic})])
        search = next((t for t in tools if _is_search((t.get("function") or {}).get("name", ""))), None)
        if search is None:
            return ChatReply(tool_calls=[(done, {})]) if done else "OK"
        function = search.get("function") or {}
        properties = (function.get("parameters") or {}).get("properties") or {}
        queries = [self.topic, f"{self.topic} evidence"]
        arguments: dict[str, Any] = {"queries": queries} if "queries" in properties else {"query": queries[0]}
        return ChatReply(tool_calls=[(function["name"], arguments)])

    # --- free text ------------------------------------------------------------------------------

    def write(self, prompt: str) -> str:
        """Sub-queries or an agent choice when asked for them; else a cited report of the sources."""
        if _AGENT_CHOICE.search(prompt) and "{" in prompt:
            return json.dumps({"server": "Research Agent", "agent_role_prompt": "You are a research assistant."})
        sources = _sources(prompt)
        if not sources and _QUERY_LIST.search(prompt):
            return json.dumps([self.topic, f"{self.topic} evidence"])
        if not sources:
            return "OK"
        lines = [f"# {self.topic}", ""]
        for n, (_url, passage) in enumerate(sources, 1):
            first = next((t for t in split_sentences(passage) if len(t.split()) >= 5), passage)
            words = " ".join(first.split()[:_WORDS]).rstrip(".,;:")
            lines.append(f"{words} addresses this question [{n}].")
        lines += ["", "### Sources", ""]
        # Each entry keeps the start of its passage, so a report written from these notes can cite it too.
        lines += [f"[{n}] {url} - {' '.join(p.split()[:30])}" for n, (url, p) in enumerate(sources, 1)]
        return "\n".join(lines) + "\n"


def _is_search(name: str) -> bool:
    lowered = name.lower()
    return "search" in lowered.replace("research", "") and "complete" not in lowered


def _desk_prompt(request: dict[str, Any]) -> bool:
    """The desk's free-text calls (notes, the plain writer) say who they are in a Role: line."""
    return any(t.startswith("Role: ") or "\nRole: " in t for t in message_texts(request, "system"))


def _between(text: str, start: str, end: str) -> str:
    head, _, rest = text.partition(start)
    return rest.partition(end)[0].strip() if rest else ""


def _sources(prompt: str) -> list[tuple[str, str]]:
    """(url, the text that follows it) for each distinct URL in the prompt, in order."""
    found: dict[str, str] = {}
    matches = list(_URL.finditer(prompt))
    for i, match in enumerate(matches):
        url = match.group(0).rstrip(".,;:")
        end = matches[i + 1].start() if i + 1 < len(matches) else min(len(prompt), match.end() + 2000)
        passage = " ".join(_MARKUP.sub(" ", prompt[match.end() : end]).split())
        if url not in found and len(passage.split()) >= _WORDS:
            found[url] = passage
        if len(found) >= _MAX_SOURCES:
            break
    return list(found.items())
