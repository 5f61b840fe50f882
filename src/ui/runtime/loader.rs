//! The loader thread: reads the history (through `history` and `load`, never git itself),
//! announces the versions (indexed for the finder by name, commit id and message), then hands
//! over each version as it compiles, indexing its names for the finder on the way.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use crate::config::Config;
use crate::explore::names::Index;
use crate::history::{self, Version};
use crate::load;

use crate::ui::app::action::{Action, Opened};
use crate::ui::runtime::worker::{Event, Inbox, Who};

/// Where the history comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The built-in demo, written into a temporary repository.
    Demo,
    Repo(PathBuf),
}

/// What to load (flags; `protolapse.toml` fills what they leave out).
pub type LoadOptions = crate::config::Given;

/// Starts the loader thread.
pub fn spawn(
    source: Source,
    opts: LoadOptions,
    names: Arc<RwLock<Index>>,
    inbox: Inbox,
    tx: Sender<Event>,
) {
    let fail_inbox = inbox.clone();
    let fail_tx = tx.clone();
    let spawned = std::thread::Builder::new()
        .name("protolapse-loader".into())
        .spawn(move || {
            let notify = || {
                let _ = tx.send(Event::Ready(Who::Loader));
            };
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(&source, &opts, &names, &inbox, &notify)
            }));
            let failed = match done {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("internal error while loading the history; please report it".into()),
            };
            if let Some(e) = failed {
                inbox.push(Action::LoadFailed(e));
                notify();
            }
        });
    if let Err(e) = spawned {
        fail_inbox.push(Action::LoadFailed(format!(
            "cannot start the loader thread: {e}"
        )));
        let _ = fail_tx.send(Event::Ready(Who::Loader));
    }
}

/// Loads the history, pushing actions to `inbox` as it goes. Blocking; also used inline by
/// the tests and the benchmark.
pub fn run(
    source: &Source,
    opts: &LoadOptions,
    names: &RwLock<Index>,
    inbox: &Inbox,
    notify: &dyn Fn(),
) -> Result<(), String> {
    let started = Instant::now();
    let (_demo, path) = match source {
        Source::Demo => {
            let dir = history::demo::build().map_err(|e| e.to_string())?;
            let p = dir.path().to_path_buf();
            (Some(dir), p)
        }
        Source::Repo(p) => (None, p.clone()),
    };
    let root = history::repo_root(&path).map_err(|e| e.to_string())?;
    let config = Config::load(&root)
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    // The demo names where it opens, as a repository's protolapse.toml may name its root.
    let start = match source {
        Source::Demo => history::demo::start().map_err(|e| e.to_string())?,
        Source::Repo(_) => history::demo::Start::default(),
    };
    let hopts = config.history_options(opts, false);
    let settings = config.settings()?;
    let history = history::load(&path, &hopts).map_err(|e| e.to_string())?;
    let headers: Vec<Version> = history
        .versions
        .iter()
        .map(|v| {
            let mut h = v.clone();
            h.files = Arc::from([]);
            h
        })
        .collect();
    let pending: Vec<load::Loaded> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| load::Loaded::pending(load::VersionId::at(i), h.clone()))
        .collect();
    let opened_at = start
        .version
        .and_then(|name| headers.iter().position(|h| h.name == name))
        .map(load::VersionId::at);
    // The finder finds versions by name, commit id and message from the start.
    names
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .add_versions(&headers);
    inbox.push(Action::Opened(Box::new(Opened {
        selected: opened_at,
        versions: headers,
        config_root: config.root.clone().or(start.root),
        settings,
        skipped: history.skipped.len(),
    })));
    notify();
    // The newest version (the one selected) and the one it is compared with first, so the
    // graph is on screen before the rest of the history has compiled.
    let selected = opened_at.unwrap_or(load::VersionId::at(pending.len().saturating_sub(1)));
    let order = load::needs::selected_first(&pending, selected);
    // The finder's index takes versions in history order: those compiled ahead wait.
    let mut waiting: BTreeMap<usize, load::Loaded> = BTreeMap::new();
    let mut next = 0;
    let project = load::compile_each(history, started, &order, |loaded, _done, _total| {
        let i = loaded.id.index();
        inbox.push(Action::Compiled(i, Box::new(loaded.clone())));
        waiting.insert(i, loaded.clone());
        while let Some(v) = waiting.remove(&next) {
            names
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .add(next, &v.compiled.schema.content);
            next += 1;
            inbox.push(Action::Indexed(next));
        }
        notify();
    });
    // Versions compiled ahead of those before them are linked to them only now.
    for (k, &id) in order.iter().enumerate() {
        if order[k + 1..].iter().any(|&later| later < id)
            && let Some(v) = project.get(id)
        {
            inbox.push(Action::Compiled(id.index(), Box::new(v.clone())));
        }
    }
    if let Some(e) = project.no_protos() {
        return Err(e);
    }
    inbox.push(Action::Loaded(Arc::new(project)));
    notify();
    Ok(())
}
