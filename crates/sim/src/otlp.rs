//! The simulator's OpenTelemetry exporter (off by default; `SimConfig::otlp`): one span per
//! completed request with vLLM's name (`llm_request`), kind and `gen_ai.*` attributes
//! (vLLM d0782260 `vllm/v1/engine/output_processor.py` `do_tracing`; the request id is
//! `chatcmpl-` or `cmpl-` and the `X-Request-Id`, as vLLM's serving layer makes it), its
//! start the request's arrival in wall-clock ns, in the trace of the request's
//! `traceparent` when it carries a valid one, posted to an OTLP/HTTP endpoint in protobuf
//! in batches, as vLLM's batch span processor does. The fixed profile reports its configured
//! `fixed.queue_ms` as the queue and the rest of the measured time to first token as the
//! prefill; the realistic profile reports no queue or prefill (its engine does not expose
//! when a request was scheduled).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST};
use http::{HeaderMap, Request, Uri};
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use plateau_otlp::{Resource, Span, SpanId, TraceId, Value};
use rand::Rng;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::SimError;
use crate::openai::Api;

/// The attribute keys the span carries, in vLLM's `SpanAttributes` names (the fixed
/// profile's queue and prefill included).
#[cfg(test)]
pub(crate) const VLLM_KEYS: [&str; 10] = [
    "gen_ai.request.id",
    "gen_ai.latency.time_to_first_token",
    "gen_ai.latency.e2e",
    "gen_ai.latency.time_in_queue",
    "gen_ai.latency.time_in_model_prefill",
    "gen_ai.latency.time_in_model_decode",
    "gen_ai.latency.time_in_model_inference",
    "gen_ai.usage.prompt_tokens",
    "gen_ai.usage.completion_tokens",
    "gen_ai.response.finish_reasons",
];

/// Where and how often the simulator exports its spans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OtlpConfig {
    /// The OTLP/HTTP traces URL (`http://127.0.0.1:4318/v1/traces`); empty under
    /// `plateau run` with `server_traces`: the run's receiver.
    pub endpoint: String,
    /// Time between exports, ms (vLLM's SDK default is 5000; short here so runs end soon).
    pub export_interval_ms: u64,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        OtlpConfig {
            endpoint: "http://127.0.0.1:4318/v1/traces".into(),
            export_interval_ms: 100,
        }
    }
}

impl OtlpConfig {
    /// The endpoint as a URI; an error naming the field unless it is an http URL.
    pub(crate) fn uri(&self) -> Result<Uri, SimError> {
        let uri: Uri = self.endpoint.parse().map_err(|_| SimError::InvalidConfig {
            field: "otlp.endpoint",
            reason: format!("`{}` is not a URL", self.endpoint),
        })?;
        if uri.scheme_str() != Some("http") || uri.authority().is_none() {
            return Err(SimError::InvalidConfig {
                field: "otlp.endpoint",
                reason: "must be an http:// URL with a host".into(),
            });
        }
        Ok(uri)
    }
}

/// A request's span while the request runs.
#[derive(Debug)]
pub(crate) struct Pending {
    trace: TraceId,
    parent: Option<SpanId>,
    span_id: SpanId,
    arrival: Instant,
    arrival_unix_ns: u64,
    queue: Option<Duration>,
    prompt_tokens: u32,
    request_id: String,
}

impl Pending {
    /// The span of a request that arrived at `arrival` with `headers` (its `traceparent`
    /// names the trace), spending `queue` in the queue when known.
    pub(crate) fn new(
        headers: &HeaderMap,
        api: Api,
        arrival: Instant,
        queue: Option<Duration>,
        prompt_tokens: u32,
        rng: &mut impl Rng,
    ) -> Pending {
        let incoming = headers
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .and_then(plateau_otlp::parse_traceparent);
        let (trace, parent) = match incoming {
            Some((t, p)) => (t, Some(p)),
            None => (rng.random::<[u8; 16]>(), None),
        };
        let prefix = match api {
            Api::Chat => "chatcmpl-",
            Api::Completions => "cmpl-",
        };
        let request_id = headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .map_or_else(
                || plateau_otlp::hex(&rng.random::<[u8; 16]>()),
                str::to_owned,
            );
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_sub(arrival.elapsed());
        Pending {
            trace,
            parent,
            span_id: rng.random::<[u8; 8]>(),
            arrival,
            arrival_unix_ns: u64::try_from(since.as_nanos()).unwrap_or(u64::MAX),
            queue,
            prompt_tokens,
            request_id: format!("{prefix}{request_id}"),
        }
    }

    /// The finished span: first token at `first`, last at `last`, `completion` tokens,
    /// ended on a stop token (`stopped`) or the length limit.
    pub(crate) fn finish(
        self,
        first: Instant,
        last: Instant,
        completion: u32,
        stopped: bool,
    ) -> Span {
        let s = |d: Duration| Value::Double(d.as_secs_f64());
        let ttft = first.saturating_duration_since(self.arrival);
        let e2e = last.saturating_duration_since(self.arrival);
        let reason = if stopped {
            r#"["stop"]"#
        } else {
            r#"["length"]"#
        };
        let mut attributes = vec![
            ("gen_ai.request.id".to_owned(), Value::Str(self.request_id)),
            ("gen_ai.latency.time_to_first_token".to_owned(), s(ttft)),
            ("gen_ai.latency.e2e".to_owned(), s(e2e)),
        ];
        if let Some(q) = self.queue {
            attributes.push(("gen_ai.latency.time_in_queue".to_owned(), s(q)));
            attributes.push((
                "gen_ai.latency.time_in_model_prefill".to_owned(),
                s(ttft.saturating_sub(q)),
            ));
            attributes.push((
                "gen_ai.latency.time_in_model_inference".to_owned(),
                s(e2e.saturating_sub(q)),
            ));
        }
        attributes.extend([
            (
                "gen_ai.latency.time_in_model_decode".to_owned(),
                s(last.saturating_duration_since(first)),
            ),
            (
                "gen_ai.usage.prompt_tokens".to_owned(),
                Value::Int(i64::from(self.prompt_tokens)),
            ),
            (
                "gen_ai.usage.completion_tokens".to_owned(),
                Value::Int(i64::from(completion)),
            ),
            (
                "gen_ai.response.finish_reasons".to_owned(),
                Value::Str(reason.to_owned()),
            ),
        ]);
        let e2e_ns = u64::try_from(e2e.as_nanos()).unwrap_or(u64::MAX);
        Span {
            trace_id: self.trace,
            span_id: self.span_id,
            parent_span_id: self.parent,
            name: "llm_request".into(),
            start_unix_ns: self.arrival_unix_ns,
            end_unix_ns: self.arrival_unix_ns.saturating_add(e2e_ns),
            attributes,
        }
    }
}

/// Hands finished spans to the export task.
#[derive(Debug, Clone)]
pub(crate) struct Exporter {
    tx: mpsc::UnboundedSender<Span>,
}

impl Exporter {
    /// Starts the export task on the current runtime; it ends when `cancel` fires (after
    /// one last export).
    pub(crate) fn spawn(
        config: &OtlpConfig,
        cancel: CancellationToken,
    ) -> Result<Exporter, SimError> {
        let uri = config.uri()?;
        let every = Duration::from_millis(config.export_interval_ms.max(1));
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(rx, uri, every, cancel));
        Ok(Exporter { tx })
    }

    /// Queues `span` for the next export.
    pub(crate) fn send(&self, span: Span) {
        let _ = self.tx.send(span);
    }
}

async fn run(
    mut rx: mpsc::UnboundedReceiver<Span>,
    uri: Uri,
    every: Duration,
    cancel: CancellationToken,
) {
    let mut ticker = tokio::time::interval(every);
    let mut batch = Vec::new();
    loop {
        let stop = tokio::select! {
            () = cancel.cancelled() => true,
            _ = ticker.tick() => false,
        };
        while let Ok(span) = rx.try_recv() {
            batch.push(span);
        }
        if !batch.is_empty() {
            let body = plateau_otlp::encode(
                &batch,
                Resource {
                    service: "plateau-sim",
                    scope: "vllm.llm_engine",
                },
            );
            if let Err(e) = post(&uri, body).await {
                tracing::debug!("sim OTLP export of {} spans failed: {e}", batch.len());
            }
            batch.clear();
        }
        if stop {
            return;
        }
    }
}

/// POSTs one export request.
async fn post(uri: &Uri, body: Vec<u8>) -> Result<(), String> {
    let authority = uri.authority().ok_or("no host")?.clone();
    let port = authority.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((authority.host(), port))
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let req = Request::post(uri.clone())
        .header(HOST, authority.as_str())
        .header(CONTENT_TYPE, "application/x-protobuf")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let response = sender.send_request(req).await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("HTTP {}", response.status()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(traceparent: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("traceparent", traceparent.parse().unwrap());
        h.insert(
            "x-request-id",
            "0af7651916cd43dd8448eb211c80319c".parse().unwrap(),
        );
        h
    }

    #[test]
    fn the_span_is_vllms_in_the_callers_trace_with_the_configured_queue() {
        let h = headers("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        let arrival = Instant::now();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let queue = Some(Duration::from_millis(30));
        let p = Pending::new(&h, Api::Chat, arrival, queue, 50, &mut rng);
        let span = p.finish(
            arrival + Duration::from_millis(80),
            arrival + Duration::from_millis(280),
            11,
            false,
        );
        assert_eq!(
            plateau_otlp::hex(&span.trace_id),
            "0af7651916cd43dd8448eb211c80319c"
        );
        let parent = span.parent_span_id.map(|p| plateau_otlp::hex(&p));
        assert_eq!(parent.as_deref(), Some("b7ad6b7169203331"));
        assert_eq!(span.name, "llm_request");
        let keys: Vec<&str> = span.attributes.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        let mut expected = VLLM_KEYS.to_vec();
        expected.sort_unstable();
        assert_eq!(sorted, expected);
        let f = |k: &str| span.attr(k).and_then(Value::as_f64).unwrap();
        assert!((f("gen_ai.latency.time_in_queue") - 0.03).abs() < 1e-12);
        assert!((f("gen_ai.latency.time_in_model_prefill") - 0.05).abs() < 1e-12);
        assert!((f("gen_ai.latency.time_to_first_token") - 0.08).abs() < 1e-12);
        assert!((f("gen_ai.latency.time_in_model_decode") - 0.2).abs() < 1e-12);
        assert!((f("gen_ai.latency.time_in_model_inference") - 0.25).abs() < 1e-12);
        assert_eq!(f("gen_ai.usage.completion_tokens"), 11.0);
        assert_eq!(
            span.attr("gen_ai.request.id"),
            Some(&Value::Str(
                "chatcmpl-0af7651916cd43dd8448eb211c80319c".into()
            ))
        );
        assert_eq!(
            span.attr("gen_ai.response.finish_reasons"),
            Some(&Value::Str(r#"["length"]"#.into()))
        );
        assert_eq!(span.duration_ns(), 280_000_000);
    }

    #[test]
    fn without_a_valid_traceparent_the_span_has_a_trace_of_its_own() {
        let arrival = Instant::now();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(2);
        for h in [
            HeaderMap::new(),
            headers("00-00000000000000000000000000000000-b7ad6b7169203331-01"),
            headers("00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01"),
        ] {
            let own = Pending::new(&h, Api::Completions, arrival, None, 5, &mut rng)
                .finish(arrival, arrival, 1, true);
            assert!(own.parent_span_id.is_none());
            assert_ne!(own.trace_id, [0; 16]);
            assert_ne!(
                plateau_otlp::hex(&own.trace_id),
                "0af7651916cd43dd8448eb211c80319c"
            );
            assert!(own.attr("gen_ai.latency.time_in_queue").is_none());
            let id = own.attr("gen_ai.request.id");
            assert!(
                matches!(id, Some(Value::Str(s)) if s.starts_with("cmpl-")),
                "{id:?}"
            );
        }
    }
}
