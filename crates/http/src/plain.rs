//! Whole-body requests outside a measurement: a server's description of itself, its
//! `/v1/models` and `/metrics`, its `/tokenize`. They share the completions' connections
//! and their resend rule, and are bounded by a timeout each.

use bytes::Bytes;
use http::header::HeaderMap;
use http::{Method, Request, Uri};
use tokio::time::Duration;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::{Bounds, Client, ClientError, Failure, FailureKind, Stamps, post, whole};

impl Client {
    /// GETs `uri` and decodes the JSON body (for `/v1/models` at preflight);
    /// `error_message` reads an error body (the API's error shape).
    pub async fn get_json(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        error_message: &dyn Fn(&[u8]) -> String,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let (status, location, body) = self.get_located(uri, headers, timeout).await?;
        if !status.is_success() {
            return Err(ClientError::Status {
                status: status.as_u16(),
                message: match location {
                    Some(to) => format!("redirected to {to}"),
                    None => Some(error_message(&body))
                        .filter(|m| !m.trim().is_empty())
                        .or_else(|| status.canonical_reason().map(str::to_owned))
                        .unwrap_or_default(),
                },
            });
        }
        Ok(serde_json::from_slice(&body)?)
    }

    /// GETs `uri` and returns its body as text (a server's Prometheus `/metrics`); an
    /// error status carries no body text (it could echo a credential).
    pub async fn get_text(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<String, ClientError> {
        let (status, body) = self.get(uri, headers, timeout).await?;
        if !status.is_success() {
            return Err(ClientError::Status {
                status: status.as_u16(),
                message: status.canonical_reason().unwrap_or_default().to_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// GETs `uri` with `headers` and reads the whole body (up to 64 MiB) within
    /// `timeout`, whatever the status (a server's description of itself at the start of a
    /// run, its `/metrics`).
    pub async fn get(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<(http::StatusCode, Bytes), ClientError> {
        let (status, _, body) = self.get_located(uri, headers, timeout).await?;
        Ok((status, body))
    }

    /// [`Client::get`], with a redirect's `Location`.
    async fn get_located(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<(http::StatusCode, Option<String>, Bytes), ClientError> {
        let req = Request::builder()
            .method(Method::GET)
            .uri(uri)
            .body(Bytes::new())?;
        self.call(req, headers, timeout).await
    }

    /// POSTs the JSON `body` to `uri` with `headers` and reads the whole answer (up to
    /// 64 MiB) within `timeout`, whatever the status (a server's `/tokenize`).
    pub async fn post_json(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        body: &serde_json::Value,
        timeout: Duration,
    ) -> Result<(http::StatusCode, Bytes), ClientError> {
        let req = post(&uri, HeaderMap::new(), false, body.to_string().into_bytes())?;
        let (status, _, body) = self.call(req, headers, timeout).await?;
        Ok((status, body))
    }

    /// Sends `req` with `headers` added and reads the whole body within `timeout`, by the
    /// completions' rules (`send`): a request written to a reused connection the server
    /// had closed without answering (llama.cpp closes after each response) goes once more
    /// on a new connection.
    async fn call(
        &self,
        req: Request<Bytes>,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<(http::StatusCode, Option<String>, Bytes), ClientError> {
        let (mut parts, body) = req.into_parts();
        parts.headers.extend(headers.clone());
        let req = Request::from_parts(parts, body);
        let cancel = CancellationToken::new();
        let bounds = Bounds::new(timeout, &cancel);
        let clock = Clock::start();
        let failed = |f: Failure| match f.kind {
            FailureKind::Timeout => ClientError::Timeout(timeout),
            kind => ClientError::Transport(f.message.unwrap_or_else(|| format!("{kind:?}"))),
        };
        let response = self
            .send(req, &clock, &bounds, &mut Stamps::default())
            .await
            .map_err(failed)?;
        let status = response.status();
        let location = status
            .is_redirection()
            .then(|| response.headers().get(http::header::LOCATION))
            .flatten()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut buf = Vec::new();
        response
            .read(&clock, &bounds, &mut |data, _, _| whole(&mut buf, data))
            .await
            .map_err(failed)?;
        Ok((status, location, Bytes::from(buf)))
    }
}
