#!/usr/bin/env python3
"""Checks faultline stacks' folded, JSON and CSV output against the database.

    stacks_check.py folded FILE DB SESSION count|time
        Parses each line as flamegraph.pl does (the number after the last
        space, the frames before it split at ';') and holds the numbers to
        the database: with count, they add up to the events that carry a
        stack; with time, each is its stack's time in microseconds,
        rounded, and they add up to the sum of those.  A line per stack;
        as many lines begin with "[cut short]" as stacks are cut short.
    stacks_check.py json FILE DB SESSION [MANGLED=DEMANGLED...]
        Parses the document and holds every stack's numbers and frames to
        the database (stack_frame_name, stack_shown); each MANGLED symbol
        shown is shown demangled as DEMANGLED.
    stacks_check.py csv FILE DB SESSION
        Reads the file with a CSV parser: a row per function at each frame
        of each stack shown, as the database has them.

Every stack of the session's events counts (--kind all, no minimum).
Prints what failed and exits 1; prints "ok" and exits 0 when all holds.
"""
import csv
import json
import sqlite3
import sys

FAILED = []

EVENTS = """
    SELECT stack_id, dur FROM (
      SELECT stack_id, coalesce(dur, 0) AS dur FROM fault
       WHERE session_id = :s AND stack_id IS NOT NULL
      UNION ALL
      SELECT stack_id, dur FROM thread_state
       WHERE session_id = :s AND stack_id IS NOT NULL)"""


def fail(msg):
    FAILED.append(msg)
    print("FAIL: " + msg)


def per_stack(db, session):
    """stack_id -> (events, total ns)."""
    out = {}
    for sid, dur in db.execute(EVENTS, {"s": session}):
        n, t = out.get(sid, (0, 0))
        out[sid] = (n + 1, t + dur)
    return out


def cut_stacks(db, session):
    return {sid for (sid,) in db.execute(
        "SELECT stack_id FROM stack_shown WHERE session_id = ? AND truncated "
        "IS NOT NULL", (session,))}


def frames(db, session, sid):
    return db.execute(
        "SELECT depth, function, name FROM stack_frame_name WHERE session_id = ?"
        " AND stack_id = ? ORDER BY depth, idx", (session, sid)).fetchall()


def check_folded(path, db, session, unit):
    stacks = per_stack(db, session)
    cut = cut_stacks(db, session) & set(stacks)
    total = 0
    lines = 0
    cut_lines = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            stack, _, value = line.rpartition(" ")
            if not stack or not value.isdigit():
                fail("not a folded line: %r" % line)
                continue
            lines += 1
            total += int(value)
            cut_lines += stack.startswith("[cut short]")
            if "0x76616a2f6d766a2f" in stack:
                fail("a frame the walk made up is shown: %r" % line)
    if unit == "count":
        want = sum(n for n, _ in stacks.values())
    else:
        want = sum((t + 500) // 1000 for _, t in stacks.values())
    if total != want:
        fail("the folded %s adds up to %d, the database to %d" % (unit, total, want))
    if lines != len(stacks):
        fail("%d folded lines for %d stacks" % (lines, len(stacks)))
    if cut_lines != len(cut):
        fail("%d lines cut short for %d stacks" % (cut_lines, len(cut)))


def check_json(path, db, session, demangled):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    stacks = per_stack(db, session)
    cut = cut_stacks(db, session)
    if doc["session"] != session:
        fail("session %r" % doc["session"])
    if doc["events"] != sum(n for n, _ in stacks.values()):
        fail("events %r" % doc["events"])
    if doc["distinct_stacks"] != len(stacks):
        fail("distinct_stacks %r" % doc["distinct_stacks"])
    seen = set()
    for s in doc["stacks"]:
        sid = s["stack_id"]
        if (s["events"], s["total_ns"]) != stacks.get(sid):
            fail("stack %d: %r events, %r ns" % (sid, s["events"], s["total_ns"]))
        if s["cut_short"] != (sid in cut) or (s["truncated"] is None) == s["cut_short"]:
            fail("stack %d: cut_short %r, truncated %r" % (sid, s["cut_short"], s["truncated"]))
        want = frames(db, session, sid)
        got = [(f["depth"], f["symbol"], f["name"]) for f in s["frames"]]
        if len(got) != len(want) or any(g[0] != w[0] or g[1] != w[1] for g, w in zip(got, want)):
            fail("stack %d: frames %r, the database %r" % (sid, got, want))
        for f in s["frames"]:
            if f["symbol"] in demangled:
                seen.add(f["symbol"])
                if f["function"] != demangled[f["symbol"]] or \
                   f["name"] != demangled[f["symbol"]]:
                    fail("%s shown as %r" % (f["symbol"], f["function"]))
    for sym in demangled:
        if sym not in seen:
            fail("no frame of %s among the stacks shown" % sym)


def check_csv(path, db, session):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    want = 0
    for sid in {int(r["stack_id"]) for r in rows}:
        want += len(frames(db, session, sid))
        got = [r for r in rows if int(r["stack_id"]) == sid]
        symbols = [r["symbol"] or None for r in got]
        if symbols != [w[1] for w in frames(db, session, sid)]:
            fail("stack %d: symbols %r" % (sid, symbols))
    if len(rows) != want:
        fail("%d rows for %d frames" % (len(rows), want))


def main(argv):
    mode, path, dbpath, session = argv[1], argv[2], argv[3], int(argv[4])
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    if mode == "folded":
        check_folded(path, db, session, argv[5])
    elif mode == "json":
        check_json(path, db, session, dict(a.split("=", 1) for a in argv[5:]))
    elif mode == "csv":
        check_csv(path, db, session)
    else:
        fail("unknown mode %r" % mode)
    if FAILED:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
