//! Reading a response body in the caller's own task: each socket read is stamped with
//! its bytes' arrival ([`Conn::arrival_us`]) before any parsing, and its body bytes are
//! decoded where they lie and handed on with that stamp and the read's number.

use std::pin::pin;

use http::header::HeaderMap;
use http::{Method, StatusCode};
use tokio::time::sleep_until;

use crate::clock::Clock;
use crate::conn::Conn;
use crate::http1::{Body, Head};
use crate::network::Origin;
use crate::{Bounds, Client, Failure, FailureKind};

/// A response whose head has been read; its body waits in the connection.
pub struct Response<'c> {
    pub(crate) client: &'c Client,
    pub(crate) origin: Origin,
    pub(crate) method: Method,
    pub(crate) head: Head,
    pub(crate) conn: Conn,
    /// When the read that completed the head arrived (body bytes that came with it
    /// arrived then), us on the caller's clock.
    pub(crate) t_us: u64,
}

impl Response<'_> {
    /// The status.
    pub fn status(&self) -> StatusCode {
        self.head.status
    }

    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.head.headers
    }

    /// Reads the body to its end through `sink` (the module's private `read`), then gives
    /// the connection back to the pool when neither side said it ends with this response.
    /// `sink` gets each run of body bytes with the arrival of its read on `clock` (us) and
    /// the read's number (runs with the same number came in one read), and may stop the
    /// reading with its own error; a failure of the connection comes back as
    /// `E::from(Failure)`.
    pub async fn read<E: From<Failure>>(
        self,
        clock: &Clock,
        bounds: &Bounds<'_>,
        sink: &mut impl FnMut(&[u8], u64, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let Response {
            client,
            origin,
            method,
            head,
            mut conn,
            t_us,
        } = self;
        let framing = head
            .body(&method)
            .map_err(|e| Failure::new(FailureKind::Stream, e.to_string()))?;
        let closed = read(&mut conn, framing, t_us, clock, bounds, sink).await?;
        if !closed && head.keeps_alive() {
            client.pool.checkin(&origin, conn);
        }
        Ok(())
    }
}

/// Reads the body framed as `body` from `conn` to its end. Bytes already unread (they
/// came with the head) arrived at `t_us`. `sink` gets each run of body bytes with the
/// arrival of its read and the read's number, and may stop the reading. Returns
/// whether the server closed the connection (then it can carry no other request).
async fn read<E: From<Failure>>(
    conn: &mut Conn,
    mut body: Body,
    mut t_us: u64,
    clock: &Clock,
    bounds: &Bounds<'_>,
    sink: &mut impl FnMut(&[u8], u64, u64) -> Result<(), E>,
) -> Result<bool, E> {
    // One timer entry and one cancellation waiter for the whole body, not one of each
    // per read.
    let mut expired = pin!(sleep_until(bounds.deadline));
    let mut cancelled = pin!(bounds.cancel.cancelled());
    let mut closed = false;
    loop {
        let read = conn.reads();
        let mut stopped = None;
        let used = body
            .decode(conn.unread(), &mut |data| {
                if stopped.is_none()
                    && let Err(stop) = sink(data, t_us, read)
                {
                    stopped = Some(stop);
                }
            })
            .map_err(|e| broke::<E>(&e))?;
        conn.consume(used);
        if let Some(stop) = stopped {
            return Err(stop);
        }
        if body.is_done() {
            return Ok(closed);
        }
        // The read goes first: a read that is ready returns without polling the other
        // two (one poll per event, not three). They are polled whenever the read waits,
        // which tokio's cooperative budget makes it do at least every 128 reads.
        let got = tokio::select! {
            biased;
            r = conn.read() => r,
            _ = &mut cancelled => return Err(Failure {
                kind: FailureKind::Cancelled,
                message: None,
            }.into()),
            _ = &mut expired => return Err(Failure::new(
                FailureKind::Timeout,
                format!("response not complete within {:?}", bounds.timeout),
            ).into()),
        };
        t_us = conn.arrival_us(clock, t_us);
        match got {
            Ok(0) => {
                closed = true;
                body.closed().map_err(|e| broke::<E>(&e))?;
            }
            Ok(_) => {}
            Err(e) => return Err(broke::<E>(&e)),
        }
    }
}

fn broke<E: From<Failure>>(e: &(dyn std::error::Error + 'static)) -> E {
    Failure::new(
        FailureKind::Stream,
        format!("body broke: {}", crate::error_chain(e)),
    )
    .into()
}
