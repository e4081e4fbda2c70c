#!/usr/bin/env python3
"""Checks a faultline plot against the database it was drawn from.

    plot_check.py data PAGE.html DB SESSION
        The page's embedded data against the rows of DB: every row of the
        window is in it once, as recorded or inside a merge (counts and
        durations add up exactly), every fault at or over the threshold
        and every unfinished one as recorded, with its own fields.
        For a page of every thread (no --tid): a lane for each thread
        that was busy in the window (a fault, or a stall of 1 ms or more
        as the stall view has them), and the others counted as idle.
        A CPU lane for each CPU a target ran on or waited for in the
        window, holding each of its running intervals there and each
        holder of its waits (ran_instead) once, a holder's share inside
        its wait.
    plot_check.py browser PAGE.html DB SESSION [--view V0,V1] [--fold PID,...]
                  [--input K,...] [--hover TID:T] [--held CPU:TID] [--png OUT]
        Loads the page in headless Chromium: no console message, no
        request but the page itself, the script ran; then the DOM: a lane
        per metric and per thread of an open process, a header per
        process, every element's x where its data-t puts it, every kept
        fault and every imported event (NAK) of the view drawn at its
        time, the window line naming the view.  --view and --fold go in
        the address (#view=V0,V1&fold=PID,...).  --input K,... gives the
        page, once drawn, keys (a key's name, as KeyboardEvent.key) and
        Ctrl + wheel steps ("wheel:X:DY": X px into the plot area, DY px
        of wheel), then checks the view and the address they must lead
        to.  --hover TID:T moves the mouse over the interval of thread TID
        at T (ns from the origin), which a wake-up ended: one arrow must
        be drawn, from the waker's lane (its thread's, else the lane of
        the CPU the wake-up ran on) at the interval's end to TID's lane
        where it next ran.  --held CPU:TID: CPU's lane shows thread TID
        holding the CPU, as recorded, inside a wait of a target that
        ran_instead says TID held it in.  --png also renders it (with the
        hover and its arrow, when asked for).
    plot_check.py svg PICTURE.svg DB SESSION [--all-threads]
        A well-formed SVG with a lane per busy thread of the picture's
        window, and the idle ones counted; a lane per CPU as in the page.
    plot_check.py get PAGE.html EXPR
        Prints json.dumps(EXPR) for the page's data D (for exact checks).

Prints what failed and exits 1; prints "ok" and exits 0 when all holds.
Times in the page are ns from D["origin_ns"], a CLOCK_REALTIME ns count.
"""
import html.parser
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import xml.dom.minidom

FAILED = []
MERGED = 4


def fail(msg):
    FAILED.append(msg)
    print("FAIL: " + msg)


def page_data(path):
    text = open(path, encoding="utf-8").read()
    start = text.index('<script type="application/json" id="fl-data">')
    start = text.index(">", start) + 1
    end = text.index("</script>", start)
    return json.loads(text[start:end])


def window(D):
    origin = int(D["origin_ns"])
    return origin, origin + D["span_ns"]


def threads_in(D):
    return {th["tid"]: th for th in D["threads"]}


# ---- data --------------------------------------------------------------

def check_states(db, sess, D, lo, hi, th):
    rows = db.execute(
        "SELECT ts, dur, state FROM thread_state WHERE session_id = ? AND tid = ?"
        " AND ts < ? AND ts + dur > ? ORDER BY ts", (sess, th["tid"], hi, lo)).fetchall()
    origin = int(D["origin_ns"])
    n = sum(s[4] if s[3] & MERGED else 1 for s in th["s"])
    if n != len(rows):
        fail("tid %d: %d state intervals in the window, the page holds %d"
             % (th["tid"], len(rows), n))
    total = sum(sum(s[5]) if s[3] & MERGED else s[1] for s in th["s"])
    if total != sum(r[1] for r in rows):
        fail("tid %d: the page's state time %d != the rows' %d"
             % (th["tid"], total, sum(r[1] for r in rows)))
    recorded = {(s[0] + origin, s[1], D["states"][s[2]]) for s in th["s"]
                if not s[3] & MERGED}
    for ts, dur, state in rows:
        if dur >= D["quantum_ns"] and (ts, dur, state) not in recorded:
            fail("tid %d: the %s interval at %d (%d ns, a column or longer) is "
                 "not in the page as recorded" % (th["tid"], state, ts, dur))


def check_faults(db, sess, D, lo, hi, th):
    rows = db.execute(
        "SELECT ts, dur, kind, addr FROM fault WHERE session_id = ? AND tid = ?"
        " AND ts < ? AND coalesce(ts + dur > ?, ts >= ?) ORDER BY ts",
        (sess, th["tid"], hi, lo, lo)).fetchall()
    origin = int(D["origin_ns"])
    if sum(f[3] for f in th["f"]) != len(rows):
        fail("tid %d: %d faults in the window, the page holds %d"
             % (th["tid"], len(rows), sum(f[3] for f in th["f"])))
    total = sum(f[5] if f[3] > 1 else f[1] for f in th["f"])
    if total != sum(r[1] or 0 for r in rows):
        fail("tid %d: the page's fault time %d != the rows' %d"
             % (th["tid"], total, sum(r[1] or 0 for r in rows)))
    recorded = {(f[0] + origin, f[1], D["fault_kinds"][f[2]], int(f[4], 16) if f[4] else None)
                for f in th["f"] if f[3] == 1}
    for ts, dur, kind, addr in rows:
        if dur is None:
            key = (ts, 0, "unfinished", addr & (2**64 - 1))
        else:
            key = (ts, dur, kind, addr & (2**64 - 1))
        if (dur is None or dur >= D["keep_fault_ns"]) and key not in recorded:
            fail("tid %d: the %s fault at %d (%s ns) is not in the page as recorded"
                 % (th["tid"], kind, ts, dur))


def check_counts(db, sess, D, lo, hi):
    origin = int(D["origin_ns"])
    for th in D["threads"]:
        n = db.execute("SELECT count(*) FROM tracepoint_event WHERE session_id = ?"
                       " AND tid = ? AND ts BETWEEN ? AND ?",
                       (sess, th["tid"], lo, hi)).fetchone()[0]
        if sum(e[2] for e in th["e"]) != n:
            fail("tid %d: %d tracepoint hits, the page holds %d"
                 % (th["tid"], n, sum(e[2] for e in th["e"])))
    for m in D["metrics"]:
        pts = db.execute(
            "SELECT m.ts, m.value FROM metric m JOIN metric_series s USING (series_id)"
            " WHERE s.name = ? AND s.labels = ? AND (s.session_id = ? OR s.session_id IS NULL)"
            " AND m.ts BETWEEN ? AND ? ORDER BY m.ts",
            (m["name"], m["labels"], sess, lo, hi)).fetchall()
        pts = [(ts, v) for ts, v in pts if v == v and abs(v) != float("inf")]
        n = sum(p[2] if len(p) > 2 else 1 for p in m["p"])
        if n != len(pts):
            fail("metric %s: %d points, the page holds %d" % (m["name"], len(pts), n))
        singles = {(p[0] + origin, p[1]) for p in m["p"] if len(p) == 2}
        firsts = {p[0] + origin for p in m["p"]}
        for ts, v in pts:
            if (ts, v) not in singles and ts not in firsts and \
                    not any(p[0] + origin <= ts <= p[0] + origin + p[1] for p in m["p"] if len(p) > 2):
                fail("metric %s: the point at %d is in no item" % (m["name"], ts))


RAN_SQL = """
    SELECT cpu, ts, dur FROM thread_state WHERE session_id = :s AND state = 'running'
       AND cpu IS NOT NULL AND ts < :hi AND ts + dur > :lo"""
HELD_SQL = """
    SELECT r.cpu, r.tid, r.ts, r.ran_tid, r.dur, x.dur FROM ran_instead r
      JOIN thread_state x ON x.session_id = r.session_id AND x.tid = r.tid AND x.ts = r.ts
     WHERE r.session_id = :s AND x.state = 'runnable' AND x.ts < :hi
       AND x.ts + x.dur > :lo"""


def cpus_of(db, sess, lo, hi):
    args = {"s": sess, "lo": lo, "hi": hi}
    return sorted({r[0] for r in db.execute(RAN_SQL, args)} |
                  {r[0] for r in db.execute(HELD_SQL, args)})


def check_cpus(db, sess, D, lo, hi):
    args = {"s": sess, "lo": lo, "hi": hi}
    origin = int(D["origin_ns"])
    want = cpus_of(db, sess, lo, hi)
    if [c["cpu"] for c in D["cpus"]] != want:
        fail("CPU lanes %s, but the targets ran on or waited for %s"
             % ([c["cpu"] for c in D["cpus"]], want))
    ran = db.execute(RAN_SQL, args).fetchall()
    held = db.execute(HELD_SQL, args).fetchall()
    for c in D["cpus"]:
        rows = [r for r in ran if r[0] == c["cpu"]]
        if sum(x[2] for x in c["r"]) != len(rows) or \
                sum(x[5] if x[2] > 1 else x[1] for x in c["r"]) != sum(r[2] for r in rows):
            fail("cpu %d: %d running intervals (%d ns), the page holds %d (%d ns)"
                 % (c["cpu"], len(rows), sum(r[2] for r in rows), sum(x[2] for x in c["r"]),
                    sum(x[5] if x[2] > 1 else x[1] for x in c["r"])))
        rows = [r for r in held if r[0] == c["cpu"]]
        if sum(x[2] for x in c["h"]) != len(rows) or \
                sum(x[5] if x[2] > 1 else x[1] for x in c["h"]) != sum(r[4] for r in rows):
            fail("cpu %d: %d holders of waits, the page holds %d"
                 % (c["cpu"], len(rows), sum(x[2] for x in c["h"])))
        waits = {(r[1], r[2]): r[5] for r in rows}
        for x in c["h"]:
            if x[2] > 1:
                continue
            wait = waits.get((x[5], x[6] + origin))
            if wait is None or x[0] < x[6] or x[0] + x[1] > x[6] + wait:
                fail("cpu %d: the share %s lies outside its wait" % (c["cpu"], x))


BUSY_SQL = """
    SELECT DISTINCT tid FROM fault WHERE session_id = :s AND ts < :hi
       AND coalesce(ts + dur > :lo, ts >= :lo)
    UNION SELECT DISTINCT tid FROM stall WHERE session_id = :s AND ts < :hi
       AND ts + dur > :lo AND state_id IS NOT NULL AND dur >= 1000000"""
ROWS_SQL = """
    SELECT DISTINCT tid FROM thread_state WHERE session_id = :s AND ts < :hi
       AND ts + dur > :lo
    UNION SELECT DISTINCT tid FROM fault WHERE session_id = :s AND ts < :hi
       AND coalesce(ts + dur > :lo, ts >= :lo)
    UNION SELECT DISTINCT tid FROM tracepoint_event WHERE session_id = :s
       AND ts BETWEEN :lo AND :hi"""


def busy_and_idle(db, sess, lo, hi):
    """The threads with rows in [lo, hi) that were busy, and the others."""
    args = {"s": sess, "lo": lo, "hi": hi}
    busy = {t for (t,) in db.execute(BUSY_SQL, args)}
    rows = {t for (t,) in db.execute(ROWS_SQL, args)}
    return busy & rows, rows - busy


def check_idle(lanes, idle_hidden, all_threads, db, sess, lo, hi):
    busy, idle = busy_and_idle(db, sess, lo, hi)
    want = busy | idle if all_threads else busy
    if lanes != want:
        fail("thread lanes %s, but the threads %s were %s in the window"
             % (sorted(lanes), sorted(want), "there" if all_threads else "busy"))
    if idle_hidden != (0 if all_threads else len(idle)):
        fail("%d idle threads said not drawn, but %s were idle"
             % (idle_hidden, sorted(idle)))


def check_data(page, dbpath, sess):
    D = page_data(page)
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    lo, hi = window(D)
    if D["session"] != sess:
        fail("the page is of session %s, not %d" % (D["session"], sess))
    for th in D["threads"]:
        check_states(db, sess, D, lo, hi, th)
        check_faults(db, sess, D, lo, hi, th)
    check_counts(db, sess, D, lo, hi)
    check_cpus(db, sess, D, lo, hi)
    check_idle(set(threads_in(D)), D["idle_hidden"], D["all_threads"], db, sess, lo, hi)
    procs = [(p["pid"], p["threads"]) for p in D["processes"]]
    per_pid = {}
    for th in D["threads"]:
        per_pid[th["pid"]] = per_pid.get(th["pid"], 0) + 1
    if [(p, n) for p, n in procs if n] != sorted(per_pid.items()):
        fail("processes %s, but the lanes are %s" % (procs, sorted(per_pid.items())))
    if sum(p["idle"] for p in D["processes"]) != D["idle_hidden"]:
        fail("the processes' idle threads do not add up to %d" % D["idle_hidden"])


# ---- browser ------------------------------------------------------------

CHROMIUM_FLAGS = [
    "--headless", "--disable-gpu", "--no-first-run", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-default-apps", "--enable-logging=stderr",
    "--log-level=0", "--window-size=1600,1000",
    # Nothing may reach the network even if the page asked: every name
    # fails to resolve.  The page's own CSP forbids the asking.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def chromium(args, scratch):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        fail("no chromium: install Debian's chromium package (mk/deps.sh check)")
        return None
    flags = CHROMIUM_FLAGS + ["--user-data-dir=" + os.path.join(scratch, "profile")]
    if os.geteuid() == 0:
        flags.append("--no-sandbox")    # Chromium refuses root otherwise
    return subprocess.run([exe] + flags + args, capture_output=True, text=True,
                          timeout=300)


def page_requests(netlog, page_url):
    """URLs the page asked for: the browser's own background requests
    carry the initiator 'not an origin'; the page's carry its origin."""
    d = json.load(open(netlog))
    types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    urls = []
    for e in d["events"]:
        p = e.get("params") or {}
        if types.get(e["type"]) != "URL_REQUEST_START_JOB" or "url" not in p:
            continue
        if p.get("initiator") == "not an origin" and \
                "file://" not in p.get("network_isolation_key", ""):
            continue
        if p["url"].split("#")[0] != page_url.split("#")[0]:
            urls.append(p["url"])
    return urls


class Dom(html.parser.HTMLParser):
    """The elements of a dumped DOM, each with the lane (g.lane) it is in."""

    def __init__(self):
        super().__init__()
        self.elements = []      # (tag, attrs, enclosing lane's attrs or None)
        self.lane = None
        self.depth = 0          # <g> nesting
        self.lane_depth = 0
        self.text = {}          # id: the text of the element with that id
        self.open_id = None

    def handle_data(self, data):
        if self.open_id:
            self.text[self.open_id] = self.text.get(self.open_id, "") + data

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.open_id = a.get("id")
        if tag == "g":
            self.depth += 1
            if "lane" in a.get("class", ""):
                self.lane, self.lane_depth = a, self.depth
        self.elements.append((tag, a, self.lane))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), self.lane))

    def handle_endtag(self, tag):
        if tag == "g":
            if self.lane is not None and self.depth == self.lane_depth:
                self.lane = None
            self.depth -= 1


def check_positions(dom, svg):
    x0, width = float(svg["data-x0"]), float(svg["data-width"])
    v0, v1 = int(svg["data-view-from"]), int(svg["data-view-to"])
    n = 0
    for tag, a, _ in dom.elements:
        if "data-t" not in a or tag not in ("rect", "line"):
            continue
        t = int(a["data-t"])
        want = x0 + (t - v0) * width / (v1 - v0)
        x = float(a["x"] if tag == "rect" else a["x1"])
        if tag == "rect":
            want = min(max(want, x0), x0 + width)
        if abs(x - want) > 0.011:
            fail("%s %s at x=%s, but its time %d puts it at %.3f"
                 % (tag, a.get("class", ""), x, t, want))
        n += 1
    return n


def tod(ns):
    """HH:MM:SS.ffffff UTC of a CLOCK_REALTIME ns count, as the page words it."""
    s = ns // 10**9
    return "%02d:%02d:%02d.%06d" % (s // 3600 % 24, s // 60 % 60, s % 60,
                                    ns % 10**9 // 1000)


def check_dom(dom, D, dbpath, sess, view, folds, text):
    svgs = [a for tag, a, _ in dom.elements if tag == "svg" and a.get("id") == "fl-plot"]
    if len(svgs) != 1:
        fail("the page has %d plots (svg#fl-plot), not 1" % len(svgs))
        return
    svg, origin = svgs[0], int(D["origin_ns"])
    v0, v1 = int(svg["data-view-from"]), int(svg["data-view-to"])
    if view and (abs(v0 - view[0]) > 1 or abs(v1 - view[1]) > 1):
        fail("the view is %d,%d, not the %d,%d asked for in the address" % (v0, v1, *view))
    tids = {int(a["data-tid"]) for tag, a, _ in dom.elements
            if tag == "g" and "thread" in a.get("class", "")}
    open_tids = {t for t, th in threads_in(D).items() if str(th["pid"]) not in folds}
    if tids != open_tids:
        fail("thread lanes %s, the data has %s in open folds"
             % (sorted(tids), sorted(open_tids)))
    heads = [(int(a["data-pid"]), "folded" in a["class"]) for tag, a, _ in dom.elements
             if tag == "g" and a.get("class", "").startswith("process")]
    if heads != [(p["pid"], str(p["pid"]) in folds) for p in D["processes"]]:
        fail("process headers (pid, folded) %s, the data has %s, %s folded"
             % (heads, [p["pid"] for p in D["processes"]], sorted(folds)))
    line = text.get("fl-window", "")
    if not line.startswith("View " if view else "Window ") or \
            tod(origin + v0) not in line or tod(origin + v1) not in line:
        fail("the window line %r does not name the view %s to %s"
             % (line, tod(origin + v0), tod(origin + v1)))
    cpu_lanes = [int(a["data-cpu"]) for tag, a, _ in dom.elements
                 if tag == "g" and "cpu" in a.get("class", "").split()]
    want = [] if "cpus" in folds else [c["cpu"] for c in D["cpus"]]
    if cpu_lanes != want:
        fail("CPU lanes %s, the data has %s%s" % (cpu_lanes, [c["cpu"] for c in D["cpus"]],
                                                  " folded" if "cpus" in folds else ""))
    names = [a["data-name"] for tag, a, _ in dom.elements
             if tag == "g" and "metric" in a.get("class", "")]
    if names != [m["name"] for m in D["metrics"]]:
        fail("metric lanes %s, the data has %s" % (names, [m["name"] for m in D["metrics"]]))
    if check_positions(dom, svg) == 0:
        fail("no element with a time (data-t) in the plot")
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    drawn = {(lane and lane.get("data-tid"), int(a["data-t"]))
             for tag, a, lane in dom.elements
             if tag == "rect" and "fault" in a.get("class", "") and "merged" not in a["class"]}
    for tid, ts in db.execute(
            "SELECT tid, ts FROM fault WHERE session_id = ? AND ts >= ? AND ts < ?"
            " AND (dur IS NULL OR dur >= ?)",
            (sess, origin + v0, origin + v1, D["keep_fault_ns"])):
        if tid in open_tids and (str(tid), ts - origin) not in drawn:
            fail("the fault of %d at %d is not drawn at its time" % (tid, ts))
    ticks = {int(a["data-t"]) for tag, a, _ in dom.elements
             if tag == "line" and "tick" in a.get("class", "")}
    px = (v1 - v0) / float(svg["data-width"])
    for m in D["metrics"]:
        if m["style"] != "ticks":
            continue
        for (ts,) in db.execute(
                "SELECT m.ts FROM metric m JOIN metric_series s USING (series_id)"
                " WHERE s.name = ? AND m.ts BETWEEN ? AND ?"
                " AND abs(m.value) < 9e999",     # not infinite: no place on an axis
                (m["name"], origin + v0, origin + v1)):
            t = ts - origin
            if t not in ticks and not any(0 <= t - k < px for k in ticks):
                fail("the %s event at %d has no tick" % (m["name"], ts))


# What the page's keys and wheel do to the view (page.js: within,
# zoomAbout, pan), to know where a list of inputs must lead.
def within(full, a, b):
    span = min(max(b - a, 1000), full)
    a = max(0, min(a, full - span))
    return a, a + span


def after_inputs(D, view, inputs, width):
    v0, v1 = view if view else (0, max(D["span_ns"], 1))
    for i in inputs:
        span, mid = v1 - v0, (v0 + v1) / 2
        if i.startswith("wheel:"):
            x, dy = (float(n) for n in i.split(":")[1:])
            t, k = v0 + x * span / width, 2 ** max(-1, min(1, dy / 300))
            v0, v1 = within(D["span_ns"], t - (t - v0) * k, t + (v1 - t) * k)
        elif i in ("+", "=", "w", "-", "s"):
            k = 0.5 if i in ("+", "=", "w") else 2
            v0, v1 = within(D["span_ns"], mid - (mid - v0) * k, mid + (v1 - mid) * k)
        elif i in ("ArrowLeft", "a", "ArrowRight", "d"):
            dt = span / 5 * (-1 if i in ("ArrowLeft", "a") else 1)
            v0, v1 = within(D["span_ns"], v0 + dt, v1 + dt)
    return round(v0), round(v1)


INPUT_SCRIPT = """<script>
(function () {
  var svg = document.getElementById("fl-plot"), x0 = Number(svg.getAttribute("data-x0"));
  %s.forEach(function (i) {
    var plot = document.getElementById("fl-plot"), r = plot.getBoundingClientRect();
    if (i.indexOf("wheel:") === 0) {
      var a = i.split(":");
      plot.parentNode.dispatchEvent(new WheelEvent("wheel", { ctrlKey: true, bubbles: true,
        cancelable: true, deltaY: Number(a[2]), clientX: r.left + x0 + Number(a[1]),
        clientY: r.top + 60 }));
    } else {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: i, bubbles: true }));
    }
  });
  document.body.setAttribute("data-hash", location.hash);
})();
</script>
"""


HOVER_SCRIPT = """<script>
(function () {
  var g = document.querySelector('#fl-plot g.thread[data-tid="%d"]');
  var r = g && g.querySelector('rect.st[data-t="%d"]');
  if (!r) { document.body.setAttribute("data-hover", "none"); return; }
  r.scrollIntoView({ block: "center" });
  var b = r.getBoundingClientRect();
  r.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: b.left + b.width / 2,
    clientY: b.top + b.height / 2 }));
  document.body.setAttribute("data-hover", "done");
})();
</script>
"""


def with_inputs(page, inputs, hover, scratch):
    """A copy of the page that gives itself the inputs, then the hover,
    once drawn."""
    text = open(page, encoding="utf-8").read()
    end = text.rindex("</body>")
    copy = os.path.join(scratch, "input.html")
    script = (INPUT_SCRIPT % json.dumps(inputs) if inputs else "") + \
        (HOVER_SCRIPT % hover if hover else "")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text[:end] + script + text[end:])
    return copy


def lane_box(dom, cls, key, value):
    """(y0, y1) of the lane g.CLS with data-KEY = value, from its background."""
    for tag, a, lane in dom.elements:
        if tag == "rect" and "lanebg" in a.get("class", "") and lane and \
                cls in lane.get("class", "").split() and lane.get("data-" + key) == str(value):
            return float(a["y"]), float(a["y"]) + float(a["height"])
    return None


def check_hover(dom, D, dbpath, sess, hover):
    """The one arrow of the hovered interval, as the database has it."""
    tid, t = hover
    origin = int(D["origin_ns"])
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    row = db.execute("SELECT ts + dur, waker_tid, waker_cpu FROM thread_state"
                     " WHERE session_id = ? AND tid = ? AND ts = ?",
                     (sess, tid, t + origin)).fetchone()
    nxt = db.execute("SELECT min(ts) FROM thread_state WHERE session_id = ? AND tid = ?"
                     " AND ts >= ? AND state = 'running'", (sess, tid, row[0])).fetchone()
    svg = [a for tag, a, _ in dom.elements if tag == "svg" and a.get("id") == "fl-plot"][0]
    x0, width = float(svg["data-x0"]), float(svg["data-width"])
    v0, v1 = int(svg["data-view-from"]), int(svg["data-view-to"])
    i = [k for k, (tag, a, _) in enumerate(dom.elements)
         if tag == "g" and "wake" in a.get("class", "").split()]
    if len(i) != 1:
        fail("hovering %d's interval at %d drew %d arrows, not 1" % (tid, t, len(i)))
        return
    g, line = dom.elements[i[0]][1], None
    for tag, a, _ in dom.elements[i[0] + 1:]:
        if tag == "line":
            line = a
            break
    wake, run = row[0] - origin, (nxt[0] or row[0]) - origin
    if int(g["data-wake-t"]) != wake or int(g["data-run-t"]) != run:
        fail("the arrow goes from %s to %s, not from the wake-up at %d to the run at %d"
             % (g["data-wake-t"], g["data-run-t"], wake, run))
    src = lane_box(dom, "thread", "tid", row[1]) if row[1] and row[1] > 0 else None
    want_from = "tid:%d" % row[1]
    if src is None:
        src, want_from = lane_box(dom, "cpu", "cpu", row[2]), "cpu:%d" % row[2]
    dst = lane_box(dom, "thread", "tid", tid)
    if g["data-from"] != want_from or src is None or dst is None:
        fail("the arrow starts at %s, not at the waker's lane %s"
             % (g["data-from"], want_from))
        return
    def x_of(ts):
        return x0 + (ts - v0) * width / (v1 - v0)
    if abs(float(line["x1"]) - x_of(wake)) > 0.011 or abs(float(line["x2"]) - x_of(run)) > 0.011:
        fail("the arrow runs from x=%s to x=%s, not %.2f to %.2f"
             % (line["x1"], line["x2"], x_of(wake), x_of(run)))
    if not src[0] <= float(line["y1"]) <= src[1] or not dst[0] <= float(line["y2"]) <= dst[1]:
        fail("the arrow runs from y=%s to y=%s, not from the lane %s to the lane %s"
             % (line["y1"], line["y2"], src, dst))


def check_held(dom, D, dbpath, sess, held):
    """CPU's lane shows TID holding it, as recorded, inside a wait that
    ran_instead says TID held the CPU in."""
    cpu, tid = held
    origin = int(D["origin_ns"])
    svg = [a for tag, a, _ in dom.elements if tag == "svg" and a.get("id") == "fl-plot"][0]
    ns_px = (int(svg["data-view-to"]) - int(svg["data-view-from"])) / float(svg["data-width"])
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    waits = [(ts - origin, dur) for ts, dur in db.execute(
        "SELECT x.ts, x.dur FROM ran_instead r JOIN thread_state x ON x.session_id ="
        " r.session_id AND x.tid = r.tid AND x.ts = r.ts WHERE r.session_id = ?"
        " AND r.cpu = ? AND r.ran_tid = ?", (sess, cpu, tid))]
    spans = [(int(a["data-t"]), float(a["width"]) * ns_px) for tag, a, lane in dom.elements
             if tag == "rect" and "held" in a.get("class", "").split() and lane and
             lane.get("data-cpu") == str(cpu) and a.get("data-tid") == str(tid) and
             a.get("data-n") == "1"]
    inside = [s for s in spans if any(w0 - ns_px <= s[0] and s[0] + s[1] <= w0 + d + ns_px
                                      for w0, d in waits)]
    if not waits or not inside:
        fail("cpu %d's lane shows %d spans of %d holding it, none inside one of its %d "
             "waits" % (cpu, len(spans), tid, len(waits)))


def check_inputs(dom, D, view, inputs):
    svg = [a for tag, a, _ in dom.elements if tag == "svg" and a.get("id") == "fl-plot"][0]
    body = [a for tag, a, _ in dom.elements if tag == "body"][0]
    want = after_inputs(D, view, inputs, float(svg["data-width"]))
    got = (int(svg["data-view-from"]), int(svg["data-view-to"]))
    if abs(got[0] - want[0]) > 1 or abs(got[1] - want[1]) > 1:
        fail("after %s the view is %d,%d, not %d,%d" % (inputs, *got, *want))
    full = want == (0, max(D["span_ns"], 1))
    hash_want = "" if full else "#view=%d,%d" % got
    if body.get("data-hash", "") != hash_want:
        fail("after %s the address ends in %r, not %r"
             % (inputs, body.get("data-hash", ""), hash_want))


def check_browser(page, dbpath, sess, view, folds, png, inputs=None, hover=None,
                  held=None):
    D = page_data(page)
    scratch = tempfile.mkdtemp(prefix="faultline-plot-check.")
    try:
        if inputs or hover:
            page = with_inputs(page, inputs, hover, scratch)
        url = "file://" + os.path.abspath(page)
        parts = (["view=%d,%d" % view] if view else []) + \
            (["fold=" + ",".join(map(str, folds))] if folds else [])
        if parts:
            url += "#" + "&".join(parts)
        netlog = os.path.join(scratch, "net.json")
        r = chromium(["--log-net-log=" + netlog, "--dump-dom", url], scratch)
        if r is None:
            return
        for line in r.stderr.splitlines():
            if ":CONSOLE" in line:
                fail("console: " + line)
        for u in page_requests(netlog, url):
            fail("the page requested " + u)
        if 'data-ready-ms="' not in r.stdout:
            fail("the page's script did not finish (no data-ready-ms); Chromium said:\n"
                 + r.stderr[-2000:])
            return
        dom = Dom()
        dom.feed(r.stdout)
        if inputs:
            check_inputs(dom, D, view, inputs)
            svg = [a for tag, a, _ in dom.elements if tag == "svg"
                   and a.get("id") == "fl-plot"][0]
            view = (int(svg["data-view-from"]), int(svg["data-view-to"]))
            if view == (0, max(D["span_ns"], 1)):
                view = None     # back to the whole window
        check_dom(dom, D, dbpath, sess, view, set(folds), dom.text)
        if hover:
            check_hover(dom, D, dbpath, sess, hover)
        if held:
            check_held(dom, D, dbpath, sess, held)
        if png:
            r = chromium(["--screenshot=" + os.path.abspath(png), url], scratch)
            if not os.path.exists(png) or os.path.getsize(png) < 10000:
                fail("no picture in %s: %s" % (png, r.stderr[-1000:]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ---- svg ----------------------------------------------------------------

def check_svg(path, dbpath, sess, all_threads):
    doc = xml.dom.minidom.parse(path)
    svg = doc.documentElement
    lo, hi = int(svg.getAttribute("data-from-ns")), int(svg.getAttribute("data-to-ns"))
    lanes = {int(g.getAttribute("data-tid")) for g in doc.getElementsByTagName("g")
             if g.getAttribute("data-tid")}
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    cpus = [int(g.getAttribute("data-cpu")) for g in doc.getElementsByTagName("g")
            if g.getAttribute("data-cpu")]
    if cpus != cpus_of(db, sess, lo, hi):
        fail("CPU lanes %s in the picture, but the targets ran on or waited for %s"
             % (cpus, cpus_of(db, sess, lo, hi)))
    check_idle(lanes, int(svg.getAttribute("data-idle-hidden")), all_threads,
               db, sess, lo, hi)
    if not [g for g in doc.getElementsByTagName("g") if "legend" in g.getAttribute("class")]:
        fail("no legend in the picture")
    if not doc.getElementsByTagName("rect"):
        fail("no marks in the picture")


def main(argv):
    if len(argv) >= 3 and argv[0] == "get":
        D = page_data(argv[1])
        print(json.dumps(eval(argv[2], {"D": D})))
        return 0
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    mode, path, dbpath, sess = argv[0], argv[1], argv[2], int(argv[3])
    view, png, folds, all_threads, rest = None, None, [], False, argv[4:]
    inputs, hover, held = None, None, None
    while rest:
        if rest[0] == "--all-threads":
            all_threads = True
            rest = rest[1:]
            continue
        if rest[0] == "--view":
            view = tuple(int(x) for x in rest[1].split(","))
        elif rest[0] == "--fold":
            folds = rest[1].split(",")
        elif rest[0] == "--input":
            inputs = rest[1].split(",")
        elif rest[0] == "--hover":
            hover = tuple(int(x) for x in rest[1].split(":"))
        elif rest[0] == "--held":
            held = tuple(int(x) for x in rest[1].split(":"))
        elif rest[0] == "--png":
            png = rest[1]
        rest = rest[2:]
    if mode == "data":
        check_data(path, dbpath, sess)
    elif mode == "browser":
        check_browser(path, dbpath, sess, view, folds, png, inputs, hover, held)
    elif mode == "svg":
        check_svg(path, dbpath, sess, all_threads)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    if FAILED:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
