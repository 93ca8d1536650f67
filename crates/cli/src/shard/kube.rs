//! `--start-at job+SECONDS`: the Indexed Job's creation time, read from the Kubernetes API
//! with the pod's own service account, plus a margin. Every pod of the Job reads the same
//! instant however late it was scheduled or its image pulled, so K runners agree on their
//! start without a coordinator and without an instant typed into the manifest.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use chrono::{DateTime, Utc};
use http::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use plateau_http::proxy::Proxies;
use plateau_http::tls::{Roots, TlsSettings};
use plateau_http::{Client, EndpointNet, Network, ProxyChoice};

/// Where a pod's service account is mounted.
const SERVICE_ACCOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// Another place for it (tests; a pod that mounts it elsewhere).
pub const SERVICE_ACCOUNT_ENV: &str = "PLATEAU_SERVICE_ACCOUNT_DIR";
/// The Job's name; deploy/kubernetes sets it from the pod's `job-name` label.
pub const JOB_ENV: &str = "JOB_NAME";

/// When the Job this pod belongs to was created, by the API server's clock.
pub async fn job_created(env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<DateTime<Utc>> {
    let need = |name: &str| {
        env(name).filter(|v| !v.is_empty()).ok_or_else(|| {
            anyhow!(
                "--start-at job+SECONDS: {name} is not set; it reads the Indexed Job's creation \
                 time from inside one of its pods (deploy/kubernetes sets {JOB_ENV} from the \
                 job-name label; Kubernetes sets KUBERNETES_SERVICE_HOST and _PORT)"
            )
        })
    };
    let (host, port, job) = (
        need("KUBERNETES_SERVICE_HOST")?,
        need("KUBERNETES_SERVICE_PORT")?,
        need(JOB_ENV)?,
    );
    let account = PathBuf::from(env(SERVICE_ACCOUNT_ENV).unwrap_or(SERVICE_ACCOUNT.into()));
    let (token, namespace) = (read(&account, "token")?, read(&account, "namespace")?);
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host
    };
    let path = format!("/apis/batch/v1/namespaces/{namespace}/jobs/{job}");
    let uri: http::Uri = format!("https://{host}:{port}{path}")
        .parse()
        .with_context(|| format!("the Kubernetes API at {host}:{port}"))?;
    // The API server is reached directly, never through the environment's proxy.
    let net = EndpointNet {
        proxy: ProxyChoice::Direct,
        tls: TlsSettings {
            ca_file: Some(account.join("ca.crt")),
            ..TlsSettings::default()
        },
    };
    let network = Network::new(Proxies::none(), &Roots::load(), &[(uri.clone(), net)])?;
    let mut headers = HeaderMap::new();
    let mut bearer = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| anyhow!("{}: not a usable token", account.join("token").display()))?;
    bearer.set_sensitive(true);
    headers.insert(AUTHORIZATION, bearer);
    let answer = Client::with_network(1, Arc::new(network))
        .get_json(uri, &headers, &status_message, Duration::from_secs(10))
        .await
        .map_err(|e| {
            anyhow!(
                "--start-at job+SECONDS: GET {path} from the Kubernetes API: {e} (the pod's \
                 service account needs `get` on jobs: deploy/kubernetes/base/rbac.yaml)"
            )
        })?;
    answer["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| anyhow!("--start-at job+SECONDS: {path} has no metadata.creationTimestamp"))
}

/// A service account file, trimmed.
fn read(account: &Path, file: &str) -> anyhow::Result<String> {
    let path = account.join(file);
    std::fs::read_to_string(&path)
        .map(|s| s.trim().to_owned())
        .with_context(|| format!("{}: the pod's service account", path.display()))
}

/// The API server's `Status` message of an error answer.
fn status_message(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["message"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use plateau_testkit::raw::{self, read_head};
    use plateau_testkit::tls::{Behind, Ca, Validity, https_server};
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpStream;

    /// A fake API server behind TLS: the Job `plateau-run` of `bench-ns` for the right
    /// bearer token, the API's own 403 `Status` otherwise.
    async fn api(mut sock: TcpStream, (): ()) {
        let Some(head) = read_head(&mut sock).await else {
            return;
        };
        let ok = head.starts_with("GET /apis/batch/v1/namespaces/bench-ns/jobs/plateau-run ")
            && head.lines().any(|l| {
                l.trim_end()
                    .eq_ignore_ascii_case("authorization: Bearer s3cret-token")
            });
        let (status, body) = if ok {
            (
                "200 OK",
                r#"{"kind":"Job","metadata":{"name":"plateau-run","creationTimestamp":"2026-11-27T10:00:00Z"}}"#,
            )
        } else {
            (
                "403 Forbidden",
                r#"{"kind":"Status","message":"jobs.batch \"other\" is forbidden: cannot get resource \"jobs\""}"#,
            )
        };
        let answer = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = sock.write_all(answer.as_bytes()).await;
    }

    #[tokio::test]
    async fn the_job_creation_time_is_read_with_the_pods_service_account() {
        let account = plateau_testkit::scratch("kube-account");
        let ca = Ca::new("kube test CA");
        ca.write(account.path(), "ca.crt");
        std::fs::write(account.path().join("token"), "s3cret-token\n").unwrap();
        std::fs::write(account.path().join("namespace"), "bench-ns").unwrap();
        let backend = raw::server(vec![(); 4], api).await;
        let leaf = ca.leaf(&["localhost"], Validity::Now);
        let port = https_server(&leaf, None, Behind::Port(backend))
            .await
            .to_string();
        let dir = account.path().display().to_string();
        let env = |job: &'static str| {
            let (port, dir) = (port.clone(), dir.clone());
            move |name: &str| match name {
                "KUBERNETES_SERVICE_HOST" => Some("localhost".to_owned()),
                "KUBERNETES_SERVICE_PORT" => Some(port.clone()),
                JOB_ENV => Some(job.to_owned()),
                SERVICE_ACCOUNT_ENV => Some(dir.clone()),
                _ => None,
            }
        };
        let created = job_created(&env("plateau-run")).await.unwrap();
        assert_eq!(created.to_rfc3339(), "2026-11-27T10:00:00+00:00");
        let e = job_created(&env("other")).await.unwrap_err().to_string();
        assert!(
            e.contains("403") && e.contains("is forbidden") && e.contains("rbac.yaml"),
            "{e}"
        );
        assert!(!e.contains("s3cret"), "the token leaked: {e}");
        let e = job_created(&|_| None).await.unwrap_err().to_string();
        assert!(e.contains("KUBERNETES_SERVICE_HOST is not set"), "{e}");
    }
}
