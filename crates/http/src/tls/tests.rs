//! TLS settings that cannot be used are errors naming the setting and the file.

use super::*;

fn settings() -> TlsSettings {
    TlsSettings::default()
}

#[test]
fn unusable_files_are_named() {
    let roots = Roots::web_only();
    let tmp = plateau_testkit::scratch("tls-settings");
    let dir = tmp.path();
    let missing = dir.join("nope.pem");
    let err = config(
        &TlsSettings {
            ca_file: Some(missing.clone()),
            ..settings()
        },
        &roots,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(&format!("tls.ca_file {}: ", missing.display())),
        "{err}"
    );
    let text = dir.join("text.pem");
    std::fs::write(&text, "not a certificate\n").unwrap();
    let err = config(
        &TlsSettings {
            ca_file: Some(text.clone()),
            ..settings()
        },
        &roots,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        format!(
            "tls.ca_file {}: no certificate in it; expected PEM (-----BEGIN CERTIFICATE-----)",
            text.display()
        )
    );
    let err = config(
        &TlsSettings {
            client_cert: Some(text.clone()),
            ..settings()
        },
        &roots,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(err, "tls.client_cert needs tls.client_key");
    let err = config(
        &TlsSettings {
            client_key: Some(text.clone()),
            ..settings()
        },
        &roots,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(err, "tls.client_key needs tls.client_cert");
    assert!(config(&settings(), &roots).is_ok());
}

#[test]
fn presented_names_are_shown_bare() {
    assert_eq!(
        verify::bare_name("DnsName(\"gpu.internal\")"),
        "gpu.internal"
    );
    assert_eq!(verify::bare_name("IpAddress(192.0.2.1)"), "192.0.2.1");
    assert_eq!(verify::bare_name("DirectoryName"), "DirectoryName");
}
