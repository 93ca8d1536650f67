//! TLS for tests, made at test time with rcgen: a private [`Ca`], certificates it issues
//! ([`Leaf`]: for given names, valid now or expired), written as PEM files, and an https
//! server on 127.0.0.1 ([`https_server`]) that answers every request with a fixed reply or
//! passes the plaintext on to another port (a TLS front for `plateau sim`), optionally
//! requiring a client certificate its CA issued (mutual TLS).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A private certificate authority.
pub struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key.
pub struct Leaf {
    /// The certificate, DER.
    pub cert: CertificateDer<'static>,
    /// Its key, PKCS#8 DER.
    pub key: Vec<u8>,
    /// The certificate, PEM.
    pub cert_pem: String,
    /// Its key, PEM.
    pub key_pem: String,
}

/// When a certificate is valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// From 2020 to 2100.
    Now,
    /// Through 2020 and 2021: expired.
    Expired,
}

impl Ca {
    /// A CA whose certificate's common name is `name` (organization "plateau tests").
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "plateau tests");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Ca { issuer }
    }

    /// The CA certificate, PEM.
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// Writes the CA certificate to `dir/<file>` and returns its path.
    pub fn write(&self, dir: &Path, file: &str) -> PathBuf {
        let path = dir.join(file);
        std::fs::write(&path, self.pem()).unwrap();
        path
    }

    /// A certificate for `names` (DNS names or IP addresses) issued by this CA.
    pub fn leaf(&self, names: &[&str], validity: Validity) -> Leaf {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names.clone()).unwrap();
        params.distinguished_name.push(
            DnType::CommonName,
            names.first().cloned().unwrap_or_default(),
        );
        let (from, to) = match validity {
            Validity::Now => ((2020, 1, 1), (2100, 1, 1)),
            Validity::Expired => ((2020, 1, 1), (2021, 12, 31)),
        };
        params.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
        params.not_after = rcgen::date_time_ymd(to.0, to.1, to.2);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert: cert.der().clone(),
            key: key.serialize_der(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    fn der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }
}

impl Leaf {
    /// Writes the certificate and key to `dir/<name>.pem` and `dir/<name>.key`: their paths.
    pub fn write(&self, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let (cert, key) = (
            dir.join(format!("{name}.pem")),
            dir.join(format!("{name}.key")),
        );
        std::fs::write(&cert, &self.cert_pem).unwrap();
        std::fs::write(&key, &self.key_pem).unwrap();
        (cert, key)
    }
}

/// What an [`https_server`] does with each connection once TLS is up.
#[derive(Clone, Copy, Debug)]
pub enum Behind {
    /// Answers every request with `HTTP/1.1 200 OK` and the body `ok`.
    Ok,
    /// Passes the plaintext on to 127.0.0.1:port, both ways.
    Port(u16),
}

/// An https server on 127.0.0.1 presenting `leaf`; with `clients`, it requires a client
/// certificate that CA issued. Returns its port; it serves until the runtime ends.
pub async fn https_server(leaf: &Leaf, clients: Option<&Ca>, behind: Behind) -> u16 {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let builder = match clients {
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(ca.der()).unwrap();
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .unwrap();
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf.key.clone()));
    let config = builder
        .with_single_cert(vec![leaf.cert.clone()], key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                match behind {
                    Behind::Ok => crate::raw::answer_ok(&mut tls).await,
                    Behind::Port(port) => {
                        if let Ok(mut up) =
                            tokio::net::TcpStream::connect(("127.0.0.1", port)).await
                        {
                            let _ = tokio::io::copy_bidirectional(&mut tls, &mut up).await;
                        }
                    }
                }
            });
        }
    });
    port
}
