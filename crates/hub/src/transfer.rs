//! The hub's HTTP side, over `ureq` (rustls). [`Client::metadata`] asks for the first byte
//! of a file without following redirects, so it reads the hub's own answer: the commit
//! (`X-Repo-Commit`), the ETag and the size. [`Client::download`] appends the rest to the
//! cache's partial file, resuming where an earlier attempt or run stopped.
//!
//! The token goes to the hub's own host only. A redirect to the same host (a renamed
//! repository) is followed with it. A redirect to another host (the CDN's signed URL) is
//! followed without it, as the Python `huggingface_hub` does. hf-hub 0.4, which did this
//! before, sent the token to that host on its size probe.

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use ureq::{Agent, AgentBuilder, Response};
use url::Url;

use crate::failure::{Failure, failure};
use crate::{Event, Hub};

/// Redirects followed on the hub's host before giving up.
const MAX_HOPS: usize = 10;

/// What the hub says of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Meta {
    /// The commit the revision resolved to.
    pub commit: String,
    /// The file's ETag, unquoted: its sha256 (LFS) or git blob id.
    pub etag: String,
    /// Size in bytes.
    pub size: u64,
    /// Where the bytes are (the token goes there only on the hub's host).
    pub location: Url,
}

/// One hub's HTTP client.
pub(super) struct Client<'a> {
    hub: &'a Hub,
    origin: url::Origin,
    /// Follows no redirect: [`Client::metadata`] walks them itself.
    asks: Agent,
    /// Follows redirects, never with the token (ureq's default).
    fetches: Agent,
}

impl<'a> Client<'a> {
    /// A client of `hub`, whose endpoint is `endpoint` (parsed), that gives up connecting,
    /// or waiting for a read, after `timeout`.
    pub(super) fn new(hub: &'a Hub, endpoint: &Url, timeout: Duration) -> Client<'a> {
        let agent = |redirects| {
            AgentBuilder::new()
                .try_proxy_from_env(true)
                .redirects(redirects)
                .timeout_connect(timeout)
                .timeout_read(timeout)
                .user_agent(concat!("plateau/", env!("CARGO_PKG_VERSION")))
                .build()
        };
        Client {
            hub,
            origin: endpoint.origin(),
            asks: agent(0),
            fetches: agent(MAX_HOPS as u32),
        }
    }

    fn get(&self, agent: &Agent, url: &Url, range: &str) -> Result<Response, Failure> {
        let mut request = agent.request_url("GET", url).set("Range", range);
        let on_hub = url.origin() == self.origin;
        if on_hub && let Some(token) = &self.hub.token {
            request = request.set("Authorization", &format!("Bearer {}", token.expose()));
        }
        request.call().map_err(|e| match failure(e) {
            Failure::Status(status, _) if !on_hub => {
                Failure::Storage(status, url.host_str().unwrap_or_default().to_owned())
            }
            other => other,
        })
    }

    /// The commit, ETag, size and location of the file at `url`.
    pub(super) fn metadata(&self, url: &Url) -> Result<Meta, Failure> {
        let mut at = url.clone();
        for _ in 0..MAX_HOPS {
            let answer = self.get(&self.asks, &at, "bytes=0-0")?;
            if !(300..400).contains(&answer.status()) {
                let size = linked_size(&answer)
                    .or_else(|| range_total(&answer))
                    .or_else(|| {
                        (answer.status() == 200)
                            .then(|| answer.header("content-length")?.parse().ok())
                            .flatten()
                    })
                    .ok_or(Failure::Header("Content-Range"))?;
                return meta(&answer, size, at);
            }
            let to = answer
                .header("location")
                .and_then(|l| at.join(l).ok())
                .ok_or(Failure::Header("Location"))?;
            if to.origin() == self.origin {
                at = to;
                continue;
            }
            // Another host: this answer is the hub's last word, and the bytes are at `to`.
            let size = match linked_size(&answer) {
                Some(size) => size,
                None => range_total(&self.get(&self.fetches, &to, "bytes=0-0")?)
                    .ok_or(Failure::Header("Content-Range"))?,
            };
            return meta(&answer, size, to);
        }
        Err(Failure::Protocol(format!(
            "more than {MAX_HOPS} redirects on the hub's host"
        )))
    }

    /// Where the bytes of the file at `url`, described by `meta`, are now (a CDN's signed
    /// URL expires); a file that changed meanwhile is a failure no retry fixes.
    pub(super) fn relocate(&self, url: &Url, meta: &Meta) -> Result<Url, Failure> {
        let now = self.metadata(url)?;
        if now.etag != meta.etag || now.size != meta.size {
            return Err(Failure::Protocol(format!(
                "the file changed on the hub during the download (ETag {} of {} bytes, now {} of {} bytes); run again for the new one",
                meta.etag, meta.size, now.etag, now.size
            )));
        }
        Ok(now.location)
    }

    /// Appends the file's bytes from where `part` ends. `first` keeps the offset of the
    /// first request of this download (bytes an earlier run left). A server that answers
    /// a resume with the whole file restarts it from zero.
    pub(super) fn download(
        &self,
        meta: &Meta,
        part: &Path,
        first: &Cell<Option<u64>>,
        events: &dyn Fn(Event),
    ) -> Result<(), Failure> {
        let local = |e| Failure::Local(part.to_owned(), e);
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(part)
            .map_err(local)?;
        let mut done = file.metadata().map_err(local)?.len();
        if done > meta.size {
            events(Event::Message(format!(
                "the partial download ({done} bytes) is longer than the file ({} bytes); restarting from zero",
                meta.size
            )));
            file.set_len(0).map_err(local)?;
            done = 0;
        }
        first.set(first.get().or(Some(done)));
        if done > 0 {
            events(Event::Message(format!("resuming at {done} bytes")));
        }
        if done < meta.size {
            let answer = self.get(&self.fetches, &meta.location, &format!("bytes={done}-"))?;
            match (answer.status(), range_start(&answer)) {
                (206, Some(start)) if start == done => {}
                (200, _) if done > 0 => {
                    events(Event::Message(format!(
                        "{}: the server ignored the resume and sent the whole file; restarting from zero",
                        meta.location.host_str().unwrap_or("the server")
                    )));
                    file.set_len(0).map_err(local)?;
                    done = 0;
                    first.set(Some(0));
                }
                (200, _) => {}
                (status, _) => {
                    return Err(Failure::Protocol(format!(
                        "asked for bytes {done}- of the file, got HTTP {status} with Content-Range {:?}",
                        answer.header("content-range").unwrap_or("")
                    )));
                }
            }
            events(Event::Start {
                total: meta.size,
                done,
            });
            done = copy(
                answer.into_reader(),
                &mut file,
                done,
                meta.size,
                part,
                events,
            )?;
        }
        file.sync_all().map_err(local)?;
        events(Event::Finish);
        if done == meta.size {
            Ok(())
        } else {
            Err(Failure::Interrupted {
                got: done,
                total: meta.size,
                reason: "the server closed the connection early".into(),
            })
        }
    }
}

/// Copies `body` into `file`, which holds `done` bytes of `total`; returns the new count.
fn copy(
    mut body: impl Read,
    file: &mut File,
    mut done: u64,
    total: u64,
    part: &Path,
    events: &dyn Fn(Event),
) -> Result<u64, Failure> {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => return Ok(done),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Failure::Interrupted {
                    got: done,
                    total,
                    reason: e.to_string(),
                });
            }
        };
        if done + n as u64 > total {
            return Err(Failure::Protocol(format!(
                "the server sent more than the {total} bytes it announced"
            )));
        }
        file.write_all(&buf[..n])
            .map_err(|e| Failure::Local(part.to_owned(), e))?;
        done += n as u64;
        events(Event::Advance(n as u64));
    }
}

fn meta(answer: &Response, size: u64, location: Url) -> Result<Meta, Failure> {
    let etag = answer
        .header("x-linked-etag")
        .or_else(|| answer.header("etag"))
        .map(|e| {
            e.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .to_owned()
        })
        .filter(|e| !e.is_empty() && !e.contains(['/', '\\']) && e != "." && e != "..")
        .ok_or(Failure::Header("ETag"))?;
    let commit = answer
        .header("x-repo-commit")
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphanumeric()))
        .ok_or(Failure::Header("X-Repo-Commit"))?;
    Ok(Meta {
        commit,
        etag,
        size,
        location,
    })
}

/// `X-Linked-Size`: the hub's size of a file it redirects for.
fn linked_size(answer: &Response) -> Option<u64> {
    answer.header("x-linked-size")?.trim().parse().ok()
}

/// The total of `Content-Range: bytes a-b/total`.
fn range_total(answer: &Response) -> Option<u64> {
    answer
        .header("content-range")?
        .rsplit('/')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// The first byte of `Content-Range: bytes a-b/total`.
fn range_start(answer: &Response) -> Option<u64> {
    let r = answer.header("content-range")?.trim();
    r.strip_prefix("bytes")?
        .trim()
        .split('-')
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(head: &str) -> Response {
        format!("HTTP/1.1 206 Partial Content\r\n{head}\r\n\r\n")
            .parse()
            .unwrap()
    }

    #[test]
    fn sizes_offsets_and_ids_are_read_from_the_hub_headers() {
        let a = answer("content-range: bytes 5-9/1234\r\nx-linked-size: 99");
        assert_eq!(range_total(&a), Some(1234));
        assert_eq!(range_start(&a), Some(5));
        assert_eq!(linked_size(&a), Some(99));
        assert_eq!(range_total(&answer("content-range: bytes 0-0/*")), None);

        let url = Url::parse("http://127.0.0.1:9/o/m/resolve/main/f").unwrap();
        let m = meta(
            &answer("etag: W/\"abc123\"\r\nx-repo-commit: 0123abcd"),
            7,
            url.clone(),
        )
        .unwrap();
        assert_eq!((m.etag.as_str(), m.commit.as_str()), ("abc123", "0123abcd"));
        // The linked ETag (an LFS file's sha256) wins over the pointer's own.
        let m = meta(
            &answer("etag: \"git\"\r\nx-linked-etag: \"sha\"\r\nx-repo-commit: c0"),
            7,
            url.clone(),
        )
        .unwrap();
        assert_eq!(m.etag, "sha");
        // An ETag that would leave `blobs/` or a commit that would leave `snapshots/` is refused.
        for bad in [
            "etag: \"../x\"\r\nx-repo-commit: c0",
            "etag: \"..\"\r\nx-repo-commit: c0",
            "etag: \"e\"\r\nx-repo-commit: ../c0",
            "etag: \"e\"",
        ] {
            assert!(meta(&answer(bad), 7, url.clone()).is_err(), "{bad}");
        }
    }
}
