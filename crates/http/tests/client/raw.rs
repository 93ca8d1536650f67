//! A raw HTTP/1.1 peer for the client tests (the servers are `plateau_testkit::raw`), and
//! sending one POST through plateau's client, bounded in time, with everything
//! the client reported about it.

use std::time::Duration;

use plateau_http::{Bounds, Client, Clock, Failure, Stamps};
use tokio_util::sync::CancellationToken;

pub use plateau_testkit::raw::{read_request, server};

/// What one request came back with.
#[derive(Debug)]
pub struct Got {
    /// The response's status, when its head was read.
    pub status: Option<u16>,
    /// The body bytes, in order.
    pub body: Vec<u8>,
    /// Each run of body bytes handed on: its arrival (us on the request's clock) and read.
    pub runs: Vec<(u64, u64)>,
    /// When it went out, its connection's set-up time, its resends.
    pub stamps: Stamps,
    /// How it failed, if it did.
    pub failure: Option<Failure>,
}

impl Got {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The distinct reads that brought body bytes: (arrival, read), in order.
    pub fn reads(&self) -> Vec<(u64, u64)> {
        let mut reads = self.runs.clone();
        reads.dedup_by_key(|r| r.1);
        reads
    }
}

/// One POST of `{}` (asking for an event stream when `stream`) to
/// 127.0.0.1:`port`/v1/chat/completions, read to its end within 10 s.
pub async fn send(client: &Client, port: u16, stream: bool) -> Got {
    let uri = format!("http://127.0.0.1:{port}/v1/chat/completions")
        .parse()
        .unwrap();
    let req = plateau_http::post(&uri, Default::default(), stream, b"{}".to_vec()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), read(client, req))
        .await
        .expect("bounded")
}

/// One POST of `{}` to `url`, read to its end within 10 s.
pub async fn send_to(client: &Client, url: &str) -> Got {
    let uri = url.parse().unwrap();
    let req = plateau_http::post(&uri, Default::default(), false, b"{}".to_vec()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), read(client, req))
        .await
        .expect("bounded")
}

async fn read(client: &Client, req: http::Request<bytes::Bytes>) -> Got {
    let clock = Clock::start();
    let cancel = CancellationToken::new();
    let bounds = Bounds::new(Duration::from_secs(5), &cancel);
    let mut got = Got {
        status: None,
        body: Vec::new(),
        runs: Vec::new(),
        stamps: Stamps::default(),
        failure: None,
    };
    let response = match client.send(req, &clock, &bounds, &mut got.stamps).await {
        Ok(r) => r,
        Err(f) => {
            got.failure = Some(f);
            return got;
        }
    };
    got.status = Some(response.status().as_u16());
    let (body, runs) = (&mut got.body, &mut got.runs);
    let read = response
        .read(&clock, &bounds, &mut |data, t_us, read| {
            body.extend_from_slice(data);
            runs.push((t_us, read));
            Ok::<(), Failure>(())
        })
        .await;
    got.failure = read.err();
    got
}
