#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""html_check.py FILE: a strict check that FILE is well-formed,
self-contained HTML: it parses (python's html.parser), every element is
closed in order (void elements excepted), nothing is fetched from
elsewhere (no script, link, img, iframe, object, no src= and no href= but
to an id on the page, no url() but to an id), and no id is defined twice.
Prints the number of top-level <svg> elements (charts) and exits 0, or
prints the first problem and exits 1. With --inline-script (report
--explore) a <script> written inside the page is allowed; one with src=
is not."""
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}
BANNED = {"script", "link", "img", "iframe", "object", "embed", "base"}


class Strict(HTMLParser):
    def __init__(self, inline_script=False):
        super().__init__(convert_charrefs=True)
        self.inline_script = inline_script
        self.stack, self.svgs, self.ids, self.problem = [], 0, set(), None

    def fail(self, msg):
        if self.problem is None:
            self.problem = "%s (line %d)" % (msg, self.getpos()[0])

    def attrs_ok(self, tag, attrs):
        if tag in BANNED and not (tag == "script" and self.inline_script):
            self.fail("<%s> is not allowed: the file must stand alone" % tag)
        for k, v in attrs:
            v = v or ""
            if k == "src":
                self.fail("src= on <%s>" % tag)
            if k.endswith("href") and not v.startswith("#"):
                self.fail("%s=%r points outside the page" % (k, v))
            if "url(" in v and "url(#" not in v:
                self.fail("url() outside the page in %s" % k)
            if k == "id":
                if v in self.ids:
                    self.fail("id %r defined twice" % v)
                self.ids.add(v)

    def handle_starttag(self, tag, attrs):
        self.attrs_ok(tag, attrs)
        if tag == "svg" and "svg" not in self.stack:
            self.svgs += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.attrs_ok(tag, attrs)
        if tag == "svg" and "svg" not in self.stack:
            self.svgs += 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.fail("</%s> closes <%s>" %
                      (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()


def main():
    args = [a for a in sys.argv[1:] if a != "--inline-script"]
    text = open(args[0], encoding="utf-8").read()
    if not text.startswith("<!DOCTYPE html>"):
        print("no <!DOCTYPE html> at the start")
        return 1
    p = Strict("--inline-script" in sys.argv[1:])
    p.feed(text)
    p.close()
    if p.problem is None and p.stack:
        p.problem = "unclosed at the end: %s" % " ".join(p.stack)
    if p.problem:
        print(p.problem)
        return 1
    print(p.svgs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
