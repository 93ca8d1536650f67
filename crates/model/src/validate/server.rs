//! Checks on what the server says of itself. `server_saturated`: its own waiting queue
//! (scraped from its `/metrics`) was non-empty through most of Measure, so the N plateau
//! held exceeds what the server runs at once. `server_timing_disagrees`: its own TTFT (or
//! prefill) disagrees with plateau's by more than the measured gap explains. Findings about
//! the server, not failed measurements: warn.

use crate::results::summary::CellSummary;
use crate::server_timing::{GapBasis, client_ttft_ms, server_basis_ms};

/// Why the server was saturated at this cell's load, with its numbers; `None` when it was
/// not, or when its metrics could not say.
pub fn server_saturated(s: &CellSummary) -> Option<String> {
    let server = s.server.as_ref()?;
    if server.saturated != Some(true) {
        return None;
    }
    let m = &server.measure;
    let waiting = m.waiting?;
    let load = match (s.cell.load.concurrency, s.cell.load.request_rate) {
        (Some(n), _) => format!("while plateau held {n} in flight"),
        (None, Some(rps)) => format!("while plateau sent {rps} req/s"),
        (None, None) => "under this load".into(),
    };
    let running = m
        .running
        .map(|r| format!(", running mean {:.1}", r.mean))
        .unwrap_or_default();
    Some(format!(
        "the server queued requests in {:.0}% of Measure's scrapes (waiting mean {:.1}, max {}{running}) {load}: the server is saturated at this load",
        m.waiting_share.unwrap_or(0.0) * 100.0,
        waiting.mean,
        waiting.max,
    ))
}

/// How far beyond its bound a percentile must be to be a disagreement: more than 1 ms and
/// more than 1% of plateau's TTFT at that percentile (`client_ms`).
pub fn disagreement_margin_ms(client_ms: f64) -> f64 {
    (0.01 * client_ms).max(1.0)
}

/// Why the server's own TTFT (prefill, for llama.cpp) disagrees with plateau's TTFT from
/// the send by more than the measured gap explains; `None` when they agree or there is
/// nothing to compare.
///
/// Per matched request plateau's TTFT is the server's plus the gap, so over the same
/// requests, at any percentile q: `server_q + gap_min <= client_q <= server_q + gap_max`
/// (percentiles of the parts do not add up, but these bounds hold on any set of requests).
/// The finding names each bound broken at p50 or p99 by more than the margin (the larger
/// of 1 ms and 1% of plateau's TTFT at that percentile), and a gap below minus that margin
/// at p50 (a request whose server timing is longer than the client's whole wait). Without `stream` there is no
/// gap: only the server's percentile above plateau's is checked.
pub fn server_timing_disagrees(s: &CellSummary) -> Option<String> {
    let st = s.server_timing.as_ref()?;
    let client = client_ttft_ms(&s.metrics)?;
    let server = server_basis_ms(st)?;
    let what = match st.gap_basis {
        GapBasis::ServerTtft => "TTFT",
        GapBasis::ServerPrefill => "prefill",
    };
    let gap = st.gap_ms.as_ref();
    let mut broken = Vec::new();
    if let Some(g) = gap
        && g.min < -disagreement_margin_ms(client.p50)
    {
        broken.push(format!(
            "on {} of {} matched requests the server's {what} is longer than plateau's TTFT \
             (by up to {:.1} ms)",
            st.negative_gaps, st.matched, -g.min
        ));
    }
    let quantiles = [
        ("p50", client.p50, server.p50),
        ("p99", client.p99, server.p99),
    ];
    for (q, c, sv) in quantiles {
        let margin = disagreement_margin_ms(c);
        let least = gap.map_or(0.0, |g| g.min);
        if sv + least - c > margin {
            broken.push(format!(
                "plateau's TTFT {q} ({c:.1} ms) is {:.1} ms below the server's {what} {q} \
                 ({sv:.1} ms) plus the smallest gap ({least:.1} ms)",
                sv + least - c
            ));
        }
        if let Some(g) = gap
            && c - sv - g.max > margin
        {
            broken.push(format!(
                "plateau's TTFT {q} ({c:.1} ms) is {:.1} ms above the server's {what} {q} \
                 ({sv:.1} ms) plus the largest gap ({:.1} ms)",
                c - sv - g.max,
                g.max
            ));
        }
    }
    if broken.is_empty() {
        return None;
    }
    Some(format!(
        "{}: the server's timings and plateau's do not describe the same requests ({} of \
         {} measured requests matched) or do not time the same events",
        broken.join("; "),
        st.matched,
        st.records
    ))
}

/// Why the server's spans are missing for too many of the cell's requests (a receiver ran
/// and fewer than 90% of the measured successful requests got a span), naming the likely
/// cause from the receiver's counts; `None` otherwise.
pub fn server_spans_missing(s: &CellSummary) -> Option<String> {
    let st = s.server_timing.as_ref()?;
    let (receiver, spans) = (st.receiver?, st.spans?);
    let rate = st.match_rate?;
    if rate >= 0.9 {
        return None;
    }
    let flags = "vLLM: `--otlp-traces-endpoint http://HOST:PORT/v1/traces` with \
                 `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf`; SGLang: `--enable-trace \
                 --otlp-traces-endpoint http://HOST:PORT/v1/traces` with the same variable";
    let cause = if receiver.grpc_connections > 0 {
        format!(
            "{} connections spoke gRPC (HTTP/2): set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf \
             in the server's environment",
            receiver.grpc_connections
        )
    } else if receiver.wrong_path > 0 {
        format!(
            "{} exports went to another path than /v1/traces: give the exporter the full URL \
             ending in /v1/traces",
            receiver.wrong_path
        )
    } else if receiver.dropped_spans > 0 {
        format!(
            "{} spans were dropped at server_traces.max_spans: raise it",
            receiver.dropped_spans
        )
    } else if receiver.requests == 0 {
        format!("nothing was received; start the server with {flags}")
    } else if spans.unmatched > 0 {
        format!(
            "{} spans arrived in traces plateau did not send: the server did not carry the \
             `traceparent` (vLLM needs tracing on to read it)",
            spans.unmatched
        )
    } else {
        "spans arrived too late: raise server_traces.wait_seconds, or export sooner \
         (OTEL_BSP_SCHEDULE_DELAY=500 for vLLM)"
            .into()
    };
    Some(format!(
        "only {} of {} measured requests ({:.0}%) got the server's span: {cause}",
        st.matched,
        st.records,
        rate * 100.0
    ))
}

/// Why the time outside the engine dominates the tail of TTFT (the gap's p99 at least half
/// the client's TTFT p99, over at least 20 matched requests); `None` otherwise.
pub fn api_layer_dominates_ttft(s: &CellSummary) -> Option<String> {
    let st = s.server_timing.as_ref()?;
    let gap = st.gap_ms.as_ref()?;
    let ttft = client_ttft_ms(&s.metrics)?;
    if st.matched < 20 || ttft.p99 <= 0.0 || gap.p99 < 0.5 * ttft.p99 {
        return None;
    }
    Some(format!(
        "the gap between plateau's TTFT and the server's {} is {:.1} ms at p99, {:.0}% of the \
         TTFT p99 of {:.1} ms: most of the tail is spent outside the engine (network, HTTP, \
         the server's API layer and tokenizer)",
        match st.gap_basis {
            GapBasis::ServerTtft => "TTFT",
            GapBasis::ServerPrefill => "prefill",
        },
        gap.p99,
        100.0 * gap.p99 / ttft.p99,
        ttft.p99
    ))
}

#[cfg(test)]
mod tests;
