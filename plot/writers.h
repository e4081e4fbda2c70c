/*
 * writers: the two ways a plot is written, each a plot_sink_ops over an
 * out_file (common/out_file.h) the driver opened and commits.
 *
 *   html   one self-contained page: the reduced timeline as JSON in a
 *          <script type="application/json"> element, and the script
 *          (plot/page.js) and style (plot/page.css) that draw it as SVG,
 *          with hover, drag-to-zoom and double-click to zoom out.  The
 *          page's Content-Security-Policy forbids every fetch (default-src
 *          'none'), so it works offline and cannot reach the network.
 *   svg    a static picture of the same lanes, for reports: every item
 *          drawn at the resolution the reduction chose, with a <title>
 *          tooltip each.
 */
#ifndef FL_PLOT_WRITERS_H
#define FL_PLOT_WRITERS_H

#include "../common/errmsg.h"
#include "../common/out_file.h"
#include "../common/strbuf.h"
#include "model.h"

/* One writer's state; the same struct serves both formats. */
struct plot_writer {
	struct out_file *out;		/* borrowed: the driver's */
	struct errmsg *e;		/* borrowed: the caller's */
	struct strbuf sb;		/* owned: text not written yet */
	struct strbuf safe;		/* owned: html, sb made safe for <script>;
				 * svg, the open metric lane's line */
	struct plot_header h;		/* from begin; strings borrowed */
	int section;			/* html: which part of the JSON is open */
	char arr;			/* html: the lane's open array, s f e p */
	int first;			/* no item yet in the open array */
	int section_empty;		/* html: nothing yet in the open section */
	/* svg: the lane being drawn (its strings are the caller's and gone
	 * after lane(): only its numbers are read) and where it sits */
	struct plot_lane lane;
	double lane_y;
	int lane_open;			/* svg: a lane's <g> is open */
	int footer_lines;		/* svg: lines of the notes begun */
	unsigned next_proc;		/* svg: h.procs[next_proc] has no
					 * header yet */
	int top;			/* svg: the axis line's y, under the
					 * title lines and the legend */
};

extern const struct plot_sink_ops plot_html_ops, plot_svg_ops;

void plot_writer_init(struct plot_writer *w, struct out_file *out,
		      struct errmsg *e);
void plot_writer_release(struct plot_writer *w);

#endif
