//! Reading a response body in the request's own task: each socket read is stamped with
//! its bytes' arrival ([`Conn::arrival_us`]) before any parsing, and its body bytes are
//! decoded where they lie and handed on with that stamp and the read's number.

use std::pin::pin;

use tokio::time::sleep_until;

use http::Method;

use super::Client;
use super::conn::Conn;
use super::http1::Body;
use super::pool::Origin;
use super::send::{Bounds, Sent};
use crate::clock::Clock;
use crate::sample::Outcome;

/// Why reading stopped early: the outcome and its message.
pub(super) type Stop = (Outcome, Option<String>);

impl Client {
    /// Reads the body of `sent`, the answer to a `method` request to `origin`, to its end
    /// through `sink` ([`read`]), then gives the connection back to the pool when neither
    /// side said it ends with this response.
    pub(super) async fn read_body(
        &self,
        origin: &Origin,
        method: &Method,
        sent: Sent,
        clock: &Clock,
        bounds: &Bounds<'_>,
        sink: &mut impl FnMut(&[u8], u64, u64) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let Sent {
            head,
            mut conn,
            t_us,
        } = sent;
        let framing = head
            .body(method)
            .map_err(|e| (Outcome::Stream, Some(e.to_string())))?;
        let closed = read(&mut conn, framing, t_us, clock, bounds, sink).await?;
        if !closed && head.keeps_alive() {
            self.pool.checkin(origin, conn);
        }
        Ok(())
    }
}

/// Reads the body framed as `body` from `conn` to its end. Bytes already unread (they
/// came with the head) arrived at `t_us`. `sink` gets each run of body bytes with the
/// arrival of its read and the read's number, and may stop the reading. Returns
/// whether the server closed the connection (then it can carry no other request).
pub(super) async fn read(
    conn: &mut Conn,
    mut body: Body,
    mut t_us: u64,
    clock: &Clock,
    bounds: &Bounds<'_>,
    sink: &mut impl FnMut(&[u8], u64, u64) -> Result<(), Stop>,
) -> Result<bool, Stop> {
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
            .map_err(|e| broke(&e))?;
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
            _ = &mut cancelled => return Err((Outcome::Cancelled, None)),
            _ = &mut expired => return Err((
                Outcome::Timeout,
                Some(format!("response not complete within {:?}", bounds.timeout)),
            )),
        };
        t_us = conn.arrival_us(clock, t_us);
        match got {
            Ok(0) => {
                closed = true;
                body.closed().map_err(|e| broke(&e))?;
            }
            Ok(_) => {}
            Err(e) => return Err(broke(&e)),
        }
    }
}

fn broke(e: &(dyn std::error::Error + 'static)) -> Stop {
    (
        Outcome::Stream,
        Some(format!("body broke: {}", super::error_chain(e))),
    )
}
