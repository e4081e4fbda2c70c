/*
 * layout: where things sit in a plot, in CSS pixels.  plot/page.js holds
 * the same numbers (its `L`), so the page and the SVG picture look alike;
 * change both together.
 */
#ifndef FL_PLOT_LAYOUT_H
#define FL_PLOT_LAYOUT_H

#define LAYOUT_LEFT 210		/* lane labels, left of the time axis */
#define LAYOUT_RIGHT 20
#define LAYOUT_AXIS 34		/* the axis band above the lanes */
#define LAYOUT_THREAD_H 44	/* a thread's lane */
#define LAYOUT_METRIC_H 60	/* a metric's lane */
#define LAYOUT_GAP 6		/* between lanes */
#define LAYOUT_PROC_H 20	/* a process's header, above its threads */
#define LAYOUT_STATE_Y 22	/* the state bar, from the lane's top */
#define LAYOUT_STATE_H 14
#define LAYOUT_FAULT_TOP 3	/* fault marks stand on the state bar */
#define LAYOUT_FAULT_H 17	/* the tallest: a 1 s fault */
#define LAYOUT_EV_Y 37		/* tracepoint ticks, under the bar */
#define LAYOUT_EV_H 6
#define LAYOUT_CPU_H 26		/* a CPU's lane */
#define LAYOUT_RAN_Y 3		/* its band of targets running there */
#define LAYOUT_RAN_H 12
#define LAYOUT_HELD_Y 17	/* its band of holders during waits */
#define LAYOUT_HELD_H 7
#define LAYOUT_TITLE 40		/* the SVG's title lines, above the legend */
#define LAYOUT_LEGEND_ROW 18	/* a row of the SVG's legend, above the axis */

#endif
