//! The hub settings the environment gives, named as the Python `huggingface_hub` names
//! them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use plateau_model::secret::Secret;

use super::{DEFAULT_ENDPOINT, ETAG_TIMEOUT, Hub, STALL};

impl Hub {
    /// Settings from `env` (`HF_ENDPOINT`, `HF_TOKEN`, `HF_TOKEN_PATH`, `HF_HOME`,
    /// `HF_HUB_CACHE`, `XDG_CACHE_HOME`, `HOME`, `HF_HUB_OFFLINE`); reads the token file
    /// when `HF_TOKEN` is not set.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Hub {
        let set = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        let home = set("HF_HOME").map(PathBuf::from).unwrap_or_else(|| {
            set("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| set("HOME").map(|h| Path::new(&h).join(".cache")))
                .unwrap_or_else(|| PathBuf::from(".cache"))
                .join("huggingface")
        });
        let token_file = set("HF_TOKEN_PATH").map_or_else(|| home.join("token"), PathBuf::from);
        let token = set("HF_TOKEN")
            .map(|t| t.trim().to_owned())
            .or_else(|| {
                std::fs::read_to_string(&token_file)
                    .ok()
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty())
            })
            .map(Secret::new);
        Hub {
            endpoint: set("HF_ENDPOINT").map_or_else(
                || DEFAULT_ENDPOINT.to_owned(),
                |e| e.trim().trim_end_matches('/').to_owned(),
            ),
            token,
            cache: set("HF_HUB_CACHE").map_or_else(|| home.join("hub"), PathBuf::from),
            offline: set("HF_HUB_OFFLINE").is_some_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "1" | "true" | "yes" | "on"
                )
            }),
            stall: seconds(set("HF_HUB_DOWNLOAD_TIMEOUT")).unwrap_or(STALL),
            etag_timeout: seconds(set("HF_HUB_ETAG_TIMEOUT")).unwrap_or(ETAG_TIMEOUT),
        }
    }
}

/// A positive number of seconds, at most a year (a larger value means "wait", and a
/// year keeps the arithmetic on it from overflowing).
fn seconds(v: Option<String>) -> Option<Duration> {
    const YEAR: f64 = 365.0 * 86_400.0;
    v.and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| Duration::from_secs_f64(s.min(YEAR)))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn settings_follow_the_environment_like_huggingface_hub() {
        let h = Hub::from_env(&env(&[("HOME", "/home/u")]));
        assert_eq!(h.endpoint, DEFAULT_ENDPOINT);
        assert_eq!(h.cache, Path::new("/home/u/.cache/huggingface/hub"));
        assert!(h.token.is_none() && !h.offline);
        assert_eq!((h.stall, h.etag_timeout), (STALL, ETAG_TIMEOUT));
        let h = Hub::from_env(&env(&[
            ("HF_HUB_DOWNLOAD_TIMEOUT", "2.5"),
            ("HF_HUB_ETAG_TIMEOUT", " 0.5 "),
        ]));
        assert_eq!(
            (h.stall, h.etag_timeout),
            (Duration::from_millis(2500), Duration::from_millis(500))
        );
        for bad in ["-1", "0", "soon", "inf", "NaN"] {
            let h = Hub::from_env(&env(&[("HF_HUB_ETAG_TIMEOUT", bad)]));
            assert_eq!(h.etag_timeout, ETAG_TIMEOUT, "{bad}");
        }
        // A huge value waits a year, not a panic on its first use.
        let h = Hub::from_env(&env(&[("HF_HUB_DOWNLOAD_TIMEOUT", "1e300")]));
        assert_eq!(h.stall, Duration::from_secs(365 * 86_400));
        assert!(h.stall.checked_mul(2).is_some());
        let h = Hub::from_env(&env(&[
            ("HOME", "/home/u"),
            ("HF_HOME", "/hf"),
            ("HF_ENDPOINT", "http://127.0.0.1:9/"),
            ("HF_TOKEN", " hf_abc "),
            ("HF_HUB_OFFLINE", "1"),
        ]));
        assert_eq!(h.endpoint, "http://127.0.0.1:9");
        assert_eq!(h.cache, Path::new("/hf/hub"));
        assert_eq!(h.token.as_ref().map(Secret::expose), Some("hf_abc"));
        assert!(h.offline);
        assert!(!format!("{h:?}").contains("hf_abc"));
        let h = Hub::from_env(&env(&[("HF_HUB_CACHE", "/c"), ("HF_HUB_OFFLINE", "0")]));
        assert_eq!(h.cache, Path::new("/c"));
        assert!(!h.offline);
    }

    #[test]
    fn the_token_file_is_read_when_hf_token_is_not_set() {
        let tmp = tempfile::Builder::new()
            .prefix("plateau-hub-token-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("token"), "hf_from_file\n").unwrap();
        let home = dir.to_string_lossy().into_owned();
        let h = Hub::from_env(&env(&[("HF_HOME", home.as_str())]));
        assert_eq!(h.token.as_ref().map(Secret::expose), Some("hf_from_file"));
        let h = Hub::from_env(&env(&[("HF_HOME", home.as_str()), ("HF_TOKEN", "hf_env")]));
        assert_eq!(h.token.as_ref().map(Secret::expose), Some("hf_env"));
    }
}
