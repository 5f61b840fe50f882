//! Background workers, gitui style: each runs blocking functions on its own thread, puts its
//! results in an inbox, and sends the event loop a small `Copy` notification; the loop then
//! pulls the results. A newer request replaces one still waiting (for comparisons and
//! searches: only the latest matters). [`execute`] is the blocking function itself, which
//! tests call inline.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};

use crate::explore::Comparison;
use crate::explore::facts::{self, Marked};
use crate::explore::names::Index;
use crate::judge::Comparer;

use crate::policy::Settings;
use crate::ui::app::Request;
use crate::ui::app::action::{Action, Found, FoundSet, MatrixProgress};

/// Who has results waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Loader,
    Compare,
    Facts,
    Matrix,
    Lifecycle,
    Find,
    Prove,
}

/// What the event loop receives.
#[derive(Debug)]
pub enum Event {
    Input(ratatui::crossterm::event::Event),
    /// Results are waiting in that producer's inbox.
    Ready(Who),
    /// The input thread stopped (the terminal went away).
    InputClosed,
}

/// Results waiting for the event loop.
#[derive(Debug, Clone, Default)]
pub struct Inbox(Arc<Mutex<VecDeque<Action>>>);

impl Inbox {
    pub fn push(&self, a: Action) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(a);
    }

    pub fn extend(&self, a: impl IntoIterator<Item = Action>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(a);
    }

    pub fn drain(&self) -> Vec<Action> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect()
    }
}

/// Runs a request to its results (what it reported on the way, then what it returned), in
/// order. Blocking.
pub fn execute(req: Request, names: &RwLock<Index>) -> Vec<Action> {
    let reported = Mutex::new(Vec::new());
    let report = |a: Action| {
        reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(a)
    };
    let progress = Progress {
        report: &report,
        wanted: &|| true,
    };
    let last = execute_with(req, names, &progress);
    let mut out = reported
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    out.extend(last);
    out
}

/// Where a long request reports how far it is, and asks whether it is still wanted.
pub struct Progress<'a> {
    pub report: &'a (dyn Fn(Action) + Sync),
    pub wanted: &'a (dyn Fn() -> bool + Sync),
}

/// [`execute`], handing progress to `progress` (the policy matrix's pairs compared so far,
/// and a result ready before the last); when it is no longer wanted (a newer request is
/// waiting) the work stops early and the result says it was cancelled. Returns the last
/// result, if it was not reported.
pub fn execute_with(
    req: Request,
    names: &RwLock<Index>,
    progress: &Progress<'_>,
) -> Option<Action> {
    Some(match req {
        Request::Compare {
            key,
            old,
            new,
            ignores,
        } => Action::Compared(Arc::new(Comparison::build(
            old.map(|o| *o),
            *new,
            &key.2,
            &ignores,
        ))),
        Request::Facts {
            project,
            settings,
            with_matrix,
        } => {
            let cmp = crate::policy::comparer(&project, &settings);
            let analysis = || Action::Facts(Arc::new(facts::analyze_on(&cmp, &settings)));
            if !with_matrix {
                return Some(analysis());
            }
            // One comparer for both, each step on every core: the matrix's marks (the pairs
            // they summarize, the analysis reads again), the analysis, then the first
            // violations of the matrix's failing cells.
            let Some(mut marked) = marks(&cmp, &settings, progress) else {
                return Some(analysis());
            };
            (progress.report)(Action::Matrix(Arc::new(marked.matrix())));
            (progress.report)(analysis());
            (progress.report)(Action::Matrix(Arc::new(marked.complete(&cmp))));
            // The comparer and the marks are freed once the matrix is on its way.
            return None;
        }
        Request::Matrix { project, settings } => {
            let cmp = crate::policy::comparer(&project, &settings);
            let mut marked = marks(&cmp, &settings, progress)?;
            (progress.report)(Action::Matrix(Arc::new(marked.matrix())));
            (progress.report)(Action::Matrix(Arc::new(marked.complete(&cmp))));
            return None;
        }
        Request::Lifecycle { project, container } => Action::Lifecycle(Arc::new(
            crate::policy::lifecycle(&project.versions, &container),
        )),
        Request::Prove { key, comparison: c } => {
            let (old, new) = (&c.old.compiled.schema, &c.new.compiled.schema);
            // A proof that panics is answered (not proven, and why), so that the pane does
            // not wait for it for good.
            let proof = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::prove::prove_change(old, new, &c.changes, key.1)
            }))
            .unwrap_or_else(|e| {
                let why = format!("internal error: {}; please report it", panic_text(&e));
                let c = c.changes.get(key.1)?;
                Some(crate::prove::Proof::unproven(c, Some(why)))
            });
            Action::Proved(key, proof.map(Arc::new))
        }
        Request::Find { query, roots_only } => {
            let index = names.read().unwrap_or_else(PoisonError::into_inner);
            let hits = index.search(&query, roots_only, 500);
            let items = hits
                .into_iter()
                .filter_map(|h| {
                    let e = index.entries.get(h.entry)?;
                    Some(Found {
                        name: e.name.clone(),
                        kind: e.kind,
                        first: e.first,
                        last: e.last,
                        count: e.count,
                        indices: h.indices,
                    })
                })
                .collect();
            Action::Found(FoundSet {
                query,
                roots_only,
                items,
                indexed: index.versions,
            })
        }
    })
}

/// The policy matrix of `cmp`'s scope with every cell marked, with progress reported; None
/// when a newer request stopped it (which is then reported).
fn marks(cmp: &Comparer<'_>, settings: &Settings, progress: &Progress<'_>) -> Option<Marked> {
    let scope = settings.scope.clone();
    // One report per percent: a hundred redraws at most.
    let last = AtomicUsize::new(usize::MAX);
    let each = |done: usize, total: usize| {
        let pct = (done * 100).checked_div(total).unwrap_or(100);
        if last.swap(pct, Ordering::Relaxed) != pct {
            (progress.report)(Action::MatrixProgress(MatrixProgress::Running {
                scope: scope.clone(),
                done,
                total,
            }));
        }
        (progress.wanted)()
    };
    let marked = facts::policy_marks(cmp, settings, &each);
    if marked.is_none() {
        (progress.report)(Action::MatrixProgress(MatrixProgress::Cancelled(scope)));
    }
    marked
}

/// The message of a caught panic.
fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

struct Queue {
    items: Mutex<VecDeque<Request>>,
    ready: Condvar,
    replace: bool,
}

/// One worker thread.
struct Worker {
    queue: Arc<Queue>,
}

impl Worker {
    fn spawn(
        who: Who,
        replace: bool,
        names: Arc<RwLock<Index>>,
        inbox: Inbox,
        tx: Sender<Event>,
    ) -> Worker {
        let queue = Arc::new(Queue {
            items: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            replace,
        });
        let q = queue.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("protolapse-{who:?}").to_lowercase())
            .spawn(move || {
                loop {
                    let req = {
                        let mut items = q.items.lock().unwrap_or_else(PoisonError::into_inner);
                        loop {
                            if let Some(r) = items.pop_front() {
                                break r;
                            }
                            items = q.ready.wait(items).unwrap_or_else(PoisonError::into_inner);
                        }
                    };
                    let what = format!("{who:?}").to_lowercase();
                    let report = |a: Action| {
                        inbox.push(a);
                        let _ = tx.send(Event::Ready(who));
                    };
                    // Replacing workers drop work that a newer request made useless.
                    let wanted = || {
                        !q.replace
                            || q.items
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .is_empty()
                    };
                    let progress = Progress {
                        report: &report,
                        wanted: &wanted,
                    };
                    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        execute_with(req, &names, &progress)
                    }));
                    let last = match done {
                        Ok(a) => a,
                        Err(e) => Some(Action::Failed(format!(
                            "internal error in the {what} worker: {}; please report it",
                            panic_text(&e)
                        ))),
                    };
                    inbox.extend(last);
                    if tx.send(Event::Ready(who)).is_err() {
                        return;
                    }
                    // What the request kept for later runs (its change lists and summaries)
                    // is written now that its result is delivered: a session that ends
                    // abnormally loses nothing it finished.
                    crate::schema::store::finish();
                }
            });
        if let Err(e) = spawned {
            // Without a thread, run nothing: the UI shows the work as pending.
            eprintln!("cannot start a worker thread: {e}");
        }
        Worker { queue }
    }

    fn request(&self, req: Request) {
        let mut items = self
            .queue
            .items
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.queue.replace {
            items.clear();
        }
        items.push_back(req);
        self.queue.ready.notify_one();
    }
}

/// The workers and their inboxes.
pub struct Workers {
    compare: Worker,
    facts: Worker,
    matrix: Worker,
    lifecycle: Worker,
    find: Worker,
    prove: Worker,
    inboxes: Vec<(Who, Inbox)>,
}

impl Workers {
    pub fn start(tx: &Sender<Event>, names: &Arc<RwLock<Index>>) -> Workers {
        let mut inboxes = Vec::new();
        let mut make = |who: Who, replace: bool| {
            let inbox = Inbox::default();
            inboxes.push((who, inbox.clone()));
            Worker::spawn(who, replace, names.clone(), inbox, tx.clone())
        };
        let compare = make(Who::Compare, true);
        let facts = make(Who::Facts, true);
        let matrix = make(Who::Matrix, true);
        let lifecycle = make(Who::Lifecycle, false);
        let find = make(Who::Find, true);
        // Only the change on screen matters: moving on replaces a proof still waiting.
        let prove = make(Who::Prove, true);
        Workers {
            compare,
            facts,
            matrix,
            lifecycle,
            find,
            prove,
            inboxes,
        }
    }

    pub fn send(&self, req: Request) {
        match &req {
            Request::Compare { .. } => self.compare.request(req),
            Request::Facts { .. } => self.facts.request(req),
            Request::Matrix { .. } => self.matrix.request(req),
            Request::Lifecycle { .. } => self.lifecycle.request(req),
            Request::Find { .. } => self.find.request(req),
            Request::Prove { .. } => self.prove.request(req),
        }
    }

    /// The results waiting from `who`.
    pub fn drain(&self, who: Who) -> Vec<Action> {
        self.inboxes
            .iter()
            .filter(|(w, _)| *w == who)
            .flat_map(|(_, i)| i.drain())
            .collect()
    }
}
