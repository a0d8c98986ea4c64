//! [`Poller`]: level-triggered epoll, so an I/O thread can sleep until a socket is readable.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use super::check;

/// Most readiness events fetched by one [`Poller::wait`].
const MAX_EVENTS: usize = 256;

/// A level-triggered epoll instance watching sockets for readability. Each registered socket
/// carries a `u64` token chosen by the caller; [`Poller::wait`] returns the tokens of the ready
/// ones. Level-triggered means a socket the caller did not drain is reported again next time.
#[derive(Debug)]
pub struct Poller {
    epfd: OwnedFd,
    events: Vec<libc::epoll_event>,
}

impl Poller {
    /// A new epoll instance (close-on-exec).
    pub fn new() -> io::Result<Self> {
        // SAFETY: `epoll_create1` takes no pointers; a non-negative result is a new descriptor
        // that nothing else owns, so `OwnedFd` may take it.
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `fd` is a fresh, open descriptor owned by no one else (see above).
        let epfd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Self {
            epfd,
            events: vec![libc::epoll_event { events: 0, u64: 0 }; MAX_EVENTS],
        })
    }

    /// Watches `fd` for readability (and hang-up or error, which are always reported).
    pub fn add(&self, fd: BorrowedFd<'_>, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: token,
        };
        // SAFETY: `ev` is a valid `epoll_event` for the call; both descriptors are open.
        check(unsafe {
            libc::epoll_ctl(
                self.epfd.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd.as_raw_fd(),
                &mut ev,
            )
        })?;
        Ok(())
    }

    /// Changes what `fd` is watched for: readability, plus writability when `writable`
    /// (a stream with output waiting for room).
    pub fn modify(&self, fd: BorrowedFd<'_>, token: u64, writable: bool) -> io::Result<()> {
        let out = if writable { libc::EPOLLOUT } else { 0 };
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | out) as u32,
            u64: token,
        };
        // SAFETY: as in `add`.
        check(unsafe {
            libc::epoll_ctl(
                self.epfd.as_raw_fd(),
                libc::EPOLL_CTL_MOD,
                fd.as_raw_fd(),
                &mut ev,
            )
        })?;
        Ok(())
    }

    /// Stops watching `fd` (closing a descriptor also removes it).
    pub fn remove(&self, fd: BorrowedFd<'_>) -> io::Result<()> {
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: as in `add`; the event argument is ignored by EPOLL_CTL_DEL but must be valid
        // on old kernels.
        check(unsafe {
            libc::epoll_ctl(
                self.epfd.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                fd.as_raw_fd(),
                &mut ev,
            )
        })?;
        Ok(())
    }

    /// Waits up to `timeout_ms` (0: do not block, negative: forever) and appends the tokens of
    /// ready sockets to `ready`. Returns how many were appended; an interrupted wait returns 0.
    pub fn wait(&mut self, ready: &mut Vec<u64>, timeout_ms: i32) -> io::Result<usize> {
        let cap = libc::c_int::try_from(self.events.len()).unwrap_or(libc::c_int::MAX);
        // SAFETY: `events` has room for `cap` entries, which the kernel fills.
        let n = unsafe {
            libc::epoll_wait(
                self.epfd.as_raw_fd(),
                self.events.as_mut_ptr(),
                cap,
                timeout_ms,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(0)
            } else {
                Err(e)
            };
        }
        let n = usize::try_from(n).unwrap_or(0);
        ready.extend(self.events.iter().take(n).map(|e| e.u64));
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsFd;

    #[test]
    fn reports_readable_sockets_until_drained() {
        let mut p = Poller::new().unwrap();
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        p.add(a.as_fd(), 7).unwrap();
        p.add(b.as_fd(), 9).unwrap();
        let mut ready = Vec::new();
        assert_eq!(p.wait(&mut ready, 0).unwrap(), 0);
        b.send_to(b"x", a.local_addr().unwrap()).unwrap();
        p.wait(&mut ready, 5000).unwrap();
        assert_eq!(ready, vec![7]);
        // Level-triggered: still ready until read.
        ready.clear();
        p.wait(&mut ready, 0).unwrap();
        assert_eq!(ready, vec![7]);
        let mut buf = [0u8; 4];
        a.recv(&mut buf).unwrap();
        ready.clear();
        assert_eq!(p.wait(&mut ready, 0).unwrap(), 0);
        // A socket with room to write is reported once writability is asked for.
        p.modify(b.as_fd(), 9, true).unwrap();
        p.wait(&mut ready, 0).unwrap();
        assert_eq!(ready, vec![9]);
        p.modify(b.as_fd(), 9, false).unwrap();
        ready.clear();
        assert_eq!(p.wait(&mut ready, 0).unwrap(), 0);
        p.remove(a.as_fd()).unwrap();
        assert!(p.remove(a.as_fd()).is_err());
    }
}
