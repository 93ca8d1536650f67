//! Config validation: one [`Validator`] collects every problem with its field path, so a
//! user sees all of them at once.

use super::credentials::Credentials;
use super::{BaseUrl, Endpoint, Problem, Target};
use plateau_model::config::{
    Arrival, CapacityConfig, EndpointConfig, Engine, HardwareConfig, ProxyConfig, RateUnit,
    RunConfig, ServerMetricsConfig, SloConfig, SteadyConfig,
};
use plateau_model::secret::MASK;
use plateau_model::secret::forms::is_credential_name;
use std::time::Duration;

mod phases;

/// `config` as `run.json` keeps it: credential header values and URL credentials masked.
pub(super) fn redact(config: &RunConfig) -> RunConfig {
    let mut c = config.clone();
    for e in &mut c.endpoints {
        if let Some(url) = &mut e.url {
            *url = super::url::mask(url);
        }
        if let Some(ProxyConfig::Url(url) | ProxyConfig::Full { url, .. }) = &mut e.proxy {
            *url = super::url::mask(url);
        }
        for h in &mut e.headers {
            if is_credential_name(&h.name) {
                h.value = MASK.into();
            }
        }
    }
    c
}

/// Request-body keys plateau writes itself (see `wire::openai::request_body`), with what to
/// use instead: `extra_body` is merged last, so any of these would silently change the
/// request while the summary records plateau's own value (`max_tokens` 17, server got 3).
pub(super) const OWNED_BODY_KEYS: &[(&str, &str)] = &[
    ("model", "the model comes from `models[].name`"),
    ("messages", "the prompt comes from the scenario"),
    ("prompt", "the prompt comes from the scenario"),
    ("stream", "use the top-level `stream` instead"),
    ("max_tokens", "use the top-level `max_tokens` instead"),
    (
        "max_completion_tokens",
        "plateau bounds the output with `max_tokens`; use the top-level `max_tokens` instead",
    ),
    (
        "min_tokens",
        "plateau sets it to `max_tokens` on vLLM with `ignore_eos`; use the top-level `ignore_eos` and `max_tokens` instead",
    ),
    ("ignore_eos", "use the top-level `ignore_eos` instead"),
    (
        "stream_options",
        "plateau sets it to count tokens (`include_usage`, and `continuous_usage_stats` where the engine has it); turn streaming off with the top-level `stream`",
    ),
];

/// Whether a request-body value is the harmless one.
type Harmless = fn(&serde_json::Value) -> bool;

/// Request-body keys whose other values make a reply something plateau cannot measure as
/// one stream of generated tokens: the value that is harmless, and why any other is refused.
pub(super) const MISMEASURING_BODY_KEYS: &[(&str, Harmless, &str)] = &[
    (
        "n",
        |v| v.as_u64() == Some(1),
        "several completions per request would be counted as one stream of all their tokens (TPOT, ITL and throughput all wrong); one slot is one completion, so raise the concurrency instead",
    ),
    (
        "best_of",
        |v| v.as_u64() == Some(1),
        "the server would generate several completions and return one, working for more tokens than plateau sees; remove it",
    ),
    (
        "echo",
        |v| v.as_bool() == Some(false),
        "the prompt would come back as output and be counted as generated tokens; remove it",
    ),
];

/// Shortest time between two scrapes of a server's `/metrics`: faster would load the server
/// (vLLM renders every histogram per scrape) for no better picture of a cell.
const MIN_SCRAPE_INTERVAL_MS: u64 = 50;

#[derive(Default)]
pub(super) struct Validator {
    pub(super) problems: Vec<Problem>,
    pub(super) warnings: Vec<String>,
}

impl Validator {
    pub(super) fn problem(&mut self, field: String, message: impl Into<String>) {
        self.problems.push(Problem {
            field,
            message: message.into(),
        });
    }

    pub(super) fn non_empty(&mut self, field: &str, len: usize) {
        if len == 0 {
            self.problem(field.into(), "expected at least one entry");
        }
    }

    pub(super) fn path_component(&mut self, field: &str, value: &str) {
        let ok = !value.is_empty()
            && value != "."
            && value != ".."
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
        if !ok {
            self.problem(
                field.into(),
                format!("`{value}` must be a non-empty name of letters, digits, `.`, `_` or `-` (it names a results directory)"),
            );
        }
    }

    pub(super) fn unique_names<'a>(&mut self, field: &str, names: impl Iterator<Item = &'a str>) {
        let mut seen = std::collections::BTreeSet::new();
        for name in names {
            if !seen.insert(name) {
                self.problem(
                    field.into(),
                    format!("`{name}` appears twice; expected unique names"),
                );
            }
        }
    }

    pub(super) fn seconds(&mut self, field: &str, value: f64, positive: bool) -> Duration {
        let ok = value.is_finite() && value >= 0.0 && (!positive || value > 0.0) && value < 1e9;
        if !ok {
            let want = if positive {
                "a number of seconds above 0"
            } else {
                "a number of seconds >= 0"
            };
            self.problem(field.into(), format!("got {value}, expected {want}"));
            return Duration::ZERO;
        }
        Duration::from_secs_f64(value)
    }

    pub(super) fn ratio(&mut self, field: &str, value: f64) {
        if !(value.is_finite() && value >= 0.0) {
            self.problem(field.into(), format!("got {value}, expected a number >= 0"));
        }
    }

    /// The scrape interval of `server_metrics`, `None` when it is off.
    pub(super) fn server_metrics(&mut self, c: &ServerMetricsConfig) -> Option<Duration> {
        if c.interval_ms < MIN_SCRAPE_INTERVAL_MS {
            self.problem(
                "server_metrics.interval_ms".into(),
                format!(
                    "got {}, expected at least {MIN_SCRAPE_INTERVAL_MS} ms between scrapes (or `server_metrics.enabled: false` to turn scraping off)",
                    c.interval_ms
                ),
            );
        }
        c.enabled.then(|| Duration::from_millis(c.interval_ms))
    }

    pub(super) fn steady(&mut self, s: &SteadyConfig) {
        self.ratio("steady.max_cv", s.max_cv);
        self.ratio("steady.max_trend", s.max_trend);
        if !(0.0..=1.0).contains(&s.min_concurrency_ratio) {
            self.problem(
                "steady.min_concurrency_ratio".into(),
                format!(
                    "got {}, expected a fraction between 0 and 1",
                    s.min_concurrency_ratio
                ),
            );
        }
    }

    /// `request_rates`, `arrival`, `max_concurrency` and `capacity`.
    pub(super) fn open_loop(&mut self, config: &RunConfig) {
        let mut names = Vec::new();
        for (i, &rps) in config.request_rates.iter().enumerate() {
            if !(rps.is_finite() && (0.001..=1e6).contains(&rps)) {
                self.problem(
                    format!("request_rates[{i}]"),
                    format!("got {rps}, expected requests per second from 0.001 to 1000000"),
                );
            }
            names.push(super::format_rps(rps));
        }
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            self.problem(
                "request_rates".into(),
                "expected each rate once (rates are kept to three decimals)",
            );
        }
        if let Arrival::Gamma(g) = config.arrival
            && !(g.burstiness.is_finite() && g.burstiness > 0.0)
        {
            self.problem(
                "arrival.gamma.burstiness".into(),
                format!(
                    "got {}, expected a shape above 0 (1 is Poisson)",
                    g.burstiness
                ),
            );
        }
        if config.max_concurrency == Some(0) {
            self.problem(
                "max_concurrency".into(),
                "expected at least 1, or no key for no cap",
            );
        }
        if config.rate_unit == RateUnit::Sessions && config.request_rates.is_empty() {
            self.problem(
                "rate_unit".into(),
                "got \"sessions\" with no request_rates; expected session starts per second \
                 in request_rates (or no rate_unit)",
            );
        }
        if let Some(c) = &config.capacity {
            self.capacity(c);
        }
    }

    fn capacity(&mut self, c: &CapacityConfig) {
        let s = &c.slo;
        for (field, value) in [
            ("capacity.slo.ttft_p99_ms", s.ttft_p99_ms),
            ("capacity.slo.tpot_p99_ms", s.tpot_p99_ms),
            ("capacity.slo.e2e_p99_ms", s.e2e_p99_ms),
            ("capacity.target_rps", c.target_rps),
            ("capacity.start_rps", c.start_rps),
        ] {
            if let Some(v) = value
                && !(v.is_finite() && v > 0.0)
            {
                self.problem(field.into(), format!("got {v}, expected a number above 0"));
            }
        }
        if c.target_sessions == Some(0) {
            self.problem(
                "capacity.target_sessions".into(),
                "got 0, expected at least 1 concurrent session, or no key for no plan",
            );
        }
        if let Some(e) = s.max_error_rate
            && !(0.0..1.0).contains(&e)
        {
            self.problem(
                "capacity.slo.max_error_rate".into(),
                format!("got {e}, expected a fraction from 0 up to (not including) 1"),
            );
        }
        if s.ttft_p99_ms.is_none() && s.tpot_p99_ms.is_none() && s.e2e_p99_ms.is_none() {
            self.problem(
                "capacity.slo".into(),
                "expected at least one latency bound: ttft_p99_ms, tpot_p99_ms or e2e_p99_ms",
            );
        }
        if !(c.headroom.is_finite() && c.headroom >= 0.0) {
            self.problem(
                "capacity.headroom".into(),
                format!(
                    "got {}, expected a fraction of 0 or more (0.2 = 20% spare)",
                    c.headroom
                ),
            );
        }
        if !(c.resolution > 0.0 && c.resolution <= 1.0) {
            self.problem(
                "capacity.resolution".into(),
                format!(
                    "got {}, expected a fraction above 0 and at most 1",
                    c.resolution
                ),
            );
        }
        if c.max_probes < 2 {
            self.problem(
                "capacity.max_probes".into(),
                format!("got {}, expected at least 2", c.max_probes),
            );
        }
    }

    pub(super) fn slo(&mut self, slo: &SloConfig) {
        for (field, value) in [
            ("slo.ttft_ms", slo.ttft_ms),
            ("slo.tpot_ms", slo.tpot_ms),
            ("slo.e2e_ms", slo.e2e_ms),
        ] {
            if let Some(v) = value
                && !(v.is_finite() && v > 0.0)
            {
                self.problem(
                    field.into(),
                    format!("got {v}, expected milliseconds above 0"),
                );
            }
        }
        if slo.ttft_ms.is_none() && slo.tpot_ms.is_none() && slo.e2e_ms.is_none() {
            self.problem(
                "slo".into(),
                "expected at least one of ttft_ms, tpot_ms, e2e_ms",
            );
        }
    }

    pub(super) fn endpoint(
        &mut self,
        i: usize,
        e: &EndpointConfig,
        ignore_eos: Option<bool>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Endpoint> {
        let at = |key: &str| format!("endpoints[{i}].{key}");
        let before = self.problems.len();
        self.path_component(&at("name"), &e.name);
        let target = match (e.engine, e.url.as_deref()) {
            (Engine::Sim, None | Some("sim://")) => Target::InProcessSim,
            (_, Some(url)) => match BaseUrl::parse(url) {
                Ok(base) => Target::Url(base),
                Err(msg) => {
                    self.problem(at("url"), msg);
                    Target::InProcessSim
                }
            },
            (engine, None) => {
                self.problem(
                    at("url"),
                    format!(
                        "required for engine `{}` (e.g. http://localhost:8000/v1)",
                        engine.as_str()
                    ),
                );
                Target::InProcessSim
            }
        };
        if e.sim.is_some() && target != Target::InProcessSim {
            self.problem(
                at("sim"),
                "only applies to the in-process simulator (engine `sim` with url `sim://` or none)",
            );
        }
        let Credentials {
            api_key,
            headers,
            mut secrets,
        } = self.credentials(i, e, &target, env);
        let net = self.network(i, e, &mut secrets);
        let session_header = self.session_header(i, e);
        self.extra_body(i, e);
        self.labels(i, e);
        if let Some(h) = &e.hardware {
            self.hardware(i, h);
        }
        let ignore_eos_unset = ignore_eos.is_none();
        let ignore_eos = match ignore_eos {
            Some(true) if !e.engine.supports_ignore_eos() => {
                self.warnings.push(format!(
                    "endpoints[{i}]: engine `{}` may not honour ignore_eos; reply lengths can vary",
                    e.engine.as_str()
                ));
                true
            }
            Some(v) => v,
            None => e.engine.supports_ignore_eos(),
        };
        if ignore_eos_unset && !ignore_eos {
            self.warnings.push(format!(
                "endpoints[{i}]: ignore_eos is off (engine `{}` has no such option): replies \
                 end where the model stops, so output lengths vary and max_tokens is only a \
                 ceiling; per-token latencies stay right, but compare throughput only between \
                 runs of the same prompts and model",
                e.engine.as_str()
            ));
        }
        (self.problems.len() == before).then(|| Endpoint {
            name: e.name.clone(),
            engine: e.engine,
            target,
            api: e.api,
            api_key,
            headers,
            session_header,
            extra_body: e.extra_body.clone(),
            ignore_eos,
            sim: e.sim.clone(),
            secrets,
            labels: e.labels.clone(),
            net,
            hardware: e.hardware.clone(),
        })
    }

    /// `endpoints[i].extra_body`: no key plateau sets itself, none that mismeasures.
    fn extra_body(&mut self, i: usize, e: &EndpointConfig) {
        for (key, instead) in OWNED_BODY_KEYS {
            if e.extra_body.contains_key(*key) {
                self.problem(
                    format!("endpoints[{i}].extra_body.{key}"),
                    format!("is set by plateau; {instead}"),
                );
            }
        }
        for (key, harmless, why) in MISMEASURING_BODY_KEYS {
            if let Some(v) = e.extra_body.get(*key)
                && !harmless(v)
            {
                self.problem(
                    format!("endpoints[{i}].extra_body.{key}"),
                    format!("got {v}: {why}"),
                );
            }
        }
    }

    /// `endpoints[i].labels`: names that say something.
    fn labels(&mut self, i: usize, e: &EndpointConfig) {
        for name in e.labels.keys() {
            if name.trim().is_empty() {
                self.problem(
                    format!("endpoints[{i}].labels"),
                    format!("got the label name `{name}`, expected a non-empty name"),
                );
            }
        }
    }

    /// `endpoints[i].hardware`: a named GPU, at least one of them, a price of 0 or more.
    fn hardware(&mut self, i: usize, h: &HardwareConfig) {
        let at = |key: &str| format!("endpoints[{i}].hardware.{key}");
        if let Some(gpu) = &h.gpu
            && gpu.trim().is_empty()
        {
            self.problem(at("gpu"), "got an empty name, expected e.g. `H100 80GB`");
        }
        if h.gpu_count == Some(0) {
            self.problem(at("gpu_count"), "got 0, expected at least 1");
        }
        if let Some(cost) = h.cost_per_hour
            && !(cost.is_finite() && cost >= 0.0)
        {
            self.problem(
                at("cost_per_hour"),
                format!("got {cost}, expected USD per hour, 0 or more"),
            );
        }
    }
}
