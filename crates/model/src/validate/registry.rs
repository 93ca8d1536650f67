//! The findings registry: every check a [`super::Finding`] can name, with its severity, what
//! it means and what to do. `cargo xtask docs` writes it out as the book's findings
//! reference; a test (`registry/tests.rs`) parses the workspace's sources and fails when a
//! check name used in the code has no entry here, or an entry names a check nothing reports.
//! A new or renamed check adds or renames its entry here.

mod entry;
use entry::{EITHER, FAIL, WARN};
pub use entry::{Entry, Scope};

/// The entry of `check`, if it is registered.
pub fn lookup(check: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.check == check)
}

/// Every check, the cell's own first (in the order `check_cell` runs them), then the
/// directory's.
pub const REGISTRY: &[Entry] = &[
    Entry {
        check: "interrupted",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "The cell was stopped by Ctrl-C, SIGTERM or SIGHUP before it finished. Its \
                  records and summary were written, but its measure window may be cut short.",
        action: "Finish the run with `plateau run --resume` (same config and output directory): \
                 the cell is measured again.",
    },
    Entry {
        check: "failed",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "plateau gave up on the cell: every request of its endpoint failed for \
                  `give_up_after_seconds` (5 s when no connection could be opened), or every \
                  measured request failed. The message carries the server's last answer.",
        action: "Fix the endpoint (URL, key, model name, the server itself), then \
                 `plateau run --resume` redoes the failed and skipped cells.",
    },
    Entry {
        check: "records",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "The cell's `requests.jsonl.gz` is incomplete: writing it failed during the \
                  run, it cannot be read, or it holds a different number of records than its \
                  `summary.json` counted. The summary's numbers stand; the per-request files \
                  (report figures, export, compare) do not.",
        action: "Free disk space or fix the path the error names, then rerun the cell \
                 (delete its directory and `plateau run --resume`).",
    },
    Entry {
        check: "no_data",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "No request started in the measure window succeeded, so the cell has no \
                  latency or throughput to report.",
        action: "Look at the measured errors by kind in the cell's `summary.json` \
                 (`requests.measured_errors_by_kind`) and fix their cause; a measure window \
                 that no request started in also ends here: raise `measure_seconds`.",
    },
    Entry {
        check: "error_rate",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "More than 1% of the requests measured failed. The message gives the share, \
                  the share of slot-time spent failing or backing off, and the errors by kind. \
                  Failed requests count toward neither latency nor throughput, so the cell's \
                  numbers describe only the requests that succeeded.",
        action: "Find the error kinds' cause (`http_429`/`http_503`: the server refuses load, \
                 `timeout`: raise `request_timeout_seconds` or lower N, `connect`/`stream`: \
                 the server or a proxy drops connections) and rerun the cell.",
    },
    Entry {
        check: "overloaded",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "An open-loop cell whose requests outstanding and TTFT both rose through \
                  Measure: the server cannot take this request rate, so its p99s say only how \
                  long the window was. A finding about the server, not a failed measurement \
                  (rate sweeps and capacity searches probe past capacity on purpose).",
        action: "Read the cell as \"above capacity\"; for the highest rate the server \
                 sustains, run a capacity search (`capacity` in the config).",
    },
    Entry {
        check: "unsteady",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "The measure window was not a steady state: the output-token series varied \
                  too much between blocks of one request lifetime (`steady.max_cv`), trended \
                  up or down (`steady.max_trend`), the achieved concurrency stayed below \
                  `steady.min_concurrency_ratio` of N, or the window held fewer than three \
                  blocks. The message says which, with its numbers.",
        action: "Lengthen `stabilize_seconds` (warm-up left in Measure) or `measure_seconds` \
                 (too few request lifetimes: the message says how long it must be); a server \
                 that keeps drifting (thermal throttling, other tenants) needs `repeats` to \
                 show its spread.",
    },
    Entry {
        check: "drain_timeout",
        severity: EITHER,
        scope: Scope::Cell,
        meaning: "Measured requests were still running when Drain's limit passed, so they were \
                  cancelled and their lifetimes are missing from the tails. A failure, except \
                  in an overloaded open-loop cell, where it is a warning (its queue never \
                  empties).",
        action: "Set `drain_seconds` above the longest request, or remove it to derive the \
                 limit per cell; `request_timeout_seconds` also bounds a derived limit.",
    },
    Entry {
        check: "client_bottleneck",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "plateau itself was short of CPU during Measure: it used 90% or more of \
                  the cores it has, or its scheduling lag p99 exceeded 5 ms while the \
                  machine had idle CPU and woke a bare thread beside plateau's runtime on \
                  time. Every gap it stamped (TTFT, ITL, E2E) may carry its \
                  own delay.",
        action: "Run fewer requests in flight per client process, give the client more cores, \
                 or spread the load over several client machines; stop other work on the \
                 client machine.",
    },
    Entry {
        check: "busy_machine",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "plateau was late waking its tasks (scheduling lag p99 above 5 ms) and the \
                  machine held it up: other processes kept it at least 90% busy while plateau \
                  alone would not have filled it (read from `/proc/stat` at both ends of \
                  Measure), or a bare thread sleeping beside plateau's runtime woke late too \
                  (p99 at least half the runtime's: the kernel or a hypervisor was slow to \
                  run ready threads). Latencies may be stretched by up to the lag shown; \
                  throughput is unaffected. Not a failure of the run.",
        action: "Rerun on a quieter machine, or give plateau cores of its own (`taskset`, a \
                 container CPU set); on a virtual machine, one whose CPUs are not shared \
                 (steal time in `/proc/stat`).",
    },
    Entry {
        check: "client_busy",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "plateau used 75% or more of its cores during Measure (and was not the \
                  bottleneck): its own queueing may lengthen the tails it reports (ITL p99 \
                  first) before any median moves.",
        action: "For exact tails, give the client more cores or fewer requests in flight per \
                 process; medians and throughput stand.",
    },
    Entry {
        check: "server_saturated",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The server's own waiting queue (scraped from its `/metrics`) was non-empty in \
                  more than half of Measure's scrapes: it runs fewer requests at once than \
                  plateau holds in flight, and the rest wait in its queue (TTFT grows with N, \
                  throughput does not). A finding about the server at this load.",
        action: "Nothing, if you are looking for the knee; to serve this load, raise the \
                 server's batch limit (`max_num_seqs`, `--parallel`) or add instances.",
    },
    Entry {
        check: "server_timing_disagrees",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The server's own TTFT (llama.cpp: its prefill) and plateau's TTFT from the \
                  send disagree by more than the measured gap explains. Per matched request \
                  plateau's TTFT is the server's plus the gap, so at any percentile \
                  `server + gap_min <= plateau <= server + gap_max` over the same requests; \
                  the finding fires when, at p50 or p99, plateau's TTFT lies outside those \
                  bounds by more than 1 ms and more than 1% of it, or when the smallest gap \
                  is below minus that margin (a request the server timed longer than the \
                  client waited). The unmatched requests then differ from the matched ones, \
                  or the two do not time the same events (a proxy answering in the engine's \
                  place, a server that times something else, a clock that jumped).",
        action: "Look at the match rate and at the requests with a negative gap in \
                 `requests.jsonl.gz` (`server`, `trace_id`), and at what sits between \
                 plateau and the engine; until it is explained, do not read `server_timing` \
                 beside the client's numbers.",
    },
    Entry {
        check: "gpu_samples_stale",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The GPU readings (`gpu_metrics`) changed less than once per 2 s of Measure: \
                  the source refreshes its values slower than plateau reads them, so the \
                  per-phase power, and the energy where it comes from the power, rest on a \
                  few stale values. dcgm-exporter collects every 30 s by default \
                  (`--collect-interval`, `DCGM_EXPORTER_INTERVAL`).",
        action: "Start the DCGM exporter with `-c 250` (collect every 250 ms), or read \
                 `nvidia-smi` / `amd-smi` on the GPU host; until then read `summary.gpu` \
                 over long cells only.",
    },
    Entry {
        check: "server_spans_missing",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "`server_traces` was on, but fewer than 90% of the measured successful \
                  requests got the server's span: `server_timing` describes only the matched \
                  ones. The message names the likely cause from the receiver's counts: an \
                  exporter left on gRPC, a wrong path, spans dropped at `max_spans`, nothing \
                  received, spans in traces plateau did not send, or spans later than \
                  `wait_seconds`.",
        action: "Do what the message says; the flags and environment for vLLM and SGLang are \
                 in the guide's server traces page.",
    },
    Entry {
        check: "api_layer_dominates_ttft",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The gap between plateau's TTFT and the server's own (its p99) is at least \
                  half of the TTFT p99, over at least 20 matched requests: most of the tail \
                  of TTFT is spent outside the engine's queue and prefill (network, HTTP, the \
                  server's API process, tokenizing).",
        action: "Look at what sits between plateau and the engine (proxies, a gateway) and \
                 at the server's API layer (its CPU, its number of API processes) before \
                 tuning the engine.",
    },
    Entry {
        check: "small_sample",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The cell's TTFT p99 rests on fewer than 1,000 requests (fewer than 10 \
                  samples beyond it): it is set by a handful of the slowest requests, and \
                  `summary.json` flags it under `small_sample`.",
        action: "Treat the p99 as indicative, or lengthen `measure_seconds` as the message \
                 says (the seconds of Measure that give 1,000 requests at the cell's pace). \
                 The console table shows TTFT p95 for such cells.",
    },
    Entry {
        check: "imprecise",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "With adaptive phases, Measure reached `phases.measure.max` before the 95% \
                  intervals of output tokens/s and TTFT p50 came within `phases.precision` of \
                  their values: the cell's numbers are less precise than the config asked \
                  (the message gives the half-widths reached). The numbers themselves are \
                  sound; `summary.json` keeps them under `phases.phase_end.measure`.",
        action: "Raise `phases.measure.max`, loosen `phases.precision`, or read the cell's \
                 intervals as they are. A server whose throughput swings from block to block \
                 (see the steady verdict) may never meet a tight target.",
    },
    Entry {
        check: "token_agreement",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The client tokenizer's count of the replies differs from the server's \
                  `usage` by more than 5% on average: per-token figures computed from the \
                  tokenizer (ITL per token without per-chunk usage) are off by as much.",
        action: "Set `tokenizer` to the served model's (its Hugging Face id or \
                 `tokenizer.json`).",
    },
    Entry {
        check: "usage_mismatch",
        severity: FAIL,
        scope: Scope::Cell,
        meaning: "The server's `usage` does not describe the content received: it claims more \
                  than twice or less than half the tokens the text holds, or fewer tokens than \
                  events that carried text, for more than 1% of requests. TPOT and throughput \
                  read `usage`, so they cannot be trusted.",
        action: "Check the server or proxy that rewrites `usage`; meanwhile compare with the \
                 client tokenizer's counts (`n_out_client` in the records).",
    },
    Entry {
        check: "ignore_eos",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "`ignore_eos` was sent, but most measured replies were shorter than the \
                  `max_tokens` they asked for: the engine ignored it, so reply lengths vary \
                  with the model and cells compare less well.",
        action: "Use an engine that honours `ignore_eos`, or set `ignore_eos: false` and \
                 compare per-token figures (TPOT, throughput) rather than E2E.",
    },
    Entry {
        check: "not_streamed",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "`stream: false`: TTFT is the time to the whole response, and TPOT, ITL and \
                  jitter cannot be measured (they are absent, with the reason, never 0).",
        action: "Set `stream: true` (the default) for token timings.",
    },
    Entry {
        check: "buffered_stream",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "More than half of the socket reads carried more than one stream event: a \
                  proxy or gateway buffers the stream, so ITL is timed per read, not per token \
                  as the server sent it.",
        action: "Measure without the buffering hop (point `url` at the server itself), or \
                 turn buffering off in the proxy (nginx: `proxy_buffering off`).",
    },
    Entry {
        check: "input_length",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The server's `usage.prompt_tokens` differs from the target prompt length by \
                  more than 25%, and neither the tokenizer check nor the chat template \
                  accounts for it. The message gives both counts and the template's size.",
        action: "Set `tokenizer` to the served model's; a gap the chat template explains is \
                 expected and is not reported.",
    },
    Entry {
        check: "tokenizer_mismatch",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The server's own tokenizer (`/tokenize`) counts the scenario's prompts more \
                  than 5% away from plateau's tokenizer, so prompt lengths are not the targets \
                  the scenario names.",
        action: "Set `tokenizer` to the served model's Hugging Face id or its \
                 `tokenizer.json`.",
    },
    Entry {
        check: "synthetic_data",
        severity: WARN,
        scope: Scope::Cell,
        meaning: "The scenario's dataset was not fetched, so plateau's built-in text stood in \
                  for it (`\"synthetic\": true` in the summary): lengths are right, content and \
                  prefix-cache behaviour are not the dataset's.",
        action: "`plateau fetch-datasets` (or the one dataset named), then rerun the cells.",
    },
    Entry {
        check: "run_info",
        severity: EITHER,
        scope: Scope::Dir,
        meaning: "The directory's `run.json` is missing (a warning: missing cells cannot be \
                  told) or cannot be read (a failure; the message says why).",
        action: "Point `--results-dir` at the directory `plateau run` wrote; a damaged \
                 `run.json` needs the run repeated.",
    },
    Entry {
        check: "run_status",
        severity: FAIL,
        scope: Scope::Dir,
        meaning: "`run.json` says the run did not finish: it is still running or crashed, was \
                  interrupted, or stopped on an error (with the reason).",
        action: "Fix the cause, then finish the run with `plateau run --resume`.",
    },
    Entry {
        check: "missing",
        severity: FAIL,
        scope: Scope::Dir,
        meaning: "A cell `run.json` lists has no `summary.json`: it was never reached, given \
                  up, skipped because its endpoint failed, interrupted before writing, or its \
                  files were removed.",
        action: "`plateau run --resume` runs the missing cells.",
    },
    Entry {
        check: "not_in_run",
        severity: WARN,
        scope: Scope::Dir,
        meaning: "A cell directory that `run.json` does not list, probably left from an \
                  earlier run into the same directory; it is still read and reported.",
        action: "Remove it if it belongs to another run, or give each run its own \
                 `output_dir`.",
    },
    Entry {
        check: "summary",
        severity: FAIL,
        scope: Scope::Dir,
        meaning: "A cell's `summary.json` cannot be read or parsed; the message names the file \
                  and the error.",
        action: "Rerun the cell (delete its directory and `plateau run --resume`).",
    },
    Entry {
        check: "not_followed",
        severity: FAIL,
        scope: Scope::Dir,
        meaning: "A symbolic link inside the results directory, or a directory reached twice \
                  (a loop): plateau reads no file through a link, so what lies behind it is \
                  not in the results. The message names the path and where it points.",
        action: "Remove the link, or copy what it points to into the directory.",
    },
    Entry {
        check: "newer_version",
        severity: WARN,
        scope: Scope::Dir,
        meaning: "Some result files were written by a newer plateau than this one. They are \
                  read in the same layout, but whatever the newer version added is not shown. \
                  The message names both versions and one such file.",
        action: "Upgrade plateau to read them whole.",
    },
];

#[cfg(test)]
mod tests;
