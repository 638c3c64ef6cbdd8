#!/usr/bin/env python3
"""Checks the documentation: README.md, CHANGELOG.md, Benchmarks/RESULTS.md and docs/**/*.md.

- Every relative link ([text](path), [text](path#anchor), [text](#anchor), images, reference
  definitions) names a file or directory inside the repository, and an anchor names a heading of
  that Markdown file, slugged as GitHub slugs headings.
- No link leaves the repository: no path escaping its root, no file: URL.
- README.md has at most MAX_README_WORDS words, counted as `wc -w` counts them.

Prints every failure as file:line: message and exits 1 on any; prints a one-line summary otherwise.
Python 3 standard library only.
"""
import os
import re
import sys
from urllib.parse import unquote

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
REQUIRED = ["README.md", "CHANGELOG.md", "Benchmarks/RESULTS.md"]
MAX_README_WORDS = 2100

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target may be <...> and may carry a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents():
    paths = [p for p in REQUIRED]
    docs = os.path.join(ROOT, "docs")
    for directory, _, files in os.walk(docs):
        for name in sorted(files):
            if name.endswith(".md"):
                paths.append(os.path.relpath(os.path.join(directory, name), ROOT))
    return paths


def lines_outside_fences(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield number, line


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with code spans blanked out."""
    for number, line in lines_outside_fences(text):
        yield number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading: its text lowercased, punctuation but - and _ dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    """Every anchor a Markdown file's headings give, duplicates numbered -1, -2, ..."""
    if path not in anchor_cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        seen = {}
        result = set()
        for _, line in lines_outside_fences(text):
            heading = HEADING.match(line)
            if not heading:
                continue
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
        anchor_cache[path] = result
    return anchor_cache[path]


def check_link(document, target):
    """The failure for one link target of `document` (a path relative to ROOT), or None."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target:
        return "empty link"
    if target.lower().startswith("file:"):
        return f"'{target}' is a file: link, which leaves the repository"
    if EXTERNAL.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    path = unquote(path.split("?", 1)[0])
    if path:
        base = ROOT if path.startswith("/") else os.path.dirname(os.path.join(ROOT, document))
        resolved = os.path.normpath(os.path.join(base, path.lstrip("/")))
        if os.path.commonpath([resolved, ROOT]) != ROOT:
            return f"'{target}' leaves the repository"
        if not os.path.exists(resolved):
            return f"'{target}': no such file {os.path.relpath(resolved, ROOT)}"
        if os.path.commonpath([os.path.realpath(resolved), ROOT]) != ROOT:
            return f"'{target}' resolves outside the repository"
    else:
        resolved = os.path.join(ROOT, document)
    if anchor:
        if os.path.isdir(resolved):
            return f"'{target}': an anchor into a directory"
        if resolved.endswith(".md") and unquote(anchor) not in anchors(resolved):
            return f"'{target}': no heading '#{anchor}' in {os.path.relpath(resolved, ROOT)}"
    return None


def main():
    failures = []
    links = 0
    checked = documents()
    for document in checked:
        full = os.path.join(ROOT, document)
        if not os.path.isfile(full):
            failures.append(f"{document}: missing")
            continue
        with open(full, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
            definition = REFERENCE_DEFINITION.match(line)
            if definition:
                targets.append(definition.group(1))
            for target in targets:
                links += 1
                failure = check_link(document, target)
                if failure:
                    failures.append(f"{document}:{number}: {failure}")
    readme = os.path.join(ROOT, "README.md")
    words = 0
    if os.path.isfile(readme):
        with open(readme, "rb") as f:
            words = len(f.read().split())
        if words > MAX_README_WORDS:
            failures.append(f"README.md:1: {words} words, more than {MAX_README_WORDS}")
    for failure in failures:
        print(failure)
    if failures:
        print(f"check-docs: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print(f"check-docs: {len(checked)} files, {links} links resolve; README.md has {words} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
