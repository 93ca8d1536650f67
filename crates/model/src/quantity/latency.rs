//! Latency quantities: TTFT, TPOT, ITL and E2E percentiles and means, each constant's
//! closure the one place its value is read (split from `list.rs` by concept; `quantity`
//! re-exports both).

use super::{Quantity, Reading, mean, p50, p90, p95, p99};

// Latency.
quantity!(
    TTFT_P50,
    "ttft_ms.p50",
    "ttft_ms_p50",
    "TTFT p50",
    "ms",
    Measure,
    Lower,
    |s| p50(&s.metrics.ttft_ms)
);
quantity!(
    TTFT_P90,
    "ttft_ms.p90",
    "ttft_ms_p90",
    "TTFT p90",
    "ms",
    Measure,
    Lower,
    |s| p90(&s.metrics.ttft_ms)
);
quantity!(
    TTFT_P95,
    "ttft_ms.p95",
    "ttft_ms_p95",
    "TTFT p95",
    "ms",
    Measure,
    Lower,
    |s| p95(&s.metrics.ttft_ms)
);
quantity!(
    TTFT_P99,
    "ttft_ms.p99",
    "ttft_ms_p99",
    "TTFT p99",
    "ms",
    Measure,
    Lower,
    |s| p99(&s.metrics.ttft_ms)
);
quantity!(
    TPOT_P50,
    "tpot_ms.p50",
    "tpot_ms_p50",
    "TPOT p50",
    "ms",
    Measure,
    Lower,
    |s| p50(&s.metrics.tpot_ms)
);
quantity!(
    TPOT_P99,
    "tpot_ms.p99",
    "tpot_ms_p99",
    "TPOT p99",
    "ms",
    Measure,
    Lower,
    |s| p99(&s.metrics.tpot_ms)
);
quantity!(
    ITL_P50,
    "itl_chunk_ms.p50",
    "itl_chunk_ms_p50",
    "ITL p50",
    "ms",
    Measure,
    Lower,
    |s| p50(&s.metrics.itl_chunk_ms)
);
quantity!(
    ITL_P99,
    "itl_chunk_ms.p99",
    "itl_chunk_ms_p99",
    "ITL p99",
    "ms",
    Measure,
    Lower,
    |s| p99(&s.metrics.itl_chunk_ms)
);
quantity!(
    ITL_TOKEN_P99,
    "itl_token_ms.p99",
    "itl_token_ms_p99",
    "ITL p99 per token",
    "ms",
    Measure,
    Lower,
    |s| p99(&s.metrics.itl_token_ms)
);
quantity!(
    E2E_P50,
    "e2e_ms.p50",
    "e2e_ms_p50",
    "E2E p50",
    "ms",
    Measure,
    Lower,
    |s| p50(&s.metrics.e2e_ms)
);
quantity!(
    E2E_P99,
    "e2e_ms.p99",
    "e2e_ms_p99",
    "E2E p99",
    "ms",
    Measure,
    Lower,
    |s| p99(&s.metrics.e2e_ms)
);
// Latency means (compared by `plateau compare` beside the percentiles).
quantity!(
    TTFT_MEAN,
    "ttft_ms.mean",
    "ttft_ms_mean",
    "TTFT mean",
    "ms",
    Measure,
    Lower,
    |s| mean(&s.metrics.ttft_ms)
);
quantity!(
    TPOT_MEAN,
    "tpot_ms.mean",
    "tpot_ms_mean",
    "TPOT mean",
    "ms",
    Measure,
    Lower,
    |s| mean(&s.metrics.tpot_ms)
);
quantity!(
    E2E_MEAN,
    "e2e_ms.mean",
    "e2e_ms_mean",
    "E2E mean",
    "ms",
    Measure,
    Lower,
    |s| mean(&s.metrics.e2e_ms)
);
quantity!(
    JITTER_CHUNK,
    "jitter.chunk",
    "jitter_chunk",
    "jitter",
    "",
    Measure,
    Lower,
    |s| s.metrics.jitter.chunk.map(Reading::plain)
);
quantity!(
    JITTER_TOKEN,
    "jitter.token",
    "jitter_token",
    "jitter per token",
    "",
    Measure,
    Lower,
    |s| s.metrics.jitter.token.map(Reading::plain)
);
