//! Certificate checks and their failures in words: [`Explaining`] is rustls's own web PKI
//! check that adds, to an unknown authority, the issuer it does not know; [`AcceptAny`] is
//! `insecure_skip_verify` (any certificate, signatures still checked); [`explain`] turns a
//! failed handshake into a sentence saying what is wrong and which setting fixes it.

use std::io;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    AlertDescription, CertificateError, DigitallySignedStruct, Error, OtherError, SignatureScheme,
};

use super::names;

/// An unknown issuer, named.
#[derive(Debug)]
struct UnknownIssuer(Option<String>);

impl std::fmt::Display for UnknownIssuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown issuer {}",
            self.0.as_deref().unwrap_or("(unnamed)")
        )
    }
}

impl std::error::Error for UnknownIssuer {}

/// The web PKI check, naming an unknown issuer.
#[derive(Debug)]
pub(super) struct Explaining(pub(super) Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for Explaining {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        self.0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
            .map_err(|e| match e {
                Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
                    // The top of the chain the server sent is what no root vouches for.
                    let top = intermediates.last().unwrap_or(end_entity);
                    let issuer = names::issuer_common_name(top);
                    Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(
                        UnknownIssuer(issuer),
                    ))))
                }
                other => other,
            })
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `insecure_skip_verify`: any certificate, any name; the handshake's signatures are still
/// checked, so the peer holds the key of the certificate it showed.
#[derive(Debug)]
pub(super) struct AcceptAny(pub(super) Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// What went wrong in a TLS handshake (or the first read after it), in words, when `e`
/// carries a TLS error; `None` otherwise.
pub fn explain(e: &io::Error) -> Option<String> {
    let tls = e.get_ref()?.downcast_ref::<Error>()?;
    Some(match tls {
        Error::InvalidCertificate(c) => certificate(c),
        Error::AlertReceived(AlertDescription::CertificateRequired) => {
            "the server requires a client certificate (mutual TLS): set tls.client_cert and \
             tls.client_key"
                .into()
        }
        Error::AlertReceived(
            a @ (AlertDescription::BadCertificate
            | AlertDescription::UnknownCA
            | AlertDescription::CertificateUnknown
            | AlertDescription::AccessDenied
            | AlertDescription::DecryptError),
        ) => format!(
            "the server refused plateau's client certificate (TLS alert {a:?}): check that \
             tls.client_cert is issued by a CA the server trusts, with tls.client_key its key"
        ),
        Error::AlertReceived(AlertDescription::HandshakeFailure) => {
            "the server ended the TLS handshake (alert HandshakeFailure): it may require a \
             client certificate (tls.client_cert, tls.client_key) or a TLS version or cipher \
             plateau does not offer"
                .into()
        }
        other => format!("TLS handshake failed: {other}"),
    })
}

/// A name a certificate presents, as webpki shows it (`DnsName("h")`, `IpAddress(1.2.3.4)`),
/// without the wrapping: `h`, `1.2.3.4`; other forms as they are.
pub(super) fn bare_name(shown: &str) -> &str {
    let inner = |prefix: &str| shown.strip_prefix(prefix)?.strip_suffix(')');
    inner("DnsName(")
        .map(|n| n.trim_matches('"'))
        .or_else(|| inner("IpAddress("))
        .unwrap_or(shown)
}

/// A certificate the check refused, in words.
fn certificate(c: &CertificateError) -> String {
    const SETTING: &str = "trust its CA with tls.ca_file (or SSL_CERT_FILE / SSL_CERT_DIR)";
    match c {
        CertificateError::UnknownIssuer => {
            format!("the server's certificate is signed by an unknown authority; {SETTING}")
        }
        CertificateError::Other(OtherError(e)) => match e.downcast_ref::<UnknownIssuer>() {
            Some(UnknownIssuer(issuer)) => format!(
                "the server's certificate is signed by an unknown authority (issuer {}); {SETTING}",
                issuer.as_deref().unwrap_or("unnamed")
            ),
            None if e.to_string().contains("CaUsedAsEndEntity") => {
                "the server presents a CA certificate as its own; it must present a \
                 certificate issued for its name (signed by that CA, which tls.ca_file then \
                 trusts)"
                    .into()
            }
            None => format!("the server's certificate was refused: {e}"),
        },
        CertificateError::ExpiredContext { time, not_after } => format!(
            "the server's certificate expired on {} (it is now {}): the server needs a renewed \
             certificate",
            date(*not_after),
            date(*time)
        ),
        CertificateError::Expired => "the server's certificate has expired: the server needs a \
                                      renewed certificate"
            .into(),
        CertificateError::NotValidYetContext { time, not_before } => format!(
            "the server's certificate is not valid before {} (it is now {}): check this \
             machine's clock",
            date(*not_before),
            date(*time)
        ),
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "the server's certificate is not valid for {} (it names {}): put one of those \
             names in the URL, or set tls.server_name",
            expected.to_str(),
            if presented.is_empty() {
                "no name".into()
            } else {
                presented
                    .iter()
                    .map(|n| bare_name(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        CertificateError::NotValidForName => "the server's certificate is not valid for the \
                                              URL's host: set tls.server_name to a name it is \
                                              issued for"
            .into(),
        other => format!("the server's certificate was refused ({other:?})"),
    }
}

/// `t` as an RFC 3339 date and time, UTC.
fn date(t: UnixTime) -> String {
    let secs = i64::try_from(t.as_secs()).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp(secs, 0).map_or_else(
        || format!("{secs} s after 1970"),
        |d| d.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
    )
}
