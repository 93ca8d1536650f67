//! An endpoint's network settings, resolved into the HTTP client's
//! [`EndpointNet`](plateau_http::EndpointNet): its `proxy` (a URL, `"none"`, or
//! `{url, tunnel}`), whose credentials join the endpoint's secrets, and its `tls` (each
//! file checked readable now, so that a typo fails in seconds, not at preflight), with
//! `insecure_skip_verify` warned about on every run.

use plateau_http::proxy::Proxy;
use plateau_http::tls::TlsSettings;
use plateau_http::{EndpointNet, ProxyChoice};
use plateau_model::config::{EndpointConfig, TlsConfig};
use plateau_model::secret::Secret;

use super::validator::Validator;

impl Validator {
    /// The network settings of endpoint `i`; the proxy's secrets go to `secrets`.
    pub(super) fn network(
        &mut self,
        i: usize,
        e: &EndpointConfig,
        secrets: &mut Vec<Secret>,
    ) -> EndpointNet {
        let proxy = match e.proxy.as_ref().map(|p| p.parts()) {
            None => ProxyChoice::Environment,
            Some((url, _)) if url.trim().eq_ignore_ascii_case("none") => ProxyChoice::Direct,
            Some((url, tunnel)) => match Proxy::parse(url.trim(), tunnel) {
                Ok(p) => {
                    secrets.extend(
                        p.secrets()
                            .into_iter()
                            .map(Secret::new)
                            .filter(Secret::is_scrubbable),
                    );
                    ProxyChoice::Via(p)
                }
                Err(err) => {
                    self.problem(format!("endpoints[{i}].proxy"), err.to_string());
                    ProxyChoice::Environment
                }
            },
        };
        let tls = e
            .tls
            .as_ref()
            .map_or_else(TlsSettings::default, |t| self.tls(i, e, t));
        EndpointNet { proxy, tls }
    }

    /// `endpoints[i].tls`: files that can be read, a client certificate with its key.
    fn tls(&mut self, i: usize, e: &EndpointConfig, t: &TlsConfig) -> TlsSettings {
        let at = |key: &str| format!("endpoints[{i}].tls.{key}");
        for (key, file) in [
            ("ca_file", &t.ca_file),
            ("client_cert", &t.client_cert),
            ("client_key", &t.client_key),
        ] {
            if let Some(path) = file
                && let Err(err) = std::fs::File::open(path)
            {
                self.problem(at(key), format!("{}: {err}", path.display()));
            }
        }
        match (&t.client_cert, &t.client_key) {
            (Some(_), None) => self.problem(at("client_key"), "required with tls.client_cert"),
            (None, Some(_)) => self.problem(at("client_cert"), "required with tls.client_key"),
            _ => {}
        }
        if let Some(name) = &t.server_name
            && name.trim().is_empty()
        {
            self.problem(at("server_name"), "got an empty name, expected a host name");
        }
        if t.insecure_skip_verify {
            self.warnings.push(format!(
                "endpoints[{i}] ({}): tls.insecure_skip_verify is on: the server's certificate \
                 is NOT checked, so anyone on the path can read and change this run's traffic, \
                 and nothing proves the numbers come from this server (run.json says so)",
                e.name
            ));
        }
        TlsSettings {
            ca_file: t.ca_file.clone(),
            client_cert: t.client_cert.clone(),
            client_key: t.client_key.clone(),
            server_name: t.server_name.clone(),
            insecure_skip_verify: t.insecure_skip_verify,
        }
    }
}
