/*
 * faultline plot: draws the timeline held in <script id="fl-data"> as SVG
 * (embedded by plot/html.c, which documents the data's layout).
 *
 * Every time in the data is ns relative to D.origin_ns (a CLOCK_REALTIME
 * ns count, as text: a double cannot hold it).  The view [v0, v1] is a
 * part of [0, D.span_ns]; each render merges again what is shorter than
 * one pixel of the view, by the rules of plot/reduce.c, so the page never
 * holds more than a few elements a pixel.  Every drawn item carries
 * data-t (its start, ns from the origin); the <svg> carries data-x0,
 * data-width, data-view-from and data-view-to, so x = x0 + (t - from) *
 * width / (to - from) can be checked.
 */
(function () {
"use strict";

var tParse = performance.now();
var D = JSON.parse(document.getElementById("fl-data").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
/* The layout; plot/layout.h holds the same numbers for the SVG writer. */
var L = { left: 210, right: 20, axis: 34, threadH: 44, metricH: 60, gap: 6, procH: 20,
	  stateY: 22, stateH: 14, faultTop: 3, faultH: 17, evY: 37, evH: 6,
	  cpuH: 26, ranY: 3, ranH: 12, heldY: 17, heldH: 7 };
var MERGED = 4, UNCERTAIN = 1, PREEMPTED = 2;
var root = document.getElementById("fl-root");
var t0 = performance.now();

/* ---- time --------------------------------------------------------------- */

var originStr = String(D.origin_ns);
var neg = originStr.charAt(0) === "-";
var digits = (neg ? originStr.slice(1) : originStr);
while (digits.length < 10) digits = "0" + digits;
var originSec = Number(digits.slice(0, -9)) * (neg ? -1 : 1);
var originFrac = Number(digits.slice(-9)) * (neg ? -1 : 1);
var DAY_NS = 86400e9;

function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }

/* Time of day, UTC, of offset t (ns), to `places` decimals (<= 9). */
function tod(t, places) {
	var ns = (((originSec % 86400) * 1e9 + originFrac + t) % DAY_NS + DAY_NS) % DAY_NS;
	var s = Math.floor(ns / 1e9), frac = ns - s * 1e9;
	var out = pad(Math.floor(s / 3600), 2) + ":" + pad(Math.floor(s / 60) % 60, 2) +
		  ":" + pad(s % 60, 2);
	if (places > 0)
		out += "." + pad(Math.floor(frac), 9).slice(0, places);
	return out;
}

function dateOf(t) {
	var ms = originSec * 1000 + Math.floor((originFrac + t) / 1e6);
	return new Date(ms).toISOString().slice(0, 10);
}

function dur(ns) {
	if (ns == null) return "?";
	var a = Math.abs(ns);
	if (a < 1e3) return ns + " ns";
	if (a < 1e6) return (ns / 1e3).toPrecision(4).replace(/\.?0+$/, "") + " µs";
	if (a < 1e9) return (ns / 1e6).toPrecision(4).replace(/\.?0+$/, "") + " ms";
	return (ns / 1e9).toPrecision(5).replace(/\.?0+$/, "") + " s";
}

function num(v) {
	if (v == null) return "?";
	if (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3)) return v.toExponential(3);
	return String(Math.round(v * 1000) / 1000);
}

function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

/* ---- data ---------------------------------------------------------------- */

function byT(a, b) { return a[0] - b[0]; }
var threads = D.threads || [], metrics = D.metrics || [], cpus = D.cpus || [];
threads.forEach(function (th) { th.f.sort(byT); });

/* The thread lanes by process (both come by pid), each process a fold:
 * { pid, comm, idle (threads not drawn), threads: [lane...] }. */
var groups = (D.processes || []).map(function (p) {
	return { pid: p.pid, comm: p.comm, idle: p.idle, threads: [] };
});
threads.forEach(function (th) {
	var g = groups.filter(function (x) { return x.pid === th.pid; })[0];
	if (!g) { g = { pid: th.pid, comm: th.comm, idle: 0, threads: [] }; groups.push(g); }
	g.threads.push(th);
});
var folded = {};	/* pid, or "cpus": true while its fold is closed */

/* ---- DOM helpers -------------------------------------------------------- */

function el(tag, attrs, parent) {
	var e = document.createElementNS(SVGNS, tag);
	for (var k in attrs) e.setAttribute(k, attrs[k]);
	if (parent) parent.appendChild(e);
	return e;
}

function html(tag, text, parent, cls) {
	var e = document.createElement(tag);
	if (text != null) e.textContent = text;
	if (cls) e.className = cls;
	if (parent) parent.appendChild(e);
	return e;
}

function r2(x) { return Math.round(x * 100) / 100; }

/* ---- the page around the plot ------------------------------------------- */

function header() {
	document.title = "faultline: session " + D.session + " of " + D.db +
		" (" + tod(0, 3) + " UTC)";
	html("h1", "faultline plot: session " + D.session + " of " + D.db, root);
	html("p", "host " + D.host + " · " + D.command, root, "meta");
	windowLine = html("p", "", root, "meta");
	windowLine.id = "fl-window";
	html("p", "Drag across the plot, or Ctrl + wheel, or + and \u2212, to zoom in " +
	     "and out; Shift + wheel, or \u2190 and \u2192, to move along; " +
	     "double-click to go back, Esc for the whole window; click a process " +
	     "to fold or unfold its threads (or the CPUs header, the CPU lanes); hover " +
	     "for the row, and over an interval a wake-up ended for an arrow from what " +
	     "woke it to where the thread next ran. Times are UTC, wall " +
	     "clock (CLOCK_REALTIME)." + (D.idle_hidden ? " " + thousands(D.idle_hidden) +
	     " idle threads (no fault, no stall of 1 ms or more in the window) have no " +
	     "lane: plot with --all-threads to draw them." : ""), root, "hint");
	legend();
}

function swatch(parent, draw, label) {
	var span = html("span", null, parent);
	var s = el("svg", { width: 18, height: 14 }, span);
	draw(s);
	html("span", label, span);
}

var windowLine;

/* The header's line for the view: what is shown, and of what. */
function windowText() {
	var whole = view.v0 === full.v0 && view.v1 === full.v1;
	return (whole ? "Window " : "View ") + dateOf(view.v0) + " " + tod(view.v0, 6) +
		" to " + tod(view.v1, 6) + " UTC (" + dur(view.v1 - view.v0) + ")" +
		(whole ? "" : " of the window " + tod(0, 6) + " to " + tod(D.span_ns, 6) +
		 " (" + dur(D.span_ns) + ")") + "; the session ran " +
		tod(D.session_start, 6) + " to " + tod(D.session_end, 6) + ".";
}

function legend() {
	var box = html("div", null, root, "legend");
	D.states.forEach(function (name, i) {
		swatch(box, function (s) {
			el("rect", { x: 1, y: 2, width: 16, height: 10, fill: D.state_colors[i] }, s);
		}, name);
	});
	swatch(box, function (s) { el("rect", { x: 4, y: 1, width: 6, height: 12, fill: "#b00000" }, s); },
	       "major fault (height: duration, log scale)");
	swatch(box, function (s) { el("rect", { x: 4, y: 5, width: 6, height: 8, fill: "#ff8c1a" }, s); },
	       "minor fault");
	swatch(box, function (s) {
		el("rect", { x: 4, y: 3, width: 6, height: 9, fill: "#fff", stroke: "#b00000" }, s);
	}, "unfinished fault");
	swatch(box, function (s) { el("line", { x1: 9, x2: 9, y1: 2, y2: 13, stroke: "#7b3fa0", "stroke-width": 1.5 }, s); },
	       "tracepoint hit");
	swatch(box, function (s) { el("line", { x1: 9, x2: 9, y1: 2, y2: 13, stroke: "#0b7a75", "stroke-width": 2 }, s); },
	       "metric event");
	if (cpus.length) {
		swatch(box, function (s) {
			el("rect", { x: 1, y: 2, width: 8, height: 7, fill: threadColor(40) }, s);
			el("rect", { x: 9, y: 2, width: 8, height: 7, fill: threadColor(200) }, s);
		}, "CPU lane: a target running (colour: its thread)");
		swatch(box, function (s) {
			el("rect", { x: 1, y: 7, width: 10, height: 5, fill: threadColor(300), opacity: 0.8 }, s);
			el("rect", { x: 11, y: 7, width: 6, height: 5, fill: threadColor(0) }, s);
		}, "under it: who held the CPU while a target waited (shares of the wait, " +
		   "not exact placement; grey: idle)");
	}
	swatch(box, function (s) {
		el("line", { x1: 2, x2: 15, y1: 11, y2: 3, stroke: "#c2185b", "stroke-width": 1.5 }, s);
	}, "wake-up (hover a woken interval)");
	swatch(box, function (s) { el("rect", { x: 1, y: 1, width: 16, height: 12, fill: "#ccc", stroke: "#888" }, s); },
	       "records lost");
}

function notes() {
	var c = D.counts, box = html("div", null, root, "notes");
	html("p", "Reduced for drawing, at one column = " + dur(D.quantum_ns) + " (" +
	     thousands(D.width) + " px × zoom " + D.zoom + "): " +
	     thousands(c.states_in) + " state intervals drawn as " + thousands(c.states_out) +
	     " (runs of intervals shorter than a column merged into one block, coloured by " +
	     "the state it spent most time in; hover lists them all); " +
	     thousands(c.faults_in) + " faults drawn as " + thousands(c.faults_kept) +
	     " single faults and " + thousands(c.fault_merges) + " merges (every fault of " +
	     dur(D.keep_fault_ns) + " or more, and every unfinished one, is drawn as " +
	     "recorded; shorter ones within a column merge, per kind, with their count, " +
	     "longest and total); " + thousands(c.events_in) + " tracepoint hits as " +
	     thousands(c.events_out) + "; " + thousands(c.points_in) + " metric points as " +
	     thousands(c.points_out) + (cpus.length ? "; on the CPU lanes, " +
	     thousands(c.ran_in) + " running intervals as " + thousands(c.ran_out) +
	     " and " + thousands(c.held_in) + " shares of waits as " + thousands(c.held_out) : "") +
	     ". The page merges again whatever is shorter than a pixel of the view.", box);
	if (cpus.length)
		html("p", "CPU lanes: for each CPU a target ran on, its running intervals " +
		     "(top band, coloured by thread) and, under them, during each wait of a " +
		     "target for that CPU, the threads that held it (ran_instead). The " +
		     "recording keeps only each holder's total in a wait, so the band shows " +
		     "shares of the wait, longest first and ending with it, not exact placement.",
		     box);
	html("p", "Grey hatched band: a CPU's ring lost records (the kernel's loss " +
	     "report, the lost table): from the last record stored from that CPU to " +
	     "the report, what any thread did is not fully known, so a quiet stretch " +
	     "there is not idleness. Hatching on a state: the interval was built " +
	     "across missing records (thread_state.uncertain); it may hide a change." +
	     (c.lost_untimed ? " " + thousands(c.lost_untimed) + " loss reports carry " +
	      "no time and are not drawn." : ""), box);
	var p = html("p", "For every row of the view as recorded: ", box);
	replot = html("code", "", p);
}
var replot;

/* ---- merging to pixels (plot/reduce.c's rules) --------------------------- */

function mergeStates(items, v0, v1, q) {
	var out = [], blk = null;
	function flush() { if (blk) out.push(blk); blk = null; }
	for (var i = 0; i < items.length; i++) {
		var it = items[i], t = it[0], d = it[1];
		if (t + d <= v0 || t >= v1) continue;
		if (d >= q) { flush(); out.push({ t: t, d: d, st: it[2], fl: it[3], n: it[3] & MERGED ? it[4] : 1, it: it }); continue; }
		var ns = it[3] & MERGED ? it[5] : null;
		if (!blk) blk = { t: t, d: d, st: it[2], fl: it[3], n: 0, ns: [0, 0, 0, 0, 0, 0, 0], it: it };
		else { blk.d = Math.max(blk.t + blk.d, t + d) - blk.t; blk.fl |= it[3] | MERGED; blk.it = null; }
		blk.n += it[3] & MERGED ? it[4] : 1;
		if (ns) for (var k = 0; k < ns.length; k++) blk.ns[k] += ns[k];
		else blk.ns[it[2]] += d;
		if (blk.d >= q) flush();
	}
	flush();
	out.forEach(function (b) {
		if (!b.ns) return;
		var best = 0;
		for (var k = 1; k < b.ns.length; k++) if (b.ns[k] > b.ns[best]) best = k;
		if (!b.it) b.st = best;
	});
	return out;
}

function keptFault(f) { return f[3] === 1 && (f[2] === 2 || f[1] >= D.keep_fault_ns); }

function mergeFaults(items, v0, v1, q) {
	var out = [], open = [null, null, null];
	for (var i = 0; i < items.length; i++) {
		var f = items[i], t = f[0], d = f[1];
		if (t + d < v0 || t > v1) continue;
		if (keptFault(f)) { out.push({ t: t, d: d, k: f[2], n: 1, max: d, total: d, it: f }); continue; }
		var g = open[f[2]], n = f[3], max = n > 1 ? f[4] : d, total = n > 1 ? f[5] : d;
		if (g && t - g.t >= q) { out.push(g); g = null; }
		if (!g) { open[f[2]] = { t: t, d: d, k: f[2], n: n, max: max, total: total, it: n === 1 ? f : null }; continue; }
		g.n += n; g.it = null;
		g.d = Math.max(g.t + g.d, t + d) - g.t;
		g.max = Math.max(g.max, max); g.total += total;
	}
	open.forEach(function (g) { if (g) out.push(g); });
	return out;
}

/* Events and metric points: merged per column of the view. */
function mergePoints(items, v0, v1, q, isEvent) {
	var out = [], g = null;
	for (var i = 0; i < items.length; i++) {
		var p = items[i], t = p[0];
		if (t < v0 || t > v1) continue;
		var a = isEvent ? { t: t, n: p[2], name: p[1], span: p[2] > 1 ? p[3] : 0, differ: p[2] > 1 && p[4] }
			: p.length > 2 ? { t: t, n: p[2], span: p[1], min: p[3], max: p[4], first: p[5], last: p[6] }
			: { t: t, n: 1, span: 0, min: p[1], max: p[1], first: p[1], last: p[1] };
		a.it = a.n === 1 ? p : null;
		if (g && t - g.t >= q) { out.push(g); g = null; }
		if (!g) { g = a; continue; }
		g.n += a.n; g.it = null; g.span = t + a.span - g.t;
		if (isEvent) g.differ = g.differ || a.differ || a.name !== g.name;
		else { g.min = Math.min(g.min, a.min); g.max = Math.max(g.max, a.max); g.last = a.last; }
	}
	if (g) out.push(g);
	return out;
}

/* CPU spans (a lane's r or h): as mergeStates, named after the longest. */
function mergeCpu(items, v0, v1, q) {
	var out = [], blk = null;
	function flush() { if (blk) out.push(blk); blk = null; }
	for (var i = 0; i < items.length; i++) {
		var it = items[i], t = it[0], d = it[1], n = it[2], longest = n > 1 ? -1 : d;
		if (t + d <= v0 || t >= v1) continue;
		if (d >= q) { flush(); out.push({ t: t, d: d, n: n, tid: it[3], name: it[4], busy: n > 1 ? it[5] : d, it: it }); continue; }
		if (!blk) { blk = { t: t, d: d, n: n, tid: it[3], name: it[4], busy: n > 1 ? it[5] : d, it: it, longest: longest }; }
		else {
			blk.d = Math.max(blk.t + blk.d, t + d) - blk.t;
			blk.n += n; blk.busy += n > 1 ? it[5] : d; blk.it = null;
			if (longest > blk.longest) { blk.longest = longest; blk.tid = it[3]; blk.name = it[4]; }
		}
		if (blk.d >= q) flush();
	}
	flush();
	return out;
}

/* A thread's colour on the CPU lanes, as plot/svg.c's thread_color. */
function threadColor(tid) {
	if (tid <= 0) return tid === 0 ? "#d9d9d9" : "#8c8c8c";
	return "hsl(" + (tid * 137 % 360) + ",60%,50%)";
}

/* ---- drawing ------------------------------------------------------------- */

var full = { v0: 0, v1: Math.max(D.span_ns, 1) }, view = full, zooms = [];
var plotBox, svg, sel, plotW, lanes = [], lostHits = [], procHits = [], out;
/* Where each drawn lane's middle is, for the wake-up arrows: by tid, by
 * cpu, and each folded process's header by pid. */
var laneY = { tid: {}, cpu: {} };

function xOf(t) { return L.left + (t - view.v0) * plotW / (view.v1 - view.v0); }
function tOf(x) { return view.v0 + (x - L.left) * (view.v1 - view.v0) / plotW; }
function clampX(x) { return Math.max(L.left, Math.min(L.left + plotW, x)); }

/* The plot is built as markup and handed to the browser once: tens of
 * thousands of createElementNS/setAttribute calls take seconds. */
var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return ESC[c]; }); }

function put(tag, attrs, text) {
	var s = "<" + tag;
	for (var k in attrs) s += " " + k + '="' + esc(attrs[k]) + '"';
	out.push(text == null ? s + "/>" : s + ">" + esc(text) + "</" + tag + ">");
}

function defs() {
	out.push('<defs><pattern id="fl-hatch" width="6" height="6" patternUnits="userSpaceOnUse"' +
		' patternTransform="rotate(45)"><rect width="2.5" height="6" fill="rgba(0,0,0,0.45)"/>' +
		'</pattern><pattern id="fl-lost" width="8" height="8" patternUnits="userSpaceOnUse"' +
		' patternTransform="rotate(-45)"><rect width="8" height="8" fill="rgba(120,120,120,0.18)"/>' +
		'<rect width="3" height="8" fill="rgba(90,90,90,0.35)"/></pattern>' +
		'<marker id="fl-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"' +
		' markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#c2185b"/>' +
		'</marker></defs>');
}

/* A tick's label is centred on it unless that would run past the
 * plot's right edge: then it ends at the tick (11 px digits are about
 * 6.2 px wide). */
function labelAnchor(x, text) {
	return x + text.length * 3.1 > L.left + plotW + L.right - 2 ? "end" : "middle";
}

/* Ticks at round times of day: 1, 2 or 5 times a power of ten ns. */
function axis(height) {
	var span = view.v1 - view.v0, want = Math.max(2, Math.floor(plotW / 120)), step = 1;
	while (step * want < span) {
		if (step * 2 * want >= span) { step *= 2; break; }
		if (step * 5 * want >= span) { step *= 5; break; }
		step *= 10;
	}
	var places = Math.max(0, Math.min(9, 9 - Math.floor(Math.log10(step) + 1e-9)));
	var base = (originSec % 86400) * 1e9 + originFrac;
	var first = Math.ceil((base + view.v0) / step) * step - base;
	out.push('<g class="axis">');
	for (var t = first; t <= view.v1; t += step) {
		var x = r2(xOf(t));
		put("line", { x1: x, x2: x, y1: L.axis, y2: height, "class": "grid" });
		put("line", { x1: x, x2: x, y1: L.axis - 6, y2: L.axis, "data-t": Math.round(t) });
		put("text", { x: x, y: L.axis - 10, "text-anchor": labelAnchor(x, tod(t, places)) },
		    tod(t, places));
	}
	put("text", { x: 4, y: L.axis - 10, "class": "sub" }, dateOf(view.v0) + " UTC");
	put("line", { x1: L.left, x2: L.left + plotW, y1: L.axis, y2: L.axis });
	out.push("</g>");
	/* What lies outside the session, when the window reaches past it. */
	[[view.v0, D.session_start], [D.session_end, view.v1]].forEach(function (r) {
		var a = clampX(xOf(r[0])), b = clampX(xOf(r[1]));
		if (b - a > 0.5)
			put("rect", { x: r2(a), y: L.axis, width: r2(b - a), height: height - L.axis,
				"class": "outside" });
	});
}

function laneLabel(y, text, sub) {
	put("text", { x: 6, y: y + 16, "class": "label" },
	    text.length > 30 ? text.slice(0, 29) + "…" : text);
	if (sub)
		put("text", { x: 6, y: y + 30, "class": "sub" },
		    sub.length > 36 ? sub.slice(0, 35) + "…" : sub);
}

function faultHeight(ns) {
	var h = 4 + (Math.log10(Math.max(ns, 1000)) - 3) / 6 * (L.faultH - 4);
	return Math.max(3, Math.min(L.faultH, h));
}

function hit(lane, x0, x1, y0, y1, tip, arrow) {
	lane.hits.push({ x0: x0, x1: x1, y0: y0, y1: y1, tip: tip, arrow: arrow });
}

function drawThread(th, y, q) {
	var lane = { y0: y, y1: y + L.threadH, hits: [] };
	var name = (th.comm || "thread") + " " + th.tid;	/* "": no name recorded */
	laneY.tid[th.tid] = y + L.stateY + L.stateH / 2;
	out.push('<g class="lane thread" data-tid="' + th.tid + '" data-pid="' + th.pid + '">');
	put("rect", { x: L.left, y: y, width: plotW, height: L.threadH, "class": "lanebg" });
	laneLabel(y, name, "pid " + th.pid + (th.names !== th.comm ? " · names: " + th.names : ""));
	mergeStates(th.s, view.v0, view.v1, q).forEach(function (b) {
		var x = clampX(xOf(b.t)), w = Math.max(clampX(xOf(b.t + b.d)) - x, 0.4);
		put("rect", { x: r2(x), y: y + L.stateY, width: r2(w), height: L.stateH,
			fill: D.state_colors[b.st], "class": "st", "data-t": b.t, "data-n": b.n });
		if (b.fl & UNCERTAIN)
			put("rect", { x: r2(x), y: y + L.stateY, width: r2(w), height: L.stateH,
				"class": "uncertain" });
		hit(lane, x, x + w, y + L.stateY, y + L.stateY + L.stateH, function () { return stateTip(name, b); },
		    b.it && !(b.fl & MERGED) && b.it[5] != null ? wakeOf(th, b.it) : null);
	});
	mergeFaults(th.f, view.v0, view.v1, q).forEach(function (f) {
		var x = xOf(f.t), w = Math.max(xOf(f.t + f.d) - x, 2);
		var h = f.k === 2 ? L.faultH : faultHeight(f.max), top = y + L.faultTop + L.faultH - h;
		x = Math.max(x, L.left);
		put("rect", { x: r2(x), y: r2(top), width: r2(w), height: r2(h), "data-t": f.t, "data-n": f.n,
			"data-dur": f.d, "class": "fault " + D.fault_kinds[f.k] + (f.n > 1 ? " merged" : "") });
		hit(lane, x, x + w, top, y + L.faultTop + L.faultH, function () { return faultTip(name, f); });
	});
	mergePoints(th.e, view.v0, view.v1, q, true).forEach(function (e) {
		var x = r2(xOf(e.t));
		put("line", { x1: x, x2: x, y1: y + L.evY, y2: y + L.evY + L.evH, "class": "ev",
			"data-t": e.t, "data-n": e.n });
		hit(lane, x - 1, x + 1, y + L.evY, y + L.evY + L.evH, function () { return eventTip(name, e); });
	});
	out.push("</g>");
	lanes.push(lane);
}

/* A process's header: its fold's handle, what it holds; closed, its
 * threads' faults drawn on it, so a folded process still shows where
 * it stalled. */
function drawProcess(g, y, q, width) {
	var closed = !!folded[g.pid], n = g.threads.length;
	var text = (closed ? "\u25b8 " : "\u25be ") + (g.comm || "process") + " (pid " + g.pid +
		"): " + n + " thread" + (n === 1 ? "" : "s") + (closed ? " folded" : "") +
		(g.idle ? ", " + g.idle + " idle not drawn (--all-threads)" : "");
	var lane = { y0: y, y1: y + L.procH, hits: [] };
	if (closed) g.threads.forEach(function (th) { laneY.tid[th.tid] = y + L.procH / 2; });
	out.push('<g class="process' + (closed ? " folded" : "") + '" data-pid="' + g.pid + '">');
	put("rect", { x: 0, y: y, width: width, height: L.procH - 2, "class": "procbg" });
	if (closed)
		g.threads.forEach(function (th) {
			var name = (th.comm || "thread") + " " + th.tid;
			mergeFaults(th.f, view.v0, view.v1, q).forEach(function (f) {
				var x = Math.max(xOf(f.t), L.left), w = Math.max(xOf(f.t + f.d) - x, 2);
				put("rect", { x: r2(x), y: y + 3, width: r2(w), height: L.procH - 8,
					"data-t": f.t, "data-n": f.n, "class": "fault " + D.fault_kinds[f.k] + (f.n > 1 ? " merged" : "") });
				hit(lane, x, x + w, y + 3, y + L.procH - 5, function () { return faultTip(name, f); });
			});
		});
	put("text", { x: 6, y: y + 13, "class": "proc" }, text);	/* over the marks */
	out.push("</g>");
	lanes.push(lane);
	procHits.push({ y0: y, y1: y + L.procH, pid: g.pid });
}

/* The CPU lanes' header: the fold's handle ("cpus" in the address). */
function drawCpuHeader(y, width) {
	var closed = !!folded.cpus;
	out.push('<g class="cpus' + (closed ? " folded" : "") + '">');
	put("rect", { x: 0, y: y, width: width, height: L.procH - 2, "class": "procbg" });
	put("text", { x: 6, y: y + 13, "class": "proc" }, (closed ? "\u25b8 " : "\u25be ") +
	    "CPUs the targets ran on: " + cpus.length + (closed ? " folded" : "") +
	    " · top: a target running; under it: who held the CPU while a target waited " +
	    "(shares of the wait)");
	out.push("</g>");
	procHits.push({ y0: y, y1: y + L.procH, pid: "cpus" });
}

function drawCpu(c, y, q) {
	var lane = { y0: y, y1: y + L.cpuH, hits: [] };
	laneY.cpu[c.cpu] = y + L.cpuH / 2;
	out.push('<g class="lane cpu" data-cpu="' + c.cpu + '">');
	put("rect", { x: L.left, y: y, width: plotW, height: L.cpuH, "class": "lanebg" });
	put("text", { x: 6, y: y + 17, "class": "label" }, "cpu " + c.cpu);
	[["r", L.ranY, L.ranH, "ran"], ["h", L.heldY, L.heldH, "held"]].forEach(function (k) {
		mergeCpu(c[k[0]], view.v0, view.v1, q).forEach(function (b) {
			var x = clampX(xOf(b.t)), w = Math.max(clampX(xOf(b.t + b.d)) - x, 0.4);
			put("rect", { x: r2(x), y: y + k[1], width: r2(w), height: k[2], fill: threadColor(b.tid),
				"class": k[3], "data-t": b.t, "data-n": b.n, "data-tid": b.tid });
			hit(lane, x, x + w, y + k[1], y + k[1] + k[2], function () { return cpuTip(c.cpu, k[3], b); });
		});
	});
	out.push("</g>");
	lanes.push(lane);
}

function drawMetric(m, y, q) {
	var lane = { y0: y, y1: y + L.metricH, hits: [] };
	var labels = m.labels && m.labels !== "{}" ? " " + m.labels : "";
	var pts = mergePoints(m.p, view.v0, view.v1, q, false), lo = 0, hi = 0;
	pts.forEach(function (p) { lo = Math.min(lo, p.min); hi = Math.max(hi, p.max); });
	if (hi === lo) hi = lo + 1;
	out.push('<g class="lane metric" data-name="' + esc(m.name) + '" data-style="' +
		 esc(m.style) + '">');
	put("rect", { x: L.left, y: y, width: plotW, height: L.metricH, "class": "lanebg" });
	laneLabel(y, m.name, (m.imported ? "imported" : "sampled") + labels +
		  " · max " + num(hi) + (m.unit ? " " + m.unit : ""));
	var base = y + L.metricH - 4, span = L.metricH - 10;
	function yOf(v) { return r2(base - (v - lo) / (hi - lo) * span); }
	var line = [], title = m.name + labels;
	pts.forEach(function (p) {
		var x = r2(xOf(p.t));
		if (m.style === "ticks") {
			put("line", { x1: x, x2: x, y1: base, y2: Math.min(yOf(p.max), base - 4),
				"class": "tick", "data-t": p.t, "data-n": p.n });
		} else {
			if (p.n > 1)
				put("line", { x1: x, x2: x, y1: yOf(p.min), y2: yOf(p.max), "class": "mband",
					"data-t": p.t, "data-n": p.n });
			line.push(x + "," + yOf(p.last));
		}
		hit(lane, x - 2, x + 2, y, y + L.metricH, function () { return pointTip(title, m.unit, p); });
	});
	if (line.length)
		put("polyline", { points: line.join(" "), "class": "mline", "data-n": pts.length });
	out.push("</g>");
	lanes.push(lane);
}

function drawLost(height) {
	lostHits = [];
	(D.lost || []).forEach(function (l) {
		if (l[1] < view.v0 || l[0] > view.v1) return;
		var x = clampX(xOf(l[0])), w = Math.max(clampX(xOf(l[1])) - x, 2);
		put("rect", { x: r2(x), y: L.axis, width: r2(w), height: height - L.axis,
			"class": "lost", "data-t": l[0], "data-cpu": l[2] == null ? "" : l[2] });
		lostHits.push({ x0: x - 1, x1: x + w + 1, tip: function () { return lostTip(l); } });
	});
}

function render() {
	var width = Math.max(640, Math.floor(plotBox.clientWidth || 1200));
	var height = L.axis + metrics.length * (L.metricH + L.gap) + 8 +
		(cpus.length ? L.procH + (folded.cpus ? 0 : cpus.length * (L.cpuH + L.gap)) : 0);
	groups.forEach(function (g) {
		height += L.procH + (folded[g.pid] ? 0 : g.threads.length * (L.threadH + L.gap));
	});
	var q, y = L.axis + 4;
	plotW = width - L.left - L.right;
	q = Math.max(1, (view.v1 - view.v0) / plotW);
	lanes = [];
	procHits = [];
	laneY = { tid: {}, cpu: {} };
	out = [];
	defs();
	axis(height);
	metrics.forEach(function (m) { drawMetric(m, y, q); y += L.metricH + L.gap; });
	if (cpus.length) {
		drawCpuHeader(y, width);
		y += L.procH;
		if (!folded.cpus)
			cpus.forEach(function (c) { drawCpu(c, y, q); y += L.cpuH + L.gap; });
	}
	groups.forEach(function (g) {
		drawProcess(g, y, q, width);
		y += L.procH;
		if (folded[g.pid]) return;
		g.threads.forEach(function (th) { drawThread(th, y, q); y += L.threadH + L.gap; });
	});
	drawLost(height);
	put("rect", { "class": "sel", x: 0, y: L.axis, width: 0, height: height - L.axis,
		visibility: "hidden" });
	if (svg) plotBox.removeChild(svg);
	arrow = null;
	svg = el("svg", { id: "fl-plot", width: width, height: height, "data-x0": L.left,
		"data-width": plotW, "data-view-from": Math.round(view.v0),
		"data-view-to": Math.round(view.v1) });
	svg.innerHTML = out.join("");
	out = null;
	plotBox.appendChild(svg);
	sel = svg.lastChild;
	replot.textContent = "faultline plot " + shellQuote(D.db) + " --session " + D.session +
		" --from " + utc(view.v0) + " --to " + utc(view.v1) +
		(D.all_threads ? " --all-threads" : "") + " -o view.html";
	windowLine.textContent = windowText();
}

function utc(t) { return dateOf(t) + "T" + tod(t, 9) + "Z"; }

function shellQuote(s) {
	return /^[A-Za-z0-9_.\/:=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

/* ---- hover --------------------------------------------------------------- */

function when(t) { return tod(t, 6) + " UTC"; }

function stateTip(name, b) {
	var it = b.it, lines;
	if (it && !(it[3] & MERGED)) {
		lines = [name + " · " + D.states[it[2]], when(it[0]) + " for " + dur(it[1])];
		if (it[4] != null) lines.push("on cpu " + it[4]);
		if (it[5] != null) lines.push("woken by " + (it[6] || it[5]) +
			(it[10] != null && it[5] > 0 ? " on cpu " + it[10] : "") +
			" at " + when(it[0] + it[1]) + " (arrow: to where it next ran)");
		if (it[3] & PREEMPTED) lines.push("preempted");
		if (it[8] != null) lines.push("then on its CPU: " + it[8] + (it[9] ? " (" + it[9] + ")" : ""));
		if (it[7] != null && D.stacks[it[7]]) lines.push("stack: " + D.stacks[it[7]]);
	} else {
		lines = [name + " · " + b.n + " intervals, each shorter than a pixel",
			 when(b.t) + " for " + dur(b.d)];
		var ns = b.ns || (it && it[5]) || [];
		ns.map(function (v, k) { return [v, k]; }).sort(function (a, c) { return c[0] - a[0]; })
		  .forEach(function (p) {
			if (p[0] > 0) lines.push(D.states[p[1]] + " " + dur(p[0]) + " (" +
				Math.round(p[0] * 100 / b.d) + "%)");
		});
	}
	if (b.fl & UNCERTAIN) lines.push("uncertain: built across lost records");
	return lines.join("\n");
}

function threadName(tid) {
	var th = threads.filter(function (x) { return x.tid === tid; })[0];
	return (th && th.comm ? th.comm : "thread") + " (" + tid + ")";
}

function cpuTip(cpu, kind, b) {
	var it = b.it, held = kind === "held";
	if (it && it[2] === 1) {
		if (!held)
			return ["cpu " + cpu + " · " + it[4] + " running", when(it[0]) + " for " + dur(it[1]),
				"tid " + it[3]].join("\n");
		return ["cpu " + cpu + " · " + it[4] + " held it for " + dur(it[1]) +
			(it[3] > 0 ? ", tid " + it[3] : ""),
			"while " + threadName(it[5]) + " waited for it " + when(it[6]) + " for " + dur(it[7]),
			"shares of the wait, not exact placement: the recording keeps each holder's total"
		].join("\n");
	}
	return ["cpu " + cpu + " · " + thousands(b.n) + (held ? " shares of waits" : " running intervals") +
		", each shorter than a pixel", when(b.t) + " to " + when(b.t + b.d) + ", busy " + dur(b.busy),
		"longest: " + b.name].join("\n");
}

/* ---- wake-up arrows ------------------------------------------------------ */

/*
 * The wake-up that ended interval it (recorded, with a waker) of thread
 * th, for its arrow: from the waker's lane (its thread's, or its folded
 * process's header; else, an interrupt, the idle task or a thread with
 * no lane, the lane of the CPU the wake-up ran on) at the wake-up, the
 * interval's end, to th's lane where it next ran.  Null when either end
 * has no lane on the page.
 */
function wakeOf(th, it) {
	return function () {
		var wake = it[0] + it[1], run = null, i = th.s.indexOf(it);
		for (var k = i + 1; k < th.s.length && run == null; k++) {
			var x = th.s[k];
			if (x[2] === 0 || (x[3] & MERGED && x[5][0] > 0)) run = x[0];
		}
		var from = it[5] > 0 ? laneY.tid[it[5]] : undefined, src = "tid:" + it[5];
		if (from == null && it[10] != null) { from = laneY.cpu[it[10]]; src = "cpu:" + it[10]; }
		var to = laneY.tid[th.tid];
		if (from == null || to == null) return null;
		return { t0: wake, y0: from, t1: run == null ? wake : run, y1: to, src: src,
			 label: "woken by " + (it[6] || "thread " + it[5]) };
	};
}

var arrow = null;	/* the arrow drawn, while its interval is hovered */

function drawArrow(a) {
	if (arrow) { arrow.parentNode.removeChild(arrow); arrow = null; }
	if (!a) return;
	var x0 = r2(xOf(a.t0)), x1 = r2(xOf(a.t1)), y0 = r2(a.y0), y1 = r2(a.y1);
	arrow = el("g", { "class": "wake", "data-from": a.src, "data-wake-t": Math.round(a.t0),
		"data-run-t": Math.round(a.t1) }, svg);
	el("circle", { cx: x0, cy: y0, r: 3 }, arrow);
	el("line", { x1: x0, y1: y0, x2: x1, y2: y1, "marker-end": "url(#fl-arrow)" }, arrow);
	var t = el("text", { x: x0 + 5, y: y0 + (y1 > y0 ? -5 : 13),
		"text-anchor": labelAnchor(x0 + a.label.length * 3.1, a.label) === "end" ? "end" : "start" }, arrow);
	t.textContent = a.label;
}

function faultTip(name, f) {
	var it = f.it, kind = D.fault_kinds[f.k];
	if (it && it[3] === 1) {
		var lines = [kind + " fault · " + name,
			when(it[0]) + (f.k === 2 ? ", never completed" : " for " + dur(it[1]))];
		if (it[4] != null) lines.push("address " + it[4] + ", ip " + it[5]);
		if (it[6] != null) lines.push("cpu " + it[6] + (it[7] != null && it[7] !== it[6] ?
			", completed on cpu " + it[7] : ""));
		if (it[8] != null && D.stacks[it[8]]) lines.push("stack: " + D.stacks[it[8]]);
		return lines.join("\n");
	}
	return [thousands(f.n) + " " + kind + " faults · " + name,
		when(f.t) + " to " + when(f.t + f.d),
		"longest " + dur(f.max) + ", together " + dur(f.total)].join("\n");
}

function eventTip(name, e) {
	if (e.it)
		return [e.name + " · " + name, when(e.t), e.it[3] || ""].join("\n");
	return [thousands(e.n) + " tracepoint hits · " + name, (e.differ ? "first: " : "") + e.name,
		when(e.t) + " to " + when(e.t + e.span)].join("\n");
}

function pointTip(title, unit, p) {
	var u = unit ? " " + unit : "";
	if (p.n === 1) return [title, when(p.t), "value " + num(p.last) + u].join("\n");
	return [title + " · " + thousands(p.n) + " points", when(p.t) + " to " + when(p.t + p.span),
		"min " + num(p.min) + u + ", max " + num(p.max) + u + ", last " + num(p.last) + u].join("\n");
}

function lostTip(l) {
	return [(l[3] === "throttled" ? "sampling throttled" : "lost " + l[3]) + ": " +
		thousands(l[4]) + (l[2] != null ? " on cpu " + l[2] : ""),
		"from " + when(l[0]) + " to " + when(l[1]) + " (" + dur(l[1] - l[0]) + ")",
		"what any thread did here is not fully recorded"].join("\n");
}

var tip = html("div", null, null), drag = null, dragged = false;
tip.id = "fl-tip";
tip.hidden = true;

function pointer(ev) {
	var r = svg.getBoundingClientRect();
	return { x: ev.clientX - r.left, y: ev.clientY - r.top };
}

function findHit(p) {
	var best = null, bestD = 4;
	lanes.forEach(function (lane) {
		if (p.y < lane.y0 || p.y > lane.y1) return;
		lane.hits.forEach(function (h) {
			if (p.y < h.y0 - 2 || p.y > h.y1 + 2) return;
			var d = p.x < h.x0 ? h.x0 - p.x : p.x > h.x1 ? p.x - h.x1 : 0;
			if (d < bestD || (d === 0 && best && h.x1 - h.x0 < best.x1 - best.x0)) { best = h; bestD = d; }
		});
	});
	if (!best) lostHits.forEach(function (h) { if (p.x >= h.x0 && p.x <= h.x1) best = h; });
	return best;
}

function showTip(ev) {
	var p = pointer(ev), h = p.x >= L.left ? findHit(p) : null;
	var a = h && h.arrow ? h.arrow() : null;
	if (!a || !arrow || arrow.getAttribute("data-wake-t") !== String(Math.round(a.t0)) ||
	    arrow.getAttribute("data-from") !== a.src)
		drawArrow(a);
	if (!h) { tip.hidden = true; return; }
	tip.textContent = h.tip();
	tip.hidden = false;
	var x = ev.clientX + 14, y = ev.clientY + 14;
	if (x + tip.offsetWidth > window.innerWidth) x = Math.max(0, ev.clientX - tip.offsetWidth - 8);
	if (y + tip.offsetHeight > window.innerHeight) y = Math.max(0, ev.clientY - tip.offsetHeight - 8);
	tip.style.left = x + "px";
	tip.style.top = y + "px";
}

/* ---- zoom ---------------------------------------------------------------- */

/* The view is in the address too, "#view=V0,V1" (ns from the origin),
 * and the closed folds, "&fold=PID,PID" ("cpus": the CPU lanes), so a
 * link opens the same view:
 * a zoom by dragging is a new entry (Back zooms out), a step of the wheel
 * or a key replaces the entry. */
function viewOfHash() {
	var m = /^#view=(-?\d+),(-?\d+)(&|$)/.exec(location.hash);
	var v0 = m ? Number(m[1]) : 0, v1 = m ? Number(m[2]) : 0;
	return m && v1 > v0 ? { v0: v0, v1: v1 } : full;
}

function foldsOfHash() {
	var m = /[#&]fold=([0-9a-z,]*)/.exec(location.hash), f = {};
	if (m) m[1].split(",").forEach(function (p) { if (p) f[p] = true; });
	return f;
}

function hashOf(v) {
	var closed = Object.keys(folded).filter(function (p) { return folded[p]; });
	var parts = [];
	if (v.v0 !== full.v0 || v.v1 !== full.v1)
		parts.push("view=" + Math.round(v.v0) + "," + Math.round(v.v1));
	if (closed.length) parts.push("fold=" + closed.join(","));
	return parts.length ? "#" + parts.join("&") : "";
}

/* how: "push" (a new entry in the history), "replace", or "none" (the
 * address already says it). */
function setView(v, remember, how) {
	var hash = hashOf(v);
	if (remember) zooms.push(view);
	view = v;
	tip.hidden = true;
	render();
	if (how === "none" || location.hash === hash || (!hash && !location.hash)) return;
	if (how === "replace")
		history.replaceState(null, "", hash || location.pathname + location.search);
	else
		location.hash = hash;
}

/* The view [a, b] kept inside the window and at least 1 us long. */
function within(a, b) {
	var span = Math.min(Math.max(b - a, 1000), full.v1 - full.v0);
	a = Math.max(full.v0, Math.min(a, full.v1 - span));
	return a === full.v0 && span === full.v1 - full.v0 ? full : { v0: a, v1: a + span };
}

/* Zoom by factor k (< 1: in) about time t, or move by dt. */
function zoomAbout(t, k) {
	setView(within(t - (t - view.v0) * k, t + (view.v1 - t) * k), false, "replace");
}
function pan(dt) { setView(within(view.v0 + dt, view.v1 + dt), false, "replace"); }

function toggleFold(pid) {
	folded[pid] = !folded[pid];
	setView(view, false, "replace");
}

function onKey(ev) {
	var span = view.v1 - view.v0, mid = (view.v0 + view.v1) / 2;
	if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
	switch (ev.key) {
	case "Escape": zooms = []; setView(full, false, "push"); break;
	case "+": case "=": case "w": zoomAbout(mid, 0.5); break;
	case "-": case "_": case "s": zoomAbout(mid, 2); break;
	case "ArrowLeft": case "a": pan(-span / 5); break;
	case "ArrowRight": case "d": pan(span / 5); break;
	default: return;
	}
	ev.preventDefault();
}

/* Ctrl + wheel (a pinch on a touchpad) zooms about the pointer; Shift +
 * wheel, or a sideways one, moves along; a plain wheel scrolls the page. */
function onWheel(ev) {
	var p = pointer(ev), unit = ev.deltaMode === 1 ? 30 : ev.deltaMode === 2 ? 600 : 1;
	var dy = ev.deltaY * unit, dx = ev.deltaX * unit;
	if (p.x < L.left) return;
	if (ev.ctrlKey || ev.metaKey) {
		zoomAbout(tOf(Math.min(p.x, L.left + plotW)), Math.pow(2, Math.max(-1, Math.min(1, dy / 300))));
	} else if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) {
		pan((ev.shiftKey && !dx ? dy : dx) * (view.v1 - view.v0) / plotW);
	} else {
		return;
	}
	ev.preventDefault();
}

function listen() {
	plotBox.addEventListener("mousedown", function (ev) {
		var p = pointer(ev);
		if (ev.button !== 0 || p.x < L.left) return;
		drag = { x: Math.min(p.x, L.left + plotW) };
		ev.preventDefault();
	});
	plotBox.addEventListener("click", function (ev) {
		var p = pointer(ev);
		if (dragged) return;	/* the end of a zoom, not a click */
		procHits.forEach(function (h) { if (p.y >= h.y0 && p.y < h.y1) toggleFold(h.pid); });
	});
	window.addEventListener("mousemove", function (ev) {
		if (!drag) {
			if (svg && svg.contains(ev.target)) showTip(ev);
			else { tip.hidden = true; drawArrow(null); }
			return;
		}
		var x = clampX(pointer(ev).x);
		sel.setAttribute("x", Math.min(x, drag.x));
		sel.setAttribute("width", Math.abs(x - drag.x));
		sel.setAttribute("visibility", "visible");
		tip.hidden = true;
	});
	window.addEventListener("mouseup", function (ev) {
		if (!drag) return;
		var x = clampX(pointer(ev).x), a = Math.min(x, drag.x), b = Math.max(x, drag.x);
		drag = null;
		sel.setAttribute("visibility", "hidden");
		dragged = b - a >= 4;
		if (!dragged) return;
		setView(within(tOf(a), tOf(b)), true, "push");
	});
	plotBox.addEventListener("dblclick", function () {
		setView(zooms.length ? zooms.pop() : full, false, "push");
	});
	plotBox.addEventListener("wheel", onWheel, { passive: false });
	window.addEventListener("hashchange", function () {
		if (location.hash === hashOf(view)) return;	/* ours */
		folded = foldsOfHash();
		setView(viewOfHash(), false, "none");
	});
	window.addEventListener("keydown", onKey);
	var pending = null;
	window.addEventListener("resize", function () {
		if (pending) clearTimeout(pending);
		pending = setTimeout(function () { pending = null; render(); }, 150);
	});
}

header();
plotBox = html("div", null, root);
notes();
root.insertBefore(plotBox, root.lastChild);
document.body.appendChild(tip);
view = viewOfHash();
folded = foldsOfHash();
render();
listen();
root.setAttribute("data-parse-ms", (t0 - tParse).toFixed(1));
root.setAttribute("data-draw-ms", (performance.now() - t0).toFixed(1));
root.setAttribute("data-ready-ms", performance.now().toFixed(1));
})();
