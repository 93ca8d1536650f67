//! The run's HTTP client, built once the endpoints' addresses are known: the environment's
//! proxies (an unusable one is bad input naming its variable, and its credentials join the
//! redactions), the system's and the web's TLS roots, each endpoint's own proxy and TLS
//! settings, and the in-process simulators reached directly whatever the environment says.

use std::sync::Arc;

use anyhow::anyhow;
use plateau_core::plan::{BaseUrl, Plan, Target};
use plateau_http::proxy::Proxies;
use plateau_http::tls::Roots;
use plateau_http::{Client, EndpointNet, Network, ProxyChoice};

use crate::exit::Failure;
use crate::redact::Redactions;

/// The client of `plan`, whose endpoints are at `targets`, keeping `pool_size` idle
/// connections per origin.
pub fn client(
    plan: &Plan,
    targets: &[BaseUrl],
    pool_size: usize,
    redactions: &Redactions,
) -> Result<Client, Failure> {
    let env = |name: &str| std::env::var(name).ok();
    let proxies = Proxies::from_env(&env).map_err(|e| Failure::bad_input(anyhow!("{e}")))?;
    redactions.add(
        proxies
            .all()
            .flat_map(|p| p.secrets())
            .map(plateau_model::secret::Secret::new)
            .filter(plateau_model::secret::Secret::is_scrubbable),
    );
    let roots = Roots::load();
    for w in &roots.warnings {
        tracing::warn!("{w}");
    }
    let endpoints: Vec<_> = plan
        .endpoints
        .iter()
        .zip(targets)
        .filter_map(|(e, base)| {
            let net = match e.target {
                Target::InProcessSim => EndpointNet {
                    proxy: ProxyChoice::Direct,
                    ..EndpointNet::default()
                },
                Target::Url(_) => e.net.clone(),
            };
            Some((base.join("").ok()?, net))
        })
        .collect();
    let network = Network::new(proxies, &roots, &endpoints)
        .map_err(|e| Failure::bad_input(anyhow!("{e}")))?;
    Ok(Client::with_network(pool_size, Arc::new(network)))
}
