//! Whole-body requests outside a measurement: a server's description of itself, its
//! `/v1/models` and `/metrics`, its `/tokenize`. They share the completions' connections
//! and their resend rule, and are bounded by a timeout each.

use bytes::Bytes;
use http::header::HeaderMap;
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use tokio::time::Duration;

use super::pool::{Checkout, Origin};
use super::send::{self, rebuild};
use super::{Client, ClientError, MAX_BODY, error_chain, post};
use crate::wire::Wire;

impl Client {
    /// GETs `uri` and decodes the JSON body (for `/v1/models` at preflight); `wire` reads
    /// an error body.
    pub async fn get_json(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        wire: &dyn Wire,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let (status, body) = self.get(uri, headers, timeout).await?;
        if !status.is_success() {
            return Err(ClientError::Status {
                status: status.as_u16(),
                message: wire.error_message(&body),
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
        let req = Request::builder()
            .method(Method::GET)
            .uri(uri)
            .body(Full::new(Bytes::new()))?;
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
        self.call(req, headers, timeout).await
    }

    /// Sends `req` with `headers` added and reads the whole body within `timeout`.
    async fn call(
        &self,
        req: Request<Full<Bytes>>,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<(http::StatusCode, Bytes), ClientError> {
        let (mut parts, body) = req.into_parts();
        parts.headers.extend(headers.clone());
        let fetch = async {
            let origin = Origin::of(&parts.uri)
                .ok_or_else(|| ClientError::Transport("the URL has no host".into()))?;
            let transport =
                |e: &(dyn std::error::Error + 'static)| ClientError::Transport(error_chain(e));
            // The completions' rule (`send`): a request never written, or written to a
            // reused connection the server had closed without answering (llama.cpp closes
            // after each response), goes once more on a new connection.
            let mut fresh = false;
            let (resp, conn) = loop {
                let Checkout {
                    mut conn, reused, ..
                } = self
                    .pool
                    .checkout(&origin, fresh)
                    .await
                    .map_err(|e| transport(&e))?;
                let reads_before = conn.reads();
                match conn.sender.try_send_request(rebuild(&parts, &body)).await {
                    Ok(resp) => break (resp, conn),
                    Err(e)
                        if !fresh
                            && (e.message().is_some()
                                || send::closed_unanswered(
                                    e.error(),
                                    reused,
                                    conn.reads() == reads_before,
                                )) =>
                    {
                        fresh = true;
                    }
                    Err(e) => return Err(transport(e.error())),
                }
            };
            let status = resp.status();
            let body = http_body_util::Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| ClientError::Transport(error_chain(e.as_ref())))?
                .to_bytes();
            self.pool.checkin(&origin, conn);
            Ok((status, body))
        };
        tokio::time::timeout(timeout, fetch)
            .await
            .map_err(|_| ClientError::Timeout(timeout))?
    }
}
