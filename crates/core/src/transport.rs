//! The runner's view of a server: [`Transport`] turns a prompt into an [`Exchange`].
//! [`HttpTransport`] is the real one (OpenAI body, pooled client, the endpoint's secrets
//! scrubbed from error text and stored answers, the join key of [`crate::trace`] on every
//! request); tests substitute a fake that runs on
//! paused time.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use http::Uri;
use tokio_util::sync::CancellationToken;

use plateau_http::{Client, Clock};

use crate::exchange::Exchange;
use crate::plan::{BaseUrl, Endpoint, RequestOptions};
use crate::wire::{self, Wire};
use crate::workload::Prompt;
use plateau_model::sample::Outcome;
use plateau_model::secret;

mod read;
mod stream;

pub use read::exchange;

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
    join: crate::trace::Join,
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
        let join = crate::trace::Join::new(
            crate::trace::TraceIds::random(),
            endpoint.headers.iter().map(|(n, v)| (n, v)),
        );
        Ok(HttpTransport {
            client,
            wire,
            uri,
            endpoint,
            model,
            options,
            join,
        })
    }
}

impl HttpTransport {
    /// The URL requests go to.
    pub fn uri(&self) -> &Uri {
        &self.uri
    }

    /// Scrubs the endpoint's secrets from what of `ex` can reach a file: the error text
    /// and, with `store_text`, the answer (also what a conversation sends back, so a
    /// stored prompt stays clean too). Token counts read the unscrubbed text.
    fn scrub(&self, ex: &mut Exchange) {
        let secrets = &self.endpoint.secrets;
        if let Some(e) = &mut ex.error
            && let Cow::Owned(clean) = secret::scrub(secrets, e)
        {
            *e = clean;
        }
        if self.options.store_text
            && let Cow::Owned(clean) = secret::scrub(secrets, &ex.text.answer)
        {
            ex.text.answer = clean;
        }
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
        let mut headers = self.wire.auth_headers(&self.endpoint);
        let trace_id = self.join.stamp(&mut headers);
        if let (Some(name), Some(turn)) = (&self.endpoint.session_header, &prompt.session)
            && let Ok(value) = http::HeaderValue::from_str(&turn.id)
        {
            headers.insert(name.clone(), value);
        }
        let mut ex = match plateau_http::post(&self.uri, headers, self.options.stream, body) {
            Ok(req) => {
                exchange(
                    &self.client,
                    req,
                    self.wire,
                    clock,
                    self.options.timeout,
                    cancel,
                )
                .await
            }
            Err(e) => {
                let mut ex = Exchange::new(clock.now_us());
                ex.outcome = Outcome::Decode;
                ex.error = Some(format!("could not build the request: {e}"));
                ex
            }
        };
        ex.trace_id = trace_id;
        self.scrub(&mut ex);
        ex
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::plan::Target;
    use plateau_model::config::{Api, Engine};
    use plateau_model::secret::Secret;

    fn transport(store_text: bool) -> HttpTransport {
        let base = BaseUrl::parse("http://127.0.0.1:1/v1").expect("a valid URL");
        let endpoint = Endpoint {
            name: "e".into(),
            engine: Engine::Openai,
            target: Target::Url(base.clone()),
            api: Api::Chat,
            api_key: None,
            headers: vec![],
            session_header: None,
            extra_body: Default::default(),
            ignore_eos: false,
            sim: None,
            secrets: vec![Secret::new("tok-1234"), Secret::new("Bearer tok-1234")],
            labels: Default::default(),
            net: Default::default(),
            hardware: None,
        };
        let options = RequestOptions {
            max_tokens: 8,
            stream: true,
            timeout: Duration::from_secs(1),
            store_text,
        };
        let client = Client::new(1).expect("a client");
        HttpTransport::new(client, &base, Arc::new(endpoint), "m".into(), options)
            .expect("a transport")
    }

    fn echoed() -> Exchange {
        let mut ex = Exchange::new(0);
        ex.error = Some("HTTP 401: bad Bearer tok-1234".into());
        ex.text.all = "you sent tok-1234".into();
        ex.text.answer = "you sent tok-1234".into();
        ex
    }

    #[test]
    fn errors_and_stored_answers_are_scrubbed() {
        let mut ex = echoed();
        transport(true).scrub(&mut ex);
        assert_eq!(ex.error.as_deref(), Some("HTTP 401: bad ***"));
        assert_eq!(ex.text.answer, "you sent ***");
        assert_eq!(
            ex.text.all, "you sent tok-1234",
            "token counts read the real text"
        );
    }

    #[test]
    fn an_answer_not_stored_is_left_alone() {
        let mut ex = echoed();
        transport(false).scrub(&mut ex);
        assert_eq!(ex.error.as_deref(), Some("HTTP 401: bad ***"));
        assert_eq!(ex.text.answer, "you sent tok-1234");
    }
}
