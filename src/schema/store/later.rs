//! Entries written after the caller goes on, on one thread of the store's own: a judge that
//! keeps hundreds of change lists in a run (a policy view's first violations) spent a third
//! of its time creating files, on every core, each waiting for the folder's lock. One writer
//! creates them one after the other while the judging goes on; the run waits for it at the
//! end ([`super::finish`]), so that what it kept is there for the next.
//!
//! While someone waits on a result (the terminal UI's policy view), the writer is held
//! ([`super::hold`]): on two cores a thread creating files takes a core from the judging the
//! user is waiting for. It writes once the hold is dropped, after [`HELD_AT_MOST`] at the
//! latest, and at once when the run ends.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use super::{Kind, Store};

/// How long [`Later::wait`] waits at most: the writer is never waited for forever (a disk
/// that hangs leaves the cache behind, not the user).
const WAIT_AT_MOST: Duration = Duration::from_secs(60);

/// How long a hold keeps the writer waiting at most: past it, what is queued is written.
pub(super) const HELD_AT_MOST: Duration = Duration::from_secs(2);

type Job = (Kind, [u8; 32], Vec<u8>);

/// The writer of one store: its queue (opened with the first entry) and the entries not
/// written yet.
#[derive(Default)]
pub(super) struct Later {
    queue: Mutex<Option<Sender<Job>>>,
    pending: Mutex<usize>,
    drained: Condvar,
    /// Holds live, and whether the run is ending (holds no longer count).
    held: Mutex<Held>,
    released: Condvar,
}

#[derive(Default)]
struct Held {
    holds: usize,
    ending: bool,
    /// When the writer first waited on the holds live now (None: it has not, or none lives).
    waiting_since: Option<Instant>,
}

/// While alive, the store's writer waits (see the module's doc).
#[must_use = "the writer is held only while the hold lives"]
pub struct Hold(Option<Arc<Store>>);

impl Hold {
    /// A hold of no store (the store is off).
    pub(super) fn none() -> Hold {
        Hold(None)
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(store) = &self.0 {
            let mut held = lock(&store.later.held);
            held.holds = held.holds.saturating_sub(1);
            if held.holds == 0 {
                held.waiting_since = None;
            }
            store.later.released.notify_all();
        }
    }
}

impl std::fmt::Debug for Later {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Later({} pending)", *lock(&self.pending))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Store {
    /// [`Store::put`], done by the store's writer thread; the caller goes on at once. When
    /// no thread can be started, written now.
    pub fn put_later(self: &Arc<Self>, kind: Kind, key: &[u8; 32], payload: Vec<u8>) {
        *lock(&self.later.pending) += 1;
        let job = (kind, *key, payload);
        let unsent = match self.writer() {
            Some(tx) => tx.send(job).err().map(|e| e.0),
            None => Some(job),
        };
        // Not queued (no writer): written here.
        if let Some((kind, key, payload)) = unsent {
            self.put(kind, &key, &payload);
            self.written_one();
        }
    }

    /// The writer's queue, started when first needed; None when no thread could start.
    fn writer(self: &Arc<Self>) -> Option<Sender<Job>> {
        let mut queue = lock(&self.later.queue);
        if queue.is_none() {
            let (tx, rx) = channel::<Job>();
            // The thread holds the store weakly: a store dropped ends its writer.
            let store: Weak<Store> = Arc::downgrade(self);
            std::thread::Builder::new()
                .name("protolapse-cache-writer".into())
                .spawn(move || {
                    for (kind, key, payload) in rx {
                        let Some(store) = store.upgrade() else { return };
                        store.later.unheld();
                        store.put(kind, &key, &payload);
                        store.written_one();
                    }
                })
                .ok()?;
            *queue = Some(tx);
        }
        queue.clone()
    }

    /// One queued entry is written: when it was the last, the store is settled (its size
    /// counted, evicted past the cap) before whoever waits is woken.
    fn written_one(&self) {
        let last = *lock(&self.later.pending) <= 1;
        if last {
            self.settle_now();
        }
        let mut pending = lock(&self.later.pending);
        *pending = pending.saturating_sub(1);
        if *pending == 0 {
            self.later.drained.notify_all();
        }
    }

    /// Holds the writer until the hold is dropped (see the module's doc).
    pub fn hold(self: &Arc<Self>) -> Hold {
        lock(&self.later.held).holds += 1;
        Hold(Some(self.clone()))
    }

    /// Waits until every entry queued so far is written (at most [`WAIT_AT_MOST`]); holds
    /// no longer keep the writer waiting: the run is ending.
    pub fn wait(&self) {
        lock(&self.later.held).ending = true;
        self.later.released.notify_all();
        let until = Instant::now() + WAIT_AT_MOST;
        let mut pending = lock(&self.later.pending);
        while *pending > 0 {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            pending = match self.later.drained.wait_timeout(pending, left) {
                Ok((p, _)) => p,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// Whether entries queued are not written yet.
    pub(super) fn writing(&self) -> bool {
        *lock(&self.later.pending) > 0
    }
}

impl Later {
    /// Waits while the writer is held: until no hold lives, the run ends, or the writer
    /// has waited [`HELD_AT_MOST`] on the holds live now (then it writes the rest).
    fn unheld(&self) {
        let mut held = lock(&self.held);
        if held.holds == 0 || held.ending {
            return;
        }
        let since = *held.waiting_since.get_or_insert_with(Instant::now);
        while held.holds > 0 && !held.ending {
            let left = HELD_AT_MOST.saturating_sub(since.elapsed());
            if left.is_zero() {
                return;
            }
            held = match self.released.wait_timeout(held, left) {
                Ok((h, _)) => h,
                Err(e) => e.into_inner().0,
            };
        }
    }
}
