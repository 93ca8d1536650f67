//! One open connection: its socket (TCP, or TLS over TCP), the bytes read and not yet
//! used, and a count of the reads that returned bytes, so a reader can tell which body
//! bytes arrived together.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

/// A socket plateau reads and writes.
pub(super) trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// Room made for each read.
const READ_ROOM: usize = 4 * 1024;

/// An idle connection keeps at most this much read buffer.
const IDLE_BUFFER: usize = 16 * 1024;

/// An open connection.
pub(super) struct Conn {
    io: Box<dyn Io>,
    /// Bytes read: `buf[used..]` are not yet used.
    buf: Vec<u8>,
    used: usize,
    /// Socket reads that returned bytes, so far.
    reads: u64,
}

impl Conn {
    pub(super) fn new(io: Box<dyn Io>) -> Conn {
        Conn {
            io,
            buf: Vec::new(),
            used: 0,
            reads: 0,
        }
    }

    /// Reads so far.
    pub(super) fn reads(&self) -> u64 {
        self.reads
    }

    /// The bytes read and not yet used.
    pub(super) fn unread(&self) -> &[u8] {
        &self.buf[self.used..]
    }

    /// Marks the first `n` unread bytes used.
    pub(super) fn consume(&mut self, n: usize) {
        self.used = (self.used + n).min(self.buf.len());
        if self.used == self.buf.len() {
            self.buf.clear();
            self.used = 0;
        }
    }

    /// Writes all of `bytes`.
    pub(super) async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.io.write_all(bytes).await?;
        self.io.flush().await
    }

    /// Reads once more into the unread bytes: how many arrived, 0 when the peer closed.
    pub(super) async fn read(&mut self) -> io::Result<usize> {
        if self.used > 0 && self.buf.capacity() - self.buf.len() < READ_ROOM / 4 {
            self.buf.drain(..self.used);
            self.used = 0;
        }
        self.buf.reserve(READ_ROOM);
        let n = self.io.read_buf(&mut self.buf).await?;
        if n > 0 {
            self.reads += 1;
        }
        Ok(n)
    }

    /// Whether an idle connection is still usable: the server has neither closed it nor
    /// sent anything unasked. Reads without waiting.
    pub(super) fn idle_usable(&mut self) -> bool {
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
    pub(super) fn shrink(&mut self) {
        if self.unread().is_empty() && self.buf.capacity() > IDLE_BUFFER {
            self.buf = Vec::new();
            self.used = 0;
        }
    }
}
