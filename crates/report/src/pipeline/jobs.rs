//! The report's drawing jobs: one figure each (an overview figure, or a cell's timeline
//! drawn from its whole summary, read again, and its records, read once and kept as the
//! distributions' quantiles when that cell's series is drawn), run on every core by
//! [`super::parallel`].

use std::path::Path;

use plateau_model::results::read_samples;
use plateau_model::scrape;
use plateau_model::validate::{self, Finding};

use crate::error::ReportError;
use crate::figures::requests::CellRequests;
use crate::figures::{self, Plot, Rendered, Timeline};
use crate::matrix::Cell;

use super::held;

/// One unit of drawing work.
pub(super) enum Job {
    /// An overview figure, by its index.
    Overview(usize),
    /// The timeline of a cell, by its index.
    Timeline(usize),
}

/// What a job produced: its figure, or a finding and the error of records that could not
/// be read.
#[derive(Default)]
pub(super) struct Done {
    pub(super) rendered: Option<Rendered>,
    pub(super) finding: Option<Finding>,
    pub(super) unreadable: Option<String>,
    /// A timeline's cell's requests, read for the distributions (of the cells they draw).
    pub(super) requests: Option<CellRequests>,
}

/// Draws one figure (a timeline of one of `cells`, with its requests kept for the
/// distributions when it is of the first `drawn` series); a timeline whose records cannot
/// be read gives a finding instead.
pub(super) fn run(
    job: &Job,
    cells: &[Cell],
    overview: &[Plot],
    dir: &Path,
    drawn: usize,
) -> Result<Done, ReportError> {
    match *job {
        Job::Overview(i) => Ok(Done {
            rendered: Some(figures::save(&overview[i], dir)?),
            ..Done::default()
        }),
        Job::Timeline(i) => {
            let cell = cells[i];
            let s = &match held::whole(&cell) {
                Ok(s) => s,
                Err(e) => {
                    return Ok(Done {
                        unreadable: Some(e.to_string()),
                        ..Done::default()
                    });
                }
            };
            if s.records.write_error.is_some() {
                return Ok(Done::default());
            }
            match read_samples(&cell.dir.join(&s.records.file)) {
                Err(e) => Ok(Done {
                    finding: validate::check_records(s, Err(&e)),
                    unreadable: Some(e.to_string()),
                    ..Done::default()
                }),
                Ok(samples) => Ok(Done {
                    finding: validate::check_records(s, Ok(samples.len())),
                    rendered: Some(figures::save(
                        &Plot::Timeline(
                            Timeline::new(s, cell.load, &samples).with_server(server(&cell)),
                        ),
                        dir,
                    )?),
                    unreadable: None,
                    requests: (cell.series < drawn).then(|| CellRequests::new(s, &samples)),
                }),
            }
        }
    }
}

/// The server's gauges over `cell` from its scrapes file; none when it was not scraped or
/// the file cannot be read (the timeline is drawn without them).
fn server(cell: &Cell) -> Vec<scrape::summary::Point> {
    let Some(server) = &cell.summary.server else {
        return Vec::new();
    };
    match (
        scrape::engines::by_name(&server.engine),
        scrape::read(&cell.dir.join(&server.file)),
    ) {
        (Some(table), Ok(scrapes)) => scrape::summary::points(&scrapes, table),
        _ => Vec::new(),
    }
}
