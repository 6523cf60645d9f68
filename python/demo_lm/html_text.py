"""HTML documentation pages (Sphinx's and DocBook's output) to prose paragraphs.

For the packages that ship no reStructuredText sources: the text of paragraphs, list items,
definitions and headings is kept; code (pre, highlighted blocks), tables, navigation, sidebars
and permalink marks are dropped, as rst_text.py drops them from sources. Paragraphs carry the
subject they describe (a heading, or a definition list term or documented signature) in the
same form as rst_text.py's, so chat_pairs.py reads both.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from rst_text import Paragraph, object_name

BLOCKS = {"p", "li", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "caption", "blockquote", "div", "dl", "ul", "ol"}
HEADINGS = {"h1", "h2", "h3", "h4"}
SKIP_TAGS = {"pre", "table", "script", "style", "head", "nav", "header", "footer", "form", "button"}
# Class and id words of page furniture in Sphinx (Django's theme too) and DocBook pages.
SKIP_CLASSES = {
    "navheader", "navfooter", "toc", "highlight", "sphinxsidebar", "related", "headerlink",
    "searchbox", "footer", "header", "nav", "breadcrumbs", "literal-block-wrapper", "indexterm",
    "toctree-wrapper", "refsynopsisdiv", "synopsis", "programlisting", "screen",
}  # fmt: skip
SKIP_IDS = {"hd", "ft", "sidebar", "global-nav"}
VOID = {"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base", "source"}
NUMBERING = re.compile(r"^((Chapter|Appendix|Part|Table|Figure|Example)\s+)?([IVXLC]+\.|[A-Z]?\d+(\.\d+)*\.)\s+")


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[Paragraph] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.skip_depth = 0
        self.text: list[str] = []
        self.block = "p"
        self.subject: str | None = None
        self.subject_kind = "text"
        self.fresh = False
        self.lists: list[set[str]] = []  # the class words of each open <dl>

    def handle_starttag(self, tag, attrs):
        if tag == "br" and self.skip_depth == 0:
            self.text.append(" ")
        if tag in VOID:
            return
        attributes = dict(attrs)
        words = set((attributes.get("class") or "").split())
        if tag == "dl":
            self.lists.append(words)
        skipped = (
            self.skip_depth > 0
            or tag in SKIP_TAGS
            or bool(words & SKIP_CLASSES)
            or any(w.startswith("highlight") for w in words)
            or attributes.get("id") in SKIP_IDS
        )
        if skipped:
            self.skip_depth += 1
        elif tag in BLOCKS:
            self.flush()
            self.block = tag
        self.stack.append((tag, skipped))

    def handle_endtag(self, tag):
        if tag in VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:  # close what the page left open inside it
            open_tag, skipped = self.stack.pop()
            if open_tag == "dl" and self.lists:
                self.lists.pop()
            if skipped:
                self.skip_depth -= 1
            elif open_tag in BLOCKS:
                self.flush()
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.skip_depth == 0:
            self.text.append(data)

    def flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self.text)).replace("\u00b6", "").strip()
        self.text = []
        if not text or not re.search(r"[A-Za-z]", text):
            return
        if self.block in HEADINGS:
            text = NUMBERING.sub("", text)
            self.out.append(Paragraph(text, None, "heading"))
            self.subject, self.subject_kind, self.fresh = text, "section", True
        elif self.block == "dt":
            sphinx_object = bool(self.lists) and "py" in self.lists[-1]
            if sphinx_object and text.startswith("class "):
                self.subject, self.subject_kind = object_name(text.removeprefix("class ")), "class"
            elif sphinx_object:
                self.subject, self.subject_kind = object_name(text), "function" if "(" in text else "data"
            else:
                # DocBook terms: "synchronous_commit (enum)" names a setting and its type.
                self.subject, self.subject_kind = re.sub(r" \([\w ]+\)$", "", text), "term"
            self.fresh = len(text) <= 80
        elif len(text) >= 2:
            kind = self.subject_kind if self.fresh else "text"
            self.out.append(Paragraph(text, self.subject, kind, self.fresh))
            self.fresh = False


def paragraphs(html: str) -> list[Paragraph]:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    parser.flush()
    return parser.out
