"""Questions and answers made from documentation structure, so the demo LM learns a chat turn.

A documented subject (a section title, a function or class, a glossary term) becomes a user
question about it, and its first paragraphs the assistant's answer. Nothing is written by
hand: the answers are the documentation's own sentences, the questions a few fixed forms
chosen by a hash of the subject (so the corpus is the same on every run).
"""

from __future__ import annotations

import re
import zlib

from rst_text import Paragraph

QUESTIONS = {
    "section": ["Tell me about {s}.", "What is {s} about?", "Can you explain {s}?"],
    "module": ["What is the {s} module for?", "What does the {s} module do?", "Tell me about the {s} module."],
    "callable": ["What does {s}() do?", "How does {s}() work?", "Explain {s}()."],
    "class": ["What is the {s} class?", "What is {s}?", "Tell me about the {s} class."],
    "exception": ["When is {s} raised?", "What is the {s} exception?"],
    "term": ["What is {s}?", "What does {s} mean?", "Define {s}."],
    "name": ["What is {s}?", "What does {s} mean?"],
}
CALLABLES = {
    "function", "method", "classmethod", "staticmethod", "abstractmethod", "coroutinefunction",
    "coroutinemethod", "awaitablefunction", "awaitablemethod", "decorator", "decoratormethod",
    "c:function", "c:macro",
}  # fmt: skip
GENERIC_TITLES = {
    "introduction", "overview", "tutorial", "example", "examples", "notes", "usage", "summary",
    "reference", "background", "basics", "details", "motivation", "installation", "api",
    "functions", "classes", "constants", "exceptions", "module contents", "footnotes", "see also",
    "description", "parameters", "synopsis", "compatibility", "outputs", "diagnostics", "environment",
    "options", "files", "arguments", "return value", "caveats", "bugs", "author", "note", "important",
    "warning", "tip", "caution", "hint", "attention", "danger",
}  # fmt: skip
MAX_ANSWER = 700  # characters: a question and its answer fit the 256-token context
MIN_ANSWER = 40


def question_kind(kind: str, subject: str) -> tuple[str, str]:
    if kind == "section":
        module = re.match(r"^([\w.]+)\s+\u2014\s+\S", subject)
        if module:
            return "module", module.group(1)
        return "section", re.sub(r"^(The|A|An) ", lambda m: m.group(1).lower() + " ", subject)
    if kind in CALLABLES:
        return "callable", subject
    if kind == "class":
        return "class", subject
    if kind == "exception":
        return "exception", subject
    if kind == "term":
        return "term", subject
    return "name", subject


def usable(p: Paragraph) -> bool:
    return (
        len(p.text) >= MIN_ANSWER
        and not p.text.startswith(("Source code:", "New in version", "Changed in version", "Deprecated since"))
        and p.kind != "heading"
    )


def clip(text: str) -> str:
    if len(text) <= MAX_ANSWER:
        return text
    cut = text[:MAX_ANSWER]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return cut[: end + 1] if end > MIN_ANSWER else cut.rsplit(" ", 1)[0] + " ..."


def pairs(paragraphs: list[Paragraph]) -> list[list[dict]]:
    """One [user, assistant] message list per subject that has an answer."""
    out = []
    i = 0
    while i < len(paragraphs):
        head = paragraphs[i]
        i += 1
        if not head.first or not head.subject or len(head.subject) > 80:
            continue
        # The subject's paragraphs run until another subject's first paragraph or a heading.
        group = [head]
        while i < len(paragraphs) and paragraphs[i].subject == head.subject and not paragraphs[i].first:
            group.append(paragraphs[i])
            i += 1
        answer = ""
        for p in (p for p in group if usable(p)):
            answer = (answer + " " + p.text).strip()
            if len(answer) >= 160:
                break
        if not answer:
            continue
        qkind, subject = question_kind(head.kind, head.subject)
        if qkind == "section" and subject.endswith("?"):
            question = subject  # a FAQ entry asks it already
        elif qkind == "section" and subject.lower() in GENERIC_TITLES:
            continue  # "Tell me about Examples." says nothing without its page
        else:
            forms = QUESTIONS[qkind]
            question = forms[zlib.crc32(subject.encode()) % len(forms)].format(s=subject)
        out.append([{"role": "user", "content": question}, {"role": "assistant", "content": clip(answer)}])
    return out
