//! Before the first cell: start the in-process simulator for `sim` endpoints, ask each
//! endpoint for `/v1/models`, and send one real request per model, so a wrong URL, key or
//! model name stops the run in seconds (exit 3) with the server's own message, not after
//! hours of failed cells.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use plateau_core::plan::{BaseUrl, Endpoint, Model, Plan, RequestOptions, Target};
use plateau_core::transport::{HttpTransport, Transport};
use plateau_core::wire;
use plateau_core::workload::{Message, Prompt, Role};
use plateau_http::Clock;
use plateau_http::{Client, ClientError};
use plateau_model::results::run_info::EndpointInfo;
use plateau_model::sample::Outcome;
use plateau_sim::{Server, SimConfig};
use tokio_util::sync::CancellationToken;

use crate::exit::Failure;

/// Simulators started for this run; shut down when the run ends.
pub struct Sims(Vec<Server>);

impl Sims {
    /// Stops every simulator.
    pub async fn shutdown(self) {
        for s in self.0 {
            s.shutdown().await;
        }
    }
}

/// The base URL of each endpoint, starting a simulator with `sims[i]` for each endpoint
/// the plan runs in-process.
pub async fn resolve_targets(
    plan: &Plan,
    sims: &[Option<SimConfig>],
) -> Result<(Vec<BaseUrl>, Sims), Failure> {
    let mut targets = Vec::new();
    let mut started = Vec::new();
    for (e, sim) in plan.endpoints.iter().zip(sims) {
        match (&e.target, sim) {
            (Target::Url(base), _) => targets.push(base.clone()),
            (Target::InProcessSim, sim) => {
                let config = sim.clone().unwrap_or_default();
                let addr: SocketAddr = ([127, 0, 0, 1], 0).into();
                let server = Server::start(addr, config)
                    .await
                    .map_err(|e| Failure::other(anyhow!("starting the simulator: {e}")))?;
                let base = BaseUrl::parse(&format!("http://{}/v1", server.addr()))
                    .map_err(|e| Failure::other(anyhow!("simulator address: {e}")))?;
                tracing::info!("endpoint {}: simulated engine on {}", e.name, base.as_str());
                targets.push(base);
                started.push(server);
            }
        }
    }
    Ok((targets, Sims(started)))
}

/// Asks each endpoint for its models and sends each model one request; an endpoint that is
/// unreachable or refuses (401/403/404) fails the run before it starts.
pub async fn check(
    plan: &Plan,
    targets: &[BaseUrl],
    client: &Client,
) -> Result<Vec<EndpointInfo>, Failure> {
    let mut infos = Vec::new();
    for (e, base) in plan.endpoints.iter().zip(targets) {
        let uri = base
            .join("models")
            .map_err(|err| Failure::bad_input(anyhow!("endpoint {}: {err}", e.name)))?;
        let wire = wire::of(e);
        let models = match client
            .get_json(
                uri.clone(),
                &wire.auth_headers(e),
                &|body| wire.error_message(body),
                Duration::from_secs(15),
            )
            .await
        {
            Ok(mut v) => {
                // Kept in run.json: a server may quote the credentials back.
                e.scrub_json(&mut v);
                Some(v)
            }
            Err(ClientError::Status {
                status: status @ (401 | 403),
                message,
            }) => {
                return Err(Failure::unreachable(anyhow!(
                    "endpoint {} ({}): HTTP {status} from /models: {}; check api_key_env, headers and the URL's credentials",
                    e.name,
                    base.as_str(),
                    e.scrub(&message)
                )));
            }
            Err(ClientError::Status { status, message })
                if refuses(status, client.proxy_for(&uri).as_deref()) =>
            {
                return Err(Failure::unreachable(anyhow!(
                    "endpoint {} ({}): HTTP {status} from /models: {}; {}",
                    e.name,
                    base.as_str(),
                    e.scrub(&message),
                    what_to_do(status, client.proxy_for(&uri))
                )));
            }
            Err(ClientError::Status { status, message }) => {
                tracing::warn!(
                    "endpoint {}: /models answered HTTP {status} ({}); going on",
                    e.name,
                    e.scrub(&message)
                );
                None
            }
            Err(err) => {
                return Err(Failure::unreachable(anyhow!(
                    "endpoint {} at {} is unreachable: {}",
                    e.name,
                    base.as_str(),
                    e.scrub(&err.to_string())
                )));
            }
        };
        if let Some(listed) = models.as_ref().and_then(listed_ids) {
            unlisted(plan, e, base, &listed)?;
        }
        for model in &plan.models {
            try_one(plan, e, base, model, client).await?;
        }
        let mut info = e.info(base.as_str(), models);
        info.proxy = client.proxy_for(&uri);
        infos.push(info);
    }
    Ok(infos)
}

/// Whether HTTP `status` at preflight, sent through `proxy` if any, means the endpoint
/// cannot be measured as configured: a redirect (never followed), a proxy asking for
/// credentials, or a proxy that could not reach the server.
fn refuses(status: u16, proxy: Option<&str>) -> bool {
    (300..400).contains(&status) || status == 407 || (status == 502 && proxy.is_some())
}

/// What to do about a refusing `status` (see [`refuses`]), through `proxy` if any.
fn what_to_do(status: u16, proxy: Option<String>) -> String {
    let proxy = proxy.unwrap_or_else(|| "(none)".into());
    match status {
        407 => format!(
            "the proxy {proxy} asks for credentials: put them in its URL, \
             http://user:password@host:port (HTTP_PROXY, or the endpoint's proxy)"
        ),
        502 => format!(
            "the proxy {proxy} could not reach the server: check the URL, or go around the \
             proxy with NO_PROXY or the endpoint's \"proxy\": \"none\""
        ),
        _ => "plateau does not follow redirects: point the endpoint at the new location".into(),
    }
}

/// Sends `model` at endpoint `e` one short request, as the cells will (same API, streaming
/// and extras). 401/403/404 or no connection stop the run; other failures are warned about
/// and left to the cells (which back off and give up on their own).
async fn try_one(
    plan: &Plan,
    e: &Endpoint,
    base: &BaseUrl,
    model: &Model,
    client: &Client,
) -> Result<(), Failure> {
    let options = RequestOptions {
        max_tokens: 1,
        ..plan.request
    };
    let transport = HttpTransport::new(
        client.clone(),
        base,
        Arc::new(e.clone()),
        model.name.clone(),
        options,
    )
    .map_err(|err| Failure::bad_input(anyhow!("endpoint {}: {err}", e.name)))?;
    let prompt = Prompt {
        messages: vec![Message::new(Role::User, "Hello")],
        target_tokens: None,
        turn: None,
        max_tokens: None,
        reply_tokens: None,
        session: None,
        tools: None,
    };
    let ex = transport
        .exchange(&prompt, &Clock::start(), &CancellationToken::new())
        .await;
    let said = ex.error.as_deref().unwrap_or("no message");
    match ex.outcome {
        Outcome::Ok => {
            tracing::info!(
                "endpoint {}: model `{}` answered a first request in {:.0} ms",
                e.name,
                model.name,
                ex.t_end_us.saturating_sub(ex.t_sent_us) as f64 / 1e3
            );
            Ok(())
        }
        Outcome::HttpStatus {
            status: status @ (401 | 403 | 404),
        } => {
            let hint = match status {
                404 => format!(
                    "check models[].name `{}` against the server's /models, and the URL's path",
                    model.name
                ),
                _ => "check api_key_env, headers and the URL's credentials".into(),
            };
            Err(Failure::unreachable(anyhow!(
                "endpoint {} ({}): a request for model `{}` got HTTP {status}: {said}; {hint}",
                e.name,
                base.as_str(),
                model.name
            )))
        }
        Outcome::HttpStatus { status }
            if refuses(status, client.proxy_for(transport.uri()).as_deref()) =>
        {
            // A redirect's message already says where it points and what to do.
            let hint = match status {
                300..400 => String::new(),
                _ => format!(
                    "; {}",
                    what_to_do(status, client.proxy_for(transport.uri()))
                ),
            };
            Err(Failure::unreachable(anyhow!(
                "endpoint {} ({}): a request for model `{}` got HTTP {status}: {said}{hint}",
                e.name,
                base.as_str(),
                model.name
            )))
        }
        Outcome::Connect => Err(Failure::unreachable(anyhow!(
            "endpoint {} at {} is unreachable: {said}",
            e.name,
            base.as_str()
        ))),
        other => {
            tracing::warn!(
                "endpoint {}: a first request for model `{}` failed ({}: {said}); going on",
                e.name,
                model.name,
                other.key()
            );
            Ok(())
        }
    }
}

/// Stops the run (exit 3) when `listed`, the non-empty list of `/v1/models` at endpoint
/// `e`, lacks a configured model: a server that answers any name (llama.cpp) would run the
/// whole benchmark on the model it serves under the name typed. `allow_unlisted_model`
/// goes on with a warning.
fn unlisted(plan: &Plan, e: &Endpoint, base: &BaseUrl, listed: &[String]) -> Result<(), Failure> {
    let missing: Vec<&str> = plan
        .models
        .iter()
        .map(|m| m.name.as_str())
        .filter(|name| !listed.is_empty() && !listed.iter().any(|id| id == name))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let quoted = |names: &mut dyn Iterator<Item = &str>| {
        names
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let what = format!(
        "endpoint {} ({}): /v1/models lists {}, not {}",
        e.name,
        base.as_str(),
        quoted(&mut listed.iter().map(String::as_str)),
        quoted(&mut missing.iter().copied())
    );
    let what = e.scrub(&what);
    if plan.allow_unlisted_model {
        tracing::warn!("{what}; going on (allow_unlisted_model)");
        return Ok(());
    }
    Err(Failure::unreachable(anyhow!(
        "{what}; set models[].name to a listed one (a server that answers any name would \
         measure the model it serves under the name given), or --set allow_unlisted_model=true \
         if the list is not the whole story"
    )))
}

fn listed_ids(v: &serde_json::Value) -> Option<Vec<String>> {
    let data = v.get("data")?.as_array()?;
    Some(
        data.iter()
            .filter_map(|m| m.get("id")?.as_str().map(str::to_owned))
            .collect(),
    )
}
