#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every relative link in README.md and docs/**/*.md resolves.

Usage: check_links.py SOURCE_DIR

For each Markdown page (README.md and every docs/**/*.md under SOURCE_DIR), every relative link and
image, [text](path), [text](path#anchor), [text](#anchor), ![alt](path) and reference definitions
[label]: path, must name a file or folder that exists relative to the page, inside SOURCE_DIR; an
anchor must be a heading of the target page, as GitHub makes anchors of headings (lower case,
spaces to '-', punctuation other than '-' and '_' dropped, '-1', '-2', ... for repeated headings).
Links with a scheme (http:, https:, mailto:, ...) and links inside fenced code blocks or inline code
are not checked.

Prints each broken link as FILE:LINE: broken link TARGET (reason) and exits 1 if there is any;
else prints how many links it checked and exits 0. Exit 2: bad usage.
"""

import os
import re
import sys
import urllib.parse

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# [text](target "title") and ![alt](target); the text may hold one level of brackets.
INLINE = re.compile(r"!?\[((?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*)\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
                    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>\n]*>|\S+)", re.M)
HTML = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*\"([^\"]*)\"", re.I)
HTML_ID = re.compile(r"<[A-Za-z][^>]*?\b(?:id|name)\s*=\s*\"([^\"]*)\"", re.I)
GITHUB_LINE = re.compile(r"^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$")


def strip_fences(text):
    """The page with every fenced code block blanked out; also returns the lines outside fences."""
    lines = text.split("\n")
    out = []
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in line[m.end():]):
                fence = m.group(1)
                out.append("")
                continue
            out.append(line)
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line[m.end():].strip() == "":
                fence = None
            out.append("")
    return "\n".join(out)


def strip_code_spans(text):
    """Inline code spans blanked out: a run of n backticks up to the next run of exactly n backticks
    within the same paragraph (a backslash-escaped backtick opens none)."""
    out = list(text)
    for para in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", text):
        runs = [(m.start(), m.end()) for m in re.finditer(r"`+", para.group(0))
                if not (m.start() > 0 and para.group(0)[m.start() - 1] == "\\")]
        i = 0
        while i < len(runs):
            a, b = runs[i]
            for j in range(i + 1, len(runs)):
                if runs[j][1] - runs[j][0] == b - a:
                    for k in range(para.start() + a, para.start() + runs[j][1]):
                        if out[k] != "\n":
                            out[k] = " "
                    i = j
                    break
            i += 1
    return "".join(out)


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown: links as their text, code as its content,
    emphasis markers and HTML tags dropped."""
    t = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", raw)
    t = re.sub(r"<[^>]+>", "", t)
    t = t.replace("`", "")
    return t


def slug(text):
    t = heading_text(text).strip().lower()
    t = "".join(c for c in t if c.isalnum() or c in " -_")
    return t.replace(" ", "-")


def is_paragraph_line(line):
    """Whether a setext underline below this line makes it a heading (a line of a paragraph, not
    a list item, table row, quote, heading or indented code)."""
    if not line.strip() or line.startswith("    ") or line.startswith("\t"):
        return False
    s = line.lstrip()
    if s.startswith(("|", "#", ">")) or re.match(r"^([-*+]|\d+[.)])(\s|$)", s):
        return False
    return True


def anchors_of(path, cache):
    """Every anchor a Markdown page defines: its headings' slugs (with -1, -2 for repeats) and
    explicit HTML ids and names."""
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = strip_fences(f.read())
    found = set()
    seen = {}
    lines = text.split("\n")
    prev = ""
    for line in lines:
        title = None
        m = ATX.match(line)
        if m:
            title = m.group(2) or ""
        elif SETEXT.match(line) and is_paragraph_line(prev):
            title = prev.strip()
        if title is not None:
            base = slug(title)
            if base in seen:
                seen[base] += 1
                found.add(f"{base}-{seen[base]}")
            else:
                seen[base] = 0
                found.add(base)
        for hm in HTML_ID.finditer(line):
            found.add(hm.group(1))
        prev = line
    cache[path] = found
    return found


def pages(root):
    out = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        out.append(readme)
    docs = os.path.join(root, "docs")
    for d, dirs, files in os.walk(docs):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".md"):
                out.append(os.path.join(d, name))
    return out


def links_of(path):
    """(line, target) for every link on the page, outside code."""
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    text = strip_code_spans(strip_fences(raw))
    found = []

    def line_of(offset):
        return text.count("\n", 0, offset) + 1

    for m in INLINE.finditer(text):
        target = m.group(2)
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        found.append((line_of(m.start()), target))
    for m in REFDEF.finditer(text):
        target = m.group(2)
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        found.append((line_of(m.start()), target))
    for m in HTML.finditer(text):
        found.append((line_of(m.start()), m.group(1)))
    found.sort()
    return found


def check(root, page, target, cache):
    """None if the link resolves, else the reason it does not."""
    if target == "":
        return "empty target"
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part)
    anchor = urllib.parse.unquote(anchor)
    if path_part == "":
        dest = page
    elif path_part.startswith("/"):
        dest = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
    else:
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path_part))
    rel = os.path.relpath(dest, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return "outside the repository"
    if not os.path.exists(dest):
        return f"no such file or directory: {rel}"
    if "#" not in target:
        return None
    if os.path.isdir(dest):
        readme = os.path.join(dest, "README.md")
        if not os.path.isfile(readme):
            return f"anchor #{anchor} on a directory without README.md: {rel}"
        dest = readme
    if not dest.endswith(".md"):
        if GITHUB_LINE.match(anchor):
            return None
        return f"anchor #{anchor} in a file that is not Markdown: {rel}"
    if anchor == "":
        return None
    if anchor not in anchors_of(dest, cache):
        return f"no heading with anchor #{anchor} in {os.path.relpath(dest, root)}"
    return None


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_links.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    cache = {}
    checked = 0
    broken = 0
    files = pages(root)
    if not files:
        print(f"check_links.py: no README.md or docs/*.md under {root}", file=sys.stderr)
        return 2
    for page in files:
        for line, target in links_of(page):
            if SCHEME.match(target):
                continue
            checked += 1
            reason = check(root, page, target, cache)
            if reason:
                broken += 1
                print(f"{os.path.relpath(page, root)}:{line}: broken link {target} ({reason})")
    if broken:
        print(f"{broken} of {checked} relative links broken in {len(files)} pages")
        return 1
    print(f"{checked} relative links checked in {len(files)} pages: all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
