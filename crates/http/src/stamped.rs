//! Plain TCP whose reads carry the kernel's receive time (`SO_TIMESTAMPNS`): the instant
//! the last segment a read returned reached this machine's TCP stack, before it waited in
//! the socket's queue for the client to get round to it. A busy client then stamps each
//! frame when it arrived, not when it was read; where several frames wait to be read
//! together, they all take the arrival of the last, which is never later than the read.

use std::io::{self, IoSliceMut, Write};
use std::net::Shutdown;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::SystemTime;

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg, setsockopt, sockopt};
use nix::sys::time::TimeSpec;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::conn::Io;

/// A connected plain TCP socket whose reads report when their bytes arrived.
pub(crate) struct StampedTcp {
    fd: AsyncFd<std::net::TcpStream>,
    /// Room for one timestamp control message, kept for every read.
    control: Vec<u8>,
}

impl StampedTcp {
    /// Takes over a connected socket. When the kernel will not stamp it, reads report no
    /// arrival and the reader stamps them as they return.
    #[allow(unsafe_code)]
    pub(crate) fn new(tcp: tokio::net::TcpStream) -> io::Result<StampedTcp> {
        let tcp = tcp.into_std()?;
        if let Err(e) = setsockopt(&tcp, sockopt::ReceiveTimestampns, &true) {
            tracing::debug!("no kernel receive timestamps on this socket: {e}");
        }
        // SAFETY: the descriptor is the socket's own, and the socket, owned by the
        // `AsyncFd` from here on, keeps it open and unchanged until the `AsyncFd` drops.
        let fd = unsafe { AsyncFd::register(tcp) }?;
        Ok(StampedTcp {
            fd,
            control: nix::cmsg_space!(TimeSpec),
        })
    }

    /// One `recvmsg` into `buf`: the bytes read and the arrival of the last of them.
    fn recv(
        fd: &std::net::TcpStream,
        control: &mut [u8],
        buf: &mut [u8],
    ) -> io::Result<(usize, Option<SystemTime>)> {
        let mut iov = [IoSliceMut::new(buf)];
        let msg = recvmsg::<()>(fd.as_raw_fd(), &mut iov, Some(control), MsgFlags::empty())?;
        let arrived = msg.cmsgs().ok().and_then(|mut c| {
            c.find_map(|m| match m {
                ControlMessageOwned::ScmTimestampns(ts) => system_time(ts),
                _ => None,
            })
        });
        Ok((msg.bytes, arrived))
    }
}

/// A `CLOCK_REALTIME` timestamp as a [`SystemTime`] (none before 1970).
fn system_time(ts: TimeSpec) -> Option<SystemTime> {
    let secs = u64::try_from(ts.tv_sec()).ok()?;
    let nanos = u32::try_from(ts.tv_nsec()).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
}

impl Io for StampedTcp {
    fn poll_read_stamped(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, Option<SystemTime>)>> {
        let Self { fd, control } = self;
        loop {
            let mut guard = ready!(fd.poll_read_ready(cx))?;
            match guard.try_io(|fd| StampedTcp::recv(fd.get_ref(), control, buf)) {
                Ok(read) => {
                    // As tokio's own reads do on epoll: a read that did not fill the
                    // buffer emptied the socket, so the next waits for readiness instead
                    // of making a system call only to hear "would block".
                    if let Ok((n, _)) = read
                        && 0 < n
                        && n < buf.len()
                    {
                        guard.clear_ready();
                    }
                    return Poll::Ready(read);
                }
                Err(_would_block) => {}
            }
        }
    }
}

impl AsyncRead for StampedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = ready!(
            self.get_mut()
                .poll_read_stamped(cx, buf.initialize_unfilled())
        )?
        .0;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for StampedTcp {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            if let Ok(written) = guard.try_io(|fd| fd.get_ref().write(buf)) {
                return Poll::Ready(written);
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.fd.get_ref().shutdown(Shutdown::Write))
    }
}
