#!/usr/bin/env python3
"""Checks a faultline export against the database it came from.

    export_check.py chrome-trace TRACE.json DB SESSION [MIN_FAULT_NS]
        Parses the trace with a JSON parser (numbers as exact decimals)
        and compares it with DB: every state interval and every fault as
        a complete event of its thread with ts and dur exact (to the ns,
        so to the microsecond), every unfinished fault, tracepoint hit and
        timed loss as an instant, every metric point (sampled or imported)
        as a counter event in time order, the threads' names; every
        event's stack ("sf", a frame of the stackFrames tree) as the
        database names that stack's frames, each frame written once; every
        wake-up by a thread with a track as a flow from the waker's track
        to the woken interval; and every thread's complete events properly
        nested.  With MIN_FAULT_NS, only the completed faults at least that
        long.
    export_check.py csv DIR DB SESSION
        Reads every DIR/TABLE.csv with a CSV parser and compares it with
        the session's rows of that table, column by column.

Prints what failed and exits 1; prints "ok" and exits 0 when all holds.
"""
import collections
import csv
import decimal
import json
import os
import sqlite3
import sys

FAILED = []
TID_BASE = 1 << 30


def fail(msg):
    FAILED.append(msg)
    print("FAIL: " + msg)


def compare(what, got, want):
    got, want = sorted(got), sorted(want)
    if got == want:
        return
    g, w = collections.Counter(got), collections.Counter(want)
    missing, extra = list((w - g).elements()), list((g - w).elements())
    fail("%s: %d in the export, %d in the database; missing %s; extra %s"
         % (what, len(got), len(want), missing[:3], extra[:3]))


def no_constant(name):
    raise ValueError("not JSON: " + name)


def ns(us):
    """A trace time (us, a Decimal) as integer ns; it must be exact."""
    v = us * 1000
    if v != v.to_integral_value():
        fail("time %s us is not a whole ns" % us)
    return int(v)


def check_nesting(events):
    by_track = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_track[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["dur"])))
    for track, xs in by_track.items():
        xs.sort(key=lambda x: (x[0], -x[1]))
        open_ends = []
        for ts, dur in xs:
            while open_ends and open_ends[-1] <= ts:
                open_ends.pop()
            if open_ends and ts + dur > open_ends[-1]:
                fail("track %s: the event at %d overlaps the one before without "
                     "nesting in it" % (track, ts))
                return
            open_ends.append(ts + dur)


def check_trace(path, dbpath, sess, min_fault):
    with open(path, encoding="utf-8") as f:
        d = json.load(f, parse_float=decimal.Decimal, parse_constant=no_constant)
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    start, end = db.execute("SELECT start_ts, coalesce(end_ts, start_ts) FROM session"
                            " WHERE session_id = ?", (sess,)).fetchone()
    other = d["otherData"]
    if int(other["origin_realtime_ns"]) != start or other["session"] != sess:
        fail("otherData says session %s from %s, not %d from %d"
             % (other["session"], other["origin_realtime_ns"], sess, start))
    ev = d["traceEvents"]
    rel = lambda e: ns(e["ts"]) + start

    compare("state intervals",
            [(e["tid"], rel(e), ns(e["dur"]), e["name"]) for e in ev
             if e["ph"] == "X" and e.get("cat") == "state"],
            db.execute("SELECT tid, ts, dur, state FROM thread_state"
                       " WHERE session_id = ?", (sess,)).fetchall())
    compare("faults",
            [(e["tid"] - TID_BASE, rel(e), ns(e["dur"]), e["name"],
              int(e["args"]["addr"], 16)) for e in ev
             if e["ph"] == "X" and e.get("cat") == "fault"],
            [(t, ts, dur, kind + " fault", addr & (2**64 - 1)) for t, ts, dur, kind, addr in
             db.execute("SELECT tid, ts, dur, kind, addr FROM fault WHERE session_id = ?"
                        " AND dur >= ?", (sess, min_fault))])
    if int(other["min_fault_duration_ns"]) != min_fault:
        fail("otherData says min_fault_duration_ns %s, not %d"
             % (other["min_fault_duration_ns"], min_fault))
    compare("unfinished faults",
            [(e["tid"] - TID_BASE, rel(e)) for e in ev
             if e["ph"] == "i" and e.get("cat") == "fault"],
            db.execute("SELECT tid, ts FROM fault WHERE session_id = ? AND dur IS NULL",
                       (sess,)).fetchall())
    compare("tracepoint hits",
            [(e["tid"], rel(e), e["name"]) for e in ev if e.get("cat") == "tracepoint"],
            db.execute("SELECT tid, ts, name FROM tracepoint_event WHERE session_id = ?",
                       (sess,)).fetchall())
    compare("timed losses",
            [(rel(e), e["args"].get("cpu"), e["args"]["count"]) for e in ev
             if e.get("cat") == "lost"],
            db.execute("SELECT ts, cpu, count FROM lost WHERE session_id = ?"
                       " AND ts IS NOT NULL", (sess,)).fetchall())
    check_metrics(db, sess, start, end, ev, rel)
    check_names(db, sess, ev)
    check_nesting(ev)
    check_stacks(db, sess, d.get("stackFrames", {}), ev)
    check_flows(db, sess, ev, rel)


def check_stacks(db, sess, frames, ev):
    """Every event with a stack_id names it by "sf", whose chain of
    parents spells the stack's frames, innermost first; no frame is
    written twice (same name, same parent)."""
    seen = set()
    for fid, f in frames.items():
        key = (f.get("parent"), f["name"])
        if key in seen:
            fail("frame %s (%r under %s) is written twice" % (fid, f["name"], key[0]))
        seen.add(key)
        if "parent" in f and f["parent"] not in frames:
            fail("frame %s has parent %s, not in stackFrames" % (fid, f["parent"]))
    want = {}
    for sid, name in db.execute("SELECT stack_id, name FROM stack_frame_name"
                                " WHERE session_id = ? ORDER BY stack_id, depth, idx",
                                (sess,)):
        want.setdefault(sid, []).append(name)
    for e in ev:
        sid = e.get("args", {}).get("stack_id") if isinstance(e.get("args"), dict) else None
        if sid is None:
            if "sf" in e:
                fail("an event has sf %s but no stack_id" % e["sf"])
            continue
        got, node = [], str(e.get("sf"))
        while node in frames and len(got) < 10000:
            got.append(frames[node]["name"])
            node = frames[node].get("parent")
        if got != want.get(sid, []):
            fail("stack %d: the trace's frames %s, the database's %s"
                 % (sid, got[:4], want.get(sid, [])[:4]))
            return


def check_flows(db, sess, ev, rel):
    """A wake-up by a thread with a track: "s" on the waker's track at
    the end of the woken-from interval, "f" (bp e) on the woken thread's
    track 1 ns later, one id; no other flow."""
    tracks = {e["tid"] for e in ev if e["ph"] == "X" and e.get("cat") == "state"}
    starts = {e["id"]: (e["tid"], rel(e)) for e in ev if e["ph"] == "s"}
    ends = {e["id"]: (e["tid"], rel(e), e.get("bp")) for e in ev if e["ph"] == "f"}
    want_s, want_f = {}, {}
    for rowid, tid, end, waker in db.execute(
            "SELECT rowid, tid, ts + dur, waker_tid FROM thread_state"
            " WHERE session_id = ? AND waker_tid > 0", (sess,)):
        if waker in tracks:
            want_s[rowid] = (waker, end)
            want_f[rowid] = (tid, end + 1, "e")
    compare("wake-up flow starts", list(starts.items()), list(want_s.items()))
    compare("wake-up flow ends", list(ends.items()), list(want_f.items()))


def series_name(name, labels):
    return name if labels == "{}" else name + " " + labels


def finite(v):
    return v == v and v not in (float("inf"), float("-inf"))


def check_metrics(db, sess, start, end, ev, rel):
    for sid, name, labels in db.execute(
            "SELECT series_id, name, labels FROM metric_series"
            " WHERE session_id = ? OR session_id IS NULL", (sess,)).fetchall():
        want = [(ts, v) for ts, v in db.execute(
            "SELECT ts, value FROM metric WHERE series_id = ? AND ts BETWEEN ? AND ?"
            " ORDER BY ts", (sid, start, end)) if finite(v)]
        got = [(rel(e), float(list(e["args"].values())[0])) for e in ev
               if e["ph"] == "C" and e.get("cat") == "metric"
               and e["name"] == series_name(name, labels)]
        if got != want:
            fail("metric %s: the export's %d points (in file order) are not the "
                 "database's %d in time order" % (name, len(got), len(want)))


def check_names(db, sess, ev):
    names = {e["tid"]: e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    for tid, comm in db.execute(
            "SELECT tid, comm FROM thread t WHERE session_id = ? AND first_ts ="
            " (SELECT max(first_ts) FROM thread u WHERE u.session_id = t.session_id"
            "  AND u.tid = t.tid)", (sess,)):
        if names.get(tid) != comm:
            fail("thread %d is named %r, not %r" % (tid, names.get(tid), comm))
        if names.get(tid + TID_BASE) != "%s %d faults" % (comm[:32], tid):
            fail("thread %d's fault track is named %r" % (tid, names.get(tid + TID_BASE)))


# ---- csv ----------------------------------------------------------------

WHERE = {
    "metric_series": "WHERE session_id = ?1 OR (session_id IS NULL AND EXISTS (SELECT 1"
                     " FROM metric m WHERE m.series_id = metric_series.series_id"
                     " AND m.ts BETWEEN ?2 AND ?3))",
    "metric": "WHERE series_id IN (SELECT series_id FROM metric_series WHERE"
              " session_id = ?1 OR session_id IS NULL) AND ts BETWEEN ?2 AND ?3",
}


def norm(s):
    """One text for one value, whichever side wrote it: 12, 12.0 and "12"
    read the same, as do 0.1 and 0.10000000000000001."""
    try:
        return str(int(s))
    except ValueError:
        pass
    try:
        f = float(s)
    except ValueError:
        return s
    return str(int(f)) if f.is_integer() and abs(f) < 2**53 else repr(f)


def cell(v):
    if v is None:
        return ""
    # A text that begins like a spreadsheet formula is written with a
    # single quote first (common/csv.h); a number never is.
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return norm(repr(v) if isinstance(v, float) else str(v))


def check_csv(dirpath, dbpath, sess):
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    start, end = db.execute("SELECT start_ts, coalesce(end_ts, start_ts) FROM session"
                            " WHERE session_id = ?", (sess,)).fetchone()
    tables = [t for (t,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    files = sorted(f[:-4] for f in os.listdir(dirpath) if f.endswith(".csv"))
    if files != sorted(tables):
        fail("files %s, tables %s" % (files, sorted(tables)))
    for t in tables:
        path = os.path.join(dirpath, t + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        has_session = any(c[1] == "session_id" for c in db.execute(
            "SELECT * FROM pragma_table_info(?)", (t,)))
        where = WHERE.get(t, "WHERE session_id = ?1" if has_session else "")
        cur = db.execute('SELECT * FROM "%s" %s' % (t, where),
                         (sess, start, end)[:3 if t in WHERE else 1 if where else 0])
        cols = [c[0] for c in cur.description]
        if rows[0] != cols:
            fail("%s.csv: header %s, columns %s" % (t, rows[0], cols))
        compare("%s.csv rows" % t, [tuple(norm(x) for x in r) for r in rows[1:]],
                [tuple(cell(v) for v in r) for r in cur])


def main(argv):
    if len(argv) not in (4, 5) or argv[0] not in ("chrome-trace", "csv"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "chrome-trace":
        check_trace(argv[1], argv[2], int(argv[3]), int(argv[4]) if len(argv) > 4 else 0)
    else:
        check_csv(argv[1], argv[2], int(argv[3]))
    if FAILED:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
