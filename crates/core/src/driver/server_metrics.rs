//! The scraper beside a cell: started on the cell's clock before the first request,
//! stopped when the cell ends, its scrapes written to the cell directory and summarized
//! per phase. An endpoint whose first scrape shows it has no usable `/metrics` is not
//! scraped again in this run (said once, at info level).

use std::path::Path;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::plan::{BaseUrl, Endpoint};
use crate::scrape::poll::{self, Polled, Target};
use crate::scrape::{self, ServerMetrics, engines};
use crate::wire;
use plateau_http::Client;
use plateau_http::clock::Clock;
use plateau_model::results::ResultsError;
use plateau_model::results::summary::PhaseBounds;

/// A scraper running beside a cell.
pub(super) struct Running {
    stop: CancellationToken,
    task: JoinHandle<Polled>,
    interval: Duration,
}

/// Starts scraping `endpoint` at `base` every `interval` on `clock`, on a connection of its
/// own reached as the run's `client` reaches the endpoint (its proxy, its TLS); `None` when
/// scraping is off or the endpoint's `/metrics` URL cannot be formed.
pub(super) fn start(
    run_client: &Client,
    interval: Option<Duration>,
    endpoint: &Endpoint,
    base: &BaseUrl,
    clock: Clock,
) -> Option<Running> {
    let interval = interval?;
    let uri = scrape::metrics_uri(base).ok()?;
    let client = run_client.sibling(1);
    let target = Target {
        client,
        uri,
        headers: wire::of(endpoint).auth_headers(endpoint),
        interval,
        table: engines::of(endpoint.engine),
    };
    let stop = CancellationToken::new();
    let task = tokio::spawn(poll::run(target, clock, stop.clone()));
    Some(Running {
        stop,
        task,
        interval,
    })
}

/// What a finished scraper leaves.
pub(super) struct Finished {
    /// The per-phase summary, when there were scrapes.
    pub server: Option<ServerMetrics>,
    /// Why the endpoint has no usable `/metrics`.
    pub refused: Option<String>,
}

impl Running {
    /// Stops the scraper, writes its scrapes into `dir` and summarizes them over `bounds`.
    pub(super) async fn finish(
        self,
        dir: &Path,
        bounds: &PhaseBounds,
    ) -> Result<Finished, ResultsError> {
        self.stop.cancel();
        let polled = match self.task.await {
            Ok(polled) => polled,
            Err(e) => {
                // A scraper that panicked took its scrapes with it; the cell's own numbers
                // are untouched, but say why its summary has no `server` block.
                tracing::warn!(
                    "the server-metrics scraper of this cell stopped abnormally ({e}); \
                     the cell has no server metrics"
                );
                Polled::default()
            }
        };
        let mut out = Finished {
            server: None,
            refused: polled.refused.clone(),
        };
        if let Some(table) = polled.table
            && !polled.scrapes.is_empty()
        {
            scrape::write(&dir.join(scrape::SERVER_METRICS_FILE), &polled.scrapes)?;
            let interval_ms = u64::try_from(self.interval.as_millis()).unwrap_or(u64::MAX);
            out.server = Some(scrape::summarize(
                &polled.scrapes,
                polled.failed,
                table,
                bounds,
                interval_ms,
            ));
        }
        Ok(out)
    }
}
