//! TLS as operators configure it. Trusted by default: the platform's store, or the
//! certificates `SSL_CERT_FILE` / `SSL_CERT_DIR` name instead (rustls-native-certs), and
//! the compiled-in web roots ([`Roots::load`]). Per endpoint ([`TlsSettings`]): a `ca_file`
//! trusted besides, `client_cert` and `client_key` for mutual TLS, `server_name` to check
//! (and send as SNI) instead of the URL's host, and `insecure_skip_verify`, which accepts
//! any certificate (the handshake's signatures are still checked). A failed handshake is
//! said in words ([`explain`]): what the certificate is, and which setting fixes it.

mod names;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};

pub use verify::explain;

/// An endpoint's TLS settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsSettings {
    /// PEM certificates (a private CA) trusted besides the default roots.
    pub ca_file: Option<PathBuf>,
    /// PEM certificate chain plateau presents (mutual TLS).
    pub client_cert: Option<PathBuf>,
    /// PEM private key of `client_cert`.
    pub client_key: Option<PathBuf>,
    /// The name the server's certificate is checked against (and SNI), instead of the
    /// URL's host.
    pub server_name: Option<String>,
    /// Accept any certificate (loudly: the binary warns on every run).
    pub insecure_skip_verify: bool,
}

/// Why a TLS setting cannot be used; names the file.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(pub String);

/// The default roots: the platform's (or `SSL_CERT_FILE` / `SSL_CERT_DIR`'s) and the web's.
#[derive(Clone, Debug)]
pub struct Roots {
    store: Arc<RootCertStore>,
    /// Certificates of the system store that could not be read, each named.
    pub warnings: Vec<String>,
}

impl Roots {
    /// Loads the system store once (it reads files) and adds the compiled-in web roots.
    pub fn load() -> Roots {
        let mut store = RootCertStore::empty();
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let native = rustls_native_certs::load_native_certs();
        let mut warnings: Vec<String> = native
            .errors
            .iter()
            .map(|e| format!("system certificate store: {e}"))
            .collect();
        let (_, ignored) = store.add_parsable_certificates(native.certs);
        if ignored > 0 {
            warnings.push(format!(
                "system certificate store: {ignored} certificate(s) could not be used"
            ));
        }
        Roots {
            store: Arc::new(store),
            warnings,
        }
    }

    /// The compiled-in web roots alone (tests).
    pub fn web_only() -> Roots {
        let mut store = RootCertStore::empty();
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        Roots {
            store: Arc::new(store),
            warnings: Vec::new(),
        }
    }
}

/// The client configuration of an endpoint with `settings` over `roots`.
pub fn config(settings: &TlsSettings, roots: &Roots) -> Result<Arc<ClientConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = if settings.insecure_skip_verify {
        Arc::new(verify::AcceptAny(provider.clone()))
    } else {
        let mut store = (*roots.store).clone();
        if let Some(file) = &settings.ca_file {
            for cert in certificates(file, "tls.ca_file")? {
                store
                    .add(cert)
                    .map_err(|e| TlsError(format!("tls.ca_file {}: {e}", file.display())))?;
            }
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
            .build()
            .map_err(|e| TlsError(format!("TLS roots: {e}")))?;
        Arc::new(verify::Explaining(webpki))
    };
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError(format!("TLS setup: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match (&settings.client_cert, &settings.client_key) {
        (Some(cert), Some(key)) => builder
            .with_client_auth_cert(certificates(cert, "tls.client_cert")?, private_key(key)?)
            .map_err(|e| {
                TlsError(format!(
                    "tls.client_cert {} and tls.client_key {}: {e}",
                    cert.display(),
                    key.display()
                ))
            })?,
        (None, None) => builder.with_no_client_auth(),
        (Some(_), None) => return Err(TlsError("tls.client_cert needs tls.client_key".into())),
        (None, Some(_)) => return Err(TlsError("tls.client_key needs tls.client_cert".into())),
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Every certificate of the PEM file at `path` (the config key `key`, for errors).
fn certificates(path: &Path, key: &str) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bad = |why: String| TlsError(format!("{key} {}: {why}", path.display()));
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad(
            "no certificate in it; expected PEM (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    Ok(certs)
}

/// The PEM private key at `path`.
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| {
        TlsError(format!(
            "tls.client_key {}: {e}; expected a PEM private key (PKCS#8, PKCS#1 or SEC1)",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests;
