//! The runner's view of a server: [`Transport`] turns a prompt into an [`Exchange`].
//! [`HttpTransport`] is the real one (OpenAI body, pooled client, secrets scrubbed from
//! error text); tests substitute a fake that runs on paused time.

use std::future::Future;
use std::sync::Arc;

use http::Uri;
use tokio_util::sync::CancellationToken;

use crate::client::{self, Client};
use crate::clock::Clock;
use crate::exchange::Exchange;
use crate::plan::{BaseUrl, Endpoint, RequestOptions};
use crate::sample::Outcome;
use crate::wire::{self, Wire};
use crate::workload::Prompt;

/// Sends one prompt and reports what happened; never fails (failures are outcomes).
pub trait Transport: Send + Sync + 'static {
    /// Sends `prompt`; stamps with `clock`; stops early when `cancel` fires.
    fn exchange(
        &self,
        prompt: &Prompt,
        clock: &Clock,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Exchange> + Send;
}

/// HTTP in the endpoint's wire format.
pub struct HttpTransport {
    client: Client,
    wire: &'static dyn Wire,
    uri: Uri,
    endpoint: Arc<Endpoint>,
    model: String,
    options: RequestOptions,
}

impl HttpTransport {
    /// Requests to `model` at `base` for `endpoint`'s API.
    pub fn new(
        client: Client,
        base: &BaseUrl,
        endpoint: Arc<Endpoint>,
        model: String,
        options: RequestOptions,
    ) -> Result<Self, http::uri::InvalidUri> {
        let wire = wire::of(&endpoint);
        let uri = base.join(wire.path(endpoint.api))?;
        Ok(HttpTransport {
            client,
            wire,
            uri,
            endpoint,
            model,
            options,
        })
    }
}

impl Transport for HttpTransport {
    async fn exchange(
        &self,
        prompt: &Prompt,
        clock: &Clock,
        cancel: &CancellationToken,
    ) -> Exchange {
        let body = self
            .wire
            .body(&self.endpoint, &self.model, prompt, &self.options);
        let headers = self.wire.auth_headers(&self.endpoint);
        let mut ex = match client::post(&self.uri, headers, self.options.stream, body) {
            Ok(req) => {
                self.client
                    .exchange(req, self.wire, clock, self.options.timeout, cancel)
                    .await
            }
            Err(e) => {
                let mut ex = Exchange::new(clock.now_us());
                ex.outcome = Outcome::Decode;
                ex.error = Some(format!("could not build the request: {e}"));
                ex
            }
        };
        ex.error = ex.error.map(|e| self.endpoint.scrub(&e));
        ex
    }
}
