/**
 * {@code rddp compare}, the main job: RDDP over MPA and over SCTP next to raw TCP and SCTP socket baselines over a
 * size sweep, both ends in one process or a responder and an initiator in two; the table, the JSON and the charts.
 */
package org.rddp.cli.compare;
