//! [`Hub::get_bounded`]: a download on a thread of its own, given up when it reports
//! nothing for [`Hub::stall`], so a stalled hub or proxy never hangs the caller.

use std::sync::mpsc::{self, RecvTimeoutError};

use crate::{Event, Got, Hub, HubError, RepoFile};

impl Hub {
    /// [`Hub::get`] on a thread of its own, bounded in time: given up when it reports
    /// nothing (no byte, no stage) for [`Hub::stall`], and a panic returned as an error. A given-up download's thread is left to end with the process.
    pub fn get_bounded(
        &self,
        f: &RepoFile,
        force: bool,
        attempts: u32,
        events: &dyn Fn(Event),
    ) -> Result<Got, HubError> {
        enum Msg {
            Event(Event),
            Done(Result<Got, HubError>),
        }
        let url = self.url(f);
        let protocol = |message: String| HubError::Protocol {
            url: url.clone(),
            message,
        };
        let (hub, kind) = (self.clone(), f.kind);
        let (repo, revision, file) = (f.repo.to_owned(), f.revision.to_owned(), f.file.to_owned());
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("hub-download".into())
            .spawn(move || {
                let f = RepoFile {
                    repo: &repo,
                    kind,
                    revision: &revision,
                    file: &file,
                };
                let sent = tx.clone();
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    hub.get(&f, force, attempts, &|e| {
                        let _ = sent.send(Msg::Event(e));
                    })
                }));
                let _ = tx.send(Msg::Done(got.unwrap_or_else(|_| {
                    Err(HubError::Protocol {
                        url: hub.url(&f),
                        message: "the download panicked on the hub's answer".into(),
                    })
                })));
            })
            .map_err(|e| protocol(format!("cannot start the download thread: {e}")))?;
        loop {
            match rx.recv_timeout(self.stall) {
                Ok(Msg::Event(e)) => events(e),
                Ok(Msg::Done(got)) => return got,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(protocol(format!(
                        "no progress for {} s: the hub or a proxy stalled (HF_HUB_DOWNLOAD_TIMEOUT \
                         sets the limit)",
                        self.stall.as_secs_f64()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(protocol("the download ended without an answer".into()));
                }
            }
        }
    }
}
