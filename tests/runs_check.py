#!/usr/bin/env python3
"""Checks the chart of runs (faultline runs -o) in headless Chromium.

    runs_check.py PAGE.html DB RUNS CHANGE_RUN [--png OUT]
        Loads the page as plot_check.py loads the timeline page: no console
        message, no request but the page itself, the page's script ran.
        Then the DOM: RUNS blocks (a.run), one per session of DB, in time
        order (data-ts rising) and drawn in that order (data-x, where the
        browser laid each out, rising); each links to a report on the page
        (#run-N exists); the blocks marked as a change point (class cp) are
        those of the runs the change points' list names, and run
        CHANGE_RUN is one of them.  --png also renders it.

Prints what failed and exits 1; prints "ok" and exits 0 when all holds.
"""
import html.parser
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_check  # noqa: E402  (chromium, page_requests, fail)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.blocks = []        # attrs of each a.run
        self.ids = set()
        self.body = {}
        self.changes = []       # data-run of each li of #changes
        self.in_changes = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "body":
            self.body = a
        if tag == "a" and "run" in a.get("class", "").split():
            self.blocks.append(a)
        if tag == "ul" and a.get("id") == "changes":
            self.in_changes = True
        if tag == "li" and self.in_changes and "data-run" in a:
            self.changes.append(int(a["data-run"]))

    def handle_endtag(self, tag):
        if tag == "ul":
            self.in_changes = False


def main(argv):
    page, dbpath, runs, change_run = argv[1], argv[2], int(argv[3]), int(argv[4])
    png = argv[argv.index("--png") + 1] if "--png" in argv else None
    fail = plot_check.fail
    sessions = [r[0] for r in sqlite3.connect(dbpath).execute(
        "SELECT session_id FROM session ORDER BY start_ts, session_id")]
    if len(sessions) != runs:
        fail("the database has %d sessions, not %d" % (len(sessions), runs))
    scratch = tempfile.mkdtemp(prefix="faultline-runs-check.")
    try:
        url = "file://" + os.path.abspath(page)
        netlog = os.path.join(scratch, "net.json")
        r = plot_check.chromium(["--log-net-log=" + netlog, "--dump-dom", url], scratch)
        if r is None:
            return 1
        for line in r.stderr.splitlines():
            if ":CONSOLE" in line:
                fail("console: " + line)
        for u in plot_check.page_requests(netlog, url):
            fail("the page requested " + u)
        dom = Page()
        dom.feed(r.stdout)
        if dom.body.get("data-ready") != "1":
            fail("the page's script did not run; Chromium said:\n" + r.stderr[-2000:])
        if len(dom.blocks) != runs:
            fail("%d blocks, not %d" % (len(dom.blocks), runs))
        got = [int(b["data-session"]) for b in dom.blocks]
        if got != sessions:
            fail("blocks of sessions %s, the database's in time order %s" % (got, sessions))
        ts = [int(b["data-ts"]) for b in dom.blocks]
        if ts != sorted(ts):
            fail("the blocks are not in time order: %s" % ts)
        xs = [int(b.get("data-x", "-1")) for b in dom.blocks]
        if xs != sorted(xs) or len(set(xs)) != len(xs):
            fail("the blocks are not drawn in their order: %s" % xs)
        for i, b in enumerate(dom.blocks):
            want = "#run-%d" % (i + 1)
            if b.get("href") != want or want[1:] not in dom.ids:
                fail("block %d links to %r, which the page %s" % (
                    i + 1, b.get("href"), "has" if want[1:] in dom.ids else "lacks"))
            cp = "cp" in b.get("class", "").split()
            if cp != (i + 1 in dom.changes):
                fail("block %d is %smarked as a change point" % (i + 1, "" if cp else "not "))
        if change_run not in dom.changes:
            fail("the change points' list does not name run %d: %s" % (change_run, dom.changes))
        if png:
            r = plot_check.chromium(["--screenshot=" + os.path.abspath(png), url], scratch)
            if not os.path.exists(png) or os.path.getsize(png) < 10000:
                fail("no picture in %s: %s" % (png, r.stderr[-1000:]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if plot_check.FAILED:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
