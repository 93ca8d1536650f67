//! One open connection: its socket (TCP, or TLS over TCP), the bytes read and not yet
//! used, a count of the reads that returned bytes, so a reader can tell which body bytes
//! arrived together, and when the last read's bytes arrived.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};
use std::time::SystemTime;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};

use crate::clock::{Clock, micros};

/// A socket plateau reads and writes.
pub(crate) trait Io: AsyncRead + AsyncWrite + Send + Unpin {
    /// Reads into `buf`: how many bytes, and when the kernel says the last of them arrived
    /// (none here: the reader stamps the read as it returns).
    fn poll_read_stamped(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, Option<SystemTime>)>> {
        let mut read = ReadBuf::new(buf);
        ready!(Pin::new(self).poll_read(cx, &mut read))?;
        Poll::Ready(Ok((read.filled().len(), None)))
    }
}

impl Io for tokio_rustls::client::TlsStream<tokio::net::TcpStream> {}

#[cfg(not(target_os = "linux"))]
impl Io for tokio::net::TcpStream {}

/// Room made for each read.
const READ_ROOM: usize = 4 * 1024;

/// An idle connection keeps at most this much read buffer.
const IDLE_BUFFER: usize = 16 * 1024;

/// A kernel arrival older than this at its read is not believed (the wall clock stepped);
/// the read's return is used.
const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(10);

/// An open connection.
pub(crate) struct Conn {
    io: Box<dyn Io>,
    /// The read buffer, all of it initialised: `buf[used..filled]` are read and not yet
    /// used.
    buf: Vec<u8>,
    used: usize,
    filled: usize,
    /// Socket reads that returned bytes, so far.
    reads: u64,
    /// When the kernel says the last read's bytes arrived, if it said.
    arrived: Option<SystemTime>,
}

impl Conn {
    pub(crate) fn new(io: Box<dyn Io>) -> Conn {
        Conn {
            io,
            buf: Vec::new(),
            used: 0,
            filled: 0,
            reads: 0,
            arrived: None,
        }
    }

    /// Reads so far.
    pub(crate) fn reads(&self) -> u64 {
        self.reads
    }

    /// The bytes read and not yet used.
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.used..self.filled]
    }

    /// Marks the first `n` unread bytes used.
    pub(crate) fn consume(&mut self, n: usize) {
        self.used = (self.used + n).min(self.filled);
        if self.used == self.filled {
            self.used = 0;
            self.filled = 0;
        }
    }

    /// Writes all of `bytes`.
    pub(crate) async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.io.write_all(bytes).await?;
        self.io.flush().await
    }

    /// Reads once more into the unread bytes: how many arrived, 0 when the peer closed.
    pub(crate) async fn read(&mut self) -> io::Result<usize> {
        if self.used > 0 && self.buf.len() - self.filled < READ_ROOM / 4 {
            self.buf.copy_within(self.used..self.filled, 0);
            self.filled -= self.used;
            self.used = 0;
        }
        if self.buf.len() - self.filled < READ_ROOM {
            self.buf.resize(self.filled + READ_ROOM, 0);
        }
        let (n, arrived) = {
            let Conn {
                io, buf, filled, ..
            } = self;
            std::future::poll_fn(|cx| io.poll_read_stamped(cx, &mut buf[*filled..])).await?
        };
        self.filled += n;
        if n > 0 {
            self.reads += 1;
        }
        self.arrived = arrived;
        Ok(n)
    }

    /// When the last read's bytes arrived on `clock`, us, and never before `not_before`:
    /// the kernel's receive time where it gave one (see `stamped`), else now. Call it as
    /// soon as the read returns.
    pub(crate) fn arrival_us(&self, clock: &Clock, not_before: u64) -> u64 {
        let Some(at) = self.arrived else {
            return clock.now_us().max(not_before);
        };
        // The wall clock is read before the cell clock: time that passes between the two
        // reads then makes the stamp later, never earlier than the arrival (the other order
        // once put a 20 ms first token at 19.995 ms).
        let wall = SystemTime::now();
        let now = clock.now_us();
        let age = wall
            .duration_since(at)
            .ok()
            .filter(|age| *age < MAX_AGE)
            .map_or(0, micros);
        now.saturating_sub(age).max(not_before)
    }

    /// Whether an idle connection is still usable: the server has neither closed it nor
    /// sent anything unasked. Reads without waiting.
    pub(crate) fn idle_usable(&mut self) -> bool {
        if !self.unread().is_empty() {
            return false;
        }
        let mut probe = [0u8; 1];
        let mut probe = ReadBuf::new(&mut probe);
        let mut cx = Context::from_waker(Waker::noop());
        matches!(
            Pin::new(&mut self.io).poll_read(&mut cx, &mut probe),
            Poll::Pending
        )
    }

    /// Gives back a large read buffer before the connection waits idle.
    pub(crate) fn shrink(&mut self) {
        if self.unread().is_empty() && self.buf.len() > IDLE_BUFFER {
            self.buf = Vec::new();
            self.used = 0;
            self.filled = 0;
        }
    }
}
