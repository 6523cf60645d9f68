"""reStructuredText (Sphinx sources) to plain prose paragraphs, for the demo LM's corpus.

Only prose is kept: code (literal blocks, doctests, code directives), tables, indexes and
directives we do not know are dropped, since a 1M-parameter model learns more from sentences
than from fragments of code it cannot reproduce. Inline markup is reduced to the text Sphinx
would show (":func:`len`" -> "len()", "``x``" -> "x", "`text <url>`_" -> "text").

Each paragraph remembers the subject it belongs to (a section title, a documented function or
class, a glossary term) and whether it is the first under it; chat_pairs.py turns those into
questions and answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Directives whose content is prose shown to the reader.
PROSE = {
    "note", "warning", "seealso", "tip", "important", "attention", "caution", "danger", "hint",
    "admonition", "topic", "sidebar", "impl-detail", "glossary", "epigraph", "versionadded",
    "versionchanged", "deprecated", "deprecated-removed", "only", "container",
}  # fmt: skip
# Directives that document a named object: their content is its description.
OBJECTS = {
    "function", "method", "class", "attribute", "data", "exception", "decorator",
    "decoratormethod", "classmethod", "staticmethod", "abstractmethod", "coroutinefunction",
    "coroutinemethod", "awaitablefunction", "awaitablemethod", "describe", "object", "opcode",
    "cmdoption", "option", "envvar", "pdbcommand", "c:function", "c:type", "c:macro", "c:member",
    "c:var", "c:struct", "confval", "event", "attr", "property",
}  # fmt: skip
VERSION_WORDS = {
    "versionadded": "New in version {}.",
    "versionchanged": "Changed in version {}.",
    "deprecated": "Deprecated since version {}.",
    "deprecated-removed": "Deprecated since version {}.",
}

ADORNMENT = re.compile(r"^([=\-~^*#\"'+`:.!_])\1{2,}\s*$")
DIRECTIVE = re.compile(r"^\.\.\s+([\w:-]+)::\s*(.*)$")
OPTION = re.compile(r"^:[\w -]+:(\s|$)")
BULLET = re.compile(r"^([*+\-•]|#\.|\d+\.|\(?[a-z0-9]\))\s+")
SIMPLE_TABLE_BORDER = re.compile(r"^=+( +=+)+\s*$")


@dataclass
class Paragraph:
    text: str
    subject: str | None = None  # what the paragraph describes, if anything
    kind: str = "text"  # "heading", "text"; or the subject's kind on its first paragraph
    first: bool = False  # the first paragraph under its subject


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def dedent(lines: list[str]) -> list[str]:
    width = min((indent_of(x) for x in lines if x.strip()), default=0)
    return [x[width:] if x.strip() else "" for x in lines]


def block_end(lines: list[str], start: int, indent: int) -> int:
    """First index at or after `start` whose line is not blank and indented <= `indent`."""
    i = start
    while i < len(lines) and (not lines[i].strip() or indent_of(lines[i]) > indent):
        i += 1
    return i


# Inline markup ------------------------------------------------------------------------------

ROLE = re.compile(r":(?:[\w-]+:)*([\w-]+):`((?:[^`\\]|\\.)+)`")
CALLABLE_ROLES = {"func", "meth", "cfunc"}


def _role(match: re.Match) -> str:
    role, body = match.group(1), match.group(2)
    shown = re.match(r"^(.*?)\s*<[^<>]*>$", body, re.S)
    if shown and shown.group(1):
        return shown.group(1)
    body = body.lstrip("!")
    if role in ("pep", "rfc"):
        return f"{role.upper()} {body.split('#')[0]}"
    if role == "samp":
        return re.sub(r"[{}]", "", body)
    if role in ("ref", "doc", "keyword", "term"):
        return body.replace("-", " ") if role in ("ref", "doc") else body
    if body.startswith("~"):
        body = body[1:].rsplit(".", 1)[-1]
    if role in CALLABLE_ROLES and not body.endswith(")"):
        body += "()"
    return body


def inline(text: str) -> str:
    text = ROLE.sub(_role, text).replace("---", "\u2014")
    text = re.sub(r"``(.+?)``", r"\1", text)
    text = re.sub(r"`([^`<]+?)\s*<[^`]*>`__?", r"\1", text)  # `text <url>`_
    text = re.sub(r"`([^`]+)`__?", r"\1", text)  # `name`_
    text = re.sub(r"`([^`]+)`", r"\1", text)  # default role
    text = re.sub(r"\[(#\w*|\d+|\*)\]_", "", text)  # footnote references
    text = re.sub(r"\|(\w+)\|_?", lambda m: SUBSTITUTIONS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\\(.)", r"\1", text).replace("\\", "")
    return re.sub(r"\s+", " ", text).strip()


SUBSTITUTIONS = {"version": "3.11", "release": "3.11", "today": "", "br": " "}


# Blocks -------------------------------------------------------------------------------------


class Parser:
    def __init__(self) -> None:
        self.out: list[Paragraph] = []
        self.subject: str | None = None
        self.subject_kind = "text"
        self.subject_fresh = False

    def set_subject(self, subject: str | None, kind: str) -> None:
        self.subject, self.subject_kind, self.subject_fresh = subject, kind, subject is not None

    def emit(self, text: str, prefix: str = "") -> None:
        text = inline(text)
        if len(text) < 2 or not re.search(r"[A-Za-z]", text):
            return
        first = self.subject_fresh
        kind = self.subject_kind if first else "text"
        self.out.append(Paragraph(prefix + text, self.subject, kind, first))
        self.subject_fresh = False

    def heading(self, title: str) -> None:
        title = inline(title)
        if not title:
            return
        self.out.append(Paragraph(title, None, "heading"))
        self.set_subject(title, "section")

    def parse(self, lines: list[str]) -> None:
        i = 0
        while i < len(lines):
            line = lines[i]
            text = line.strip()
            if not text:
                i += 1
                continue
            indent = indent_of(line)
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if ADORNMENT.match(text) and i + 2 < len(lines) and ADORNMENT.match(lines[i + 2].strip()):
                self.heading(nxt)  # overlined title
                i += 3
            elif ADORNMENT.match(text):
                i += 1  # a transition line
            elif ADORNMENT.match(nxt.strip()) and len(nxt.strip()) >= len(text) - 2 and indent_of(nxt) == indent:
                self.heading(text)
                i += 2
            elif text.startswith(".. "):
                i = self.explicit(lines, i, indent)
            elif text.startswith(">>>"):
                i = self.skip_to_blank(lines, i)
            elif text.startswith(("+-", "+=")) or SIMPLE_TABLE_BORDER.match(text):
                i = self.skip_table(lines, i)
            elif BULLET.match(text):
                i = self.item(lines, i, indent)
            elif OPTION.match(text):
                i = block_end(lines, i + 1, indent)  # field lists: metadata, not prose
            else:
                i = self.paragraph(lines, i, indent)

    def skip_to_blank(self, lines: list[str], i: int) -> int:
        while i < len(lines) and lines[i].strip():
            i += 1
        return i

    def skip_table(self, lines: list[str], i: int) -> int:
        if lines[i].strip().startswith("+"):
            return self.skip_to_blank(lines, i)
        # A simple table ends at the border line followed by a blank line (the header's border
        # is followed by a row).
        i += 1
        while i < len(lines):
            if SIMPLE_TABLE_BORDER.match(lines[i].strip()) and (i + 1 >= len(lines) or not lines[i + 1].strip()):
                return i + 1
            i += 1
        return i

    def paragraph(self, lines: list[str], i: int, indent: int) -> int:
        start = i
        while i < len(lines) and lines[i].strip() and indent_of(lines[i]) == indent:
            i += 1
        text = " ".join(x.strip() for x in lines[start:i])
        if i < len(lines) and lines[i].strip() and indent_of(lines[i]) > indent:
            # A definition list: the term, then its indented definition.
            end = block_end(lines, i, indent)
            outer = (self.subject, self.subject_kind, self.subject_fresh)
            self.set_subject(inline(text), "term")
            self.parse(dedent(lines[i:end]))
            self.subject, self.subject_kind, self.subject_fresh = outer
            return end
        literal_follows = text.endswith("::")
        if literal_follows:
            text = text[:-2].rstrip()
            text = text + ":" if text and not text.endswith(" ") and text[-1].isalnum() else text
        self.emit(text)
        if literal_follows:
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and indent_of(lines[j]) > indent:
                return block_end(lines, j, indent)
        return i

    def item(self, lines: list[str], i: int, indent: int) -> int:
        first = lines[i].strip()
        marker = BULLET.match(first)
        width = indent + marker.end()
        body = [" " * width + first[marker.end() :]]
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or indent_of(lines[j]) >= width):
            if not lines[j].strip() and (j + 1 >= len(lines) or indent_of(lines[j + 1]) < width):
                break
            body.append(lines[j])
            j += 1
        sub = Parser()
        sub.subject, sub.subject_kind, sub.subject_fresh = self.subject, self.subject_kind, self.subject_fresh
        sub.parse(dedent(body))
        for n, p in enumerate(sub.out):
            self.out.append(Paragraph(("- " if n == 0 else "") + p.text, p.subject, p.kind, p.first))
        self.subject_fresh = sub.subject_fresh and self.subject_fresh
        return j

    def explicit(self, lines: list[str], i: int, indent: int) -> int:
        text = lines[i].strip()
        end = block_end(lines, i + 1, indent)
        directive = DIRECTIVE.match(text)
        if not directive:
            return end  # a comment, a target, a footnote or a substitution definition
        name, argument = directive.group(1).lower(), directive.group(2).strip()
        body = lines[i + 1 : end]
        # The lines right after the directive are options (":noindex:"), or more signatures /
        # the rest of the argument; the content starts after them.
        head = 0
        while head < len(body) and body[head].strip():
            head += 1
        opening = [x for x in body[:head] if not OPTION.match(x.strip())]
        content = body[head:]
        if name in OBJECTS:
            outer = (self.subject, self.subject_kind, self.subject_fresh)
            subject = object_name(argument)
            if self.subject_kind in ("class", "exception") and self.subject and "." not in subject:
                subject = f"{self.subject}.{subject}"  # a method or attribute of the class around it
            self.set_subject(subject, name)
            self.parse(dedent(content))
            self.subject, self.subject_kind, self.subject_fresh = outer
        elif name in PROSE:
            if name in VERSION_WORDS:
                self.version_note(name, argument, opening, content)
                return end
            if name in ("admonition", "topic", "sidebar") and argument:
                self.heading(argument)
            elif opening:
                content = [*opening, "", *content]
            self.parse(dedent(content))
        return end

    def version_note(self, name: str, argument: str, opening: list[str], content: list[str]) -> None:
        """As Sphinx shows a version note: its words lead the first paragraph ("Changed in
        version 3.6: Accepts a path-like object.")."""
        version, _, rest = argument.partition(" ")
        words = VERSION_WORDS[name].format(version.rstrip(","))
        lead = " ".join([rest] + [x.strip() for x in opening]).strip()
        sub = Parser()
        sub.parse(dedent(content))
        texts = [p.text for p in sub.out]
        if lead:
            texts.insert(0, inline(lead))
        if texts:
            texts[0] = words[:-1] + ": " + texts[0]
        else:
            texts = [words]
        for text in texts:
            self.out.append(Paragraph(text, self.subject, "text", False))


def object_name(signature: str) -> str:
    """'abspath(path)' -> 'abspath'; 'str.join(iterable)' -> 'str.join'; 'PyObject* Py_X(...)'
    -> 'Py_X'."""
    name = re.split(r"[(\[]", signature, maxsplit=1)[0].strip()
    name = name.split()[-1] if name else signature
    return name.lstrip("*&")


def paragraphs(rst: str) -> list[Paragraph]:
    parser = Parser()
    parser.parse(rst.replace("\t", "    ").splitlines())
    return parser.out
