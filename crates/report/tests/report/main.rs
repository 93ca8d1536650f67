//! Integration tests of the report: the checked-in fixtures are what their rules make, every
//! figure renders as a PNG and an SVG of its size and draws what the fixtures hold (marks,
//! frontiers, distributions, log-coloured heatmaps, stepped gauges) and its legend names
//! only what it draws, the headline and report.html and summary.csv show the fixtures'
//! values, a default-size report stays small and opens on the answer, several results
//! directories show each run's capacity and repeats, the server's timing and GPU energy get
//! their figures, bad input is named, and report.html opens in headless Chromium.

#![allow(clippy::unwrap_used, missing_docs)]

mod bad_input;
mod chromium;
mod common;
mod compare;
mod compare_effects;
mod cost;
mod distributions;
mod figures;
mod fixtures;
mod headline;
mod legends;
mod marks;
mod page;
mod scale;
mod server_side;
mod session_rates;
mod sessions;
mod several;
mod values;
