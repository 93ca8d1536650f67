//! Runs a plan through the driver as `plateau run` would, against one endpoint at `url`,
//! with no observer output: the one place tests build a [`RunContext`].

use std::sync::Arc;

use plateau_core::driver::{self, Observer, RunContext, RunReport};
use plateau_core::live::Live;
use plateau_core::plan::{BaseUrl, Plan};
use plateau_core::tokens::TokenCounter;
use plateau_core::workload::WorkloadFactory;
use plateau_http::Client;
use tokio_util::sync::CancellationToken;

/// An observer that prints nothing.
pub struct Quiet;
impl Observer for Quiet {}

/// The context of a fresh run of `plan` (one endpoint, at `url`) with `workloads` and
/// `counter`; a test sets what else it needs (`resume`, `spans`) before [`run`].
pub fn context<'a>(
    plan: &Plan,
    url: &str,
    workloads: &'a dyn WorkloadFactory,
    counter: Arc<dyn TokenCounter>,
) -> RunContext<'a> {
    let slots = plan.max_in_flight() as usize;
    RunContext {
        client: Client::new(slots + 8).unwrap(),
        targets: vec![BaseUrl::parse(url).unwrap()],
        endpoint_infos: vec![],
        workloads,
        counter,
        live: Arc::new(Live::default()),
        interrupt: CancellationToken::new(),
        resume: false,
        redo: Vec::new(),
        launch: Default::default(),
        started_at: chrono::Utc::now(),
        observer: &Quiet,
        spans: None,
    }
}

/// Runs `plan` with `ctx`.
pub async fn run(plan: &Plan, ctx: RunContext<'_>) -> RunReport {
    driver::run_plan(plan, ctx).await.unwrap()
}
