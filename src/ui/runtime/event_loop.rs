//! The event loop: draw the first frame at once, start the loader and the workers, then
//! turn each event into an action, hand requests to the workers, and redraw. Generic over
//! the backend, so the benchmark drives the same loop on an in-memory terminal.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{
    self as ct, Event as CtEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::explore::names::Index;

use crate::ui::app::action::{Action, Mouse};
use crate::ui::app::keys::{self, Context};
use crate::ui::app::{App, Phase};
use crate::ui::runtime::loader::{self, LoadOptions, Source};
use crate::ui::runtime::worker::{Event, Inbox, Who, Workers};
use crate::ui::widgets::theme::Theme;

/// What the UI is started with.
#[derive(Debug, Clone)]
pub struct Options {
    pub source: Source,
    pub load: LoadOptions,
    /// `--root`.
    pub root: Option<String>,
}

/// The loop's state: the app, its terminal, the workers and the event channel.
pub struct Runtime<B: Backend> {
    pub app: App,
    pub terminal: Terminal<B>,
    rx: Receiver<Event>,
    tx: Sender<Event>,
    workers: Workers,
    loader: Inbox,
    dirty: bool,
}

/// The action an input event means in the app's current context.
pub fn input_action(app: &App, ev: &CtEvent) -> Option<Action> {
    match ev {
        CtEvent::Key(k) => {
            if k.kind == KeyEventKind::Release {
                return None;
            }
            let ctx = app.context();
            if let Some(cmd) = keys::command(ctx, k) {
                return Some(Action::Command(cmd));
            }
            match k.code {
                ct::KeyCode::Char(c)
                    if ctx == Context::Finder
                        && !k
                            .modifiers
                            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
                {
                    Some(Action::Type(c))
                }
                _ => None,
            }
        }
        CtEvent::Mouse(m) => {
            let kind = match m.kind {
                MouseEventKind::Down(ct::MouseButton::Left) => Mouse::Click,
                MouseEventKind::ScrollUp => Mouse::ScrollUp,
                MouseEventKind::ScrollDown => Mouse::ScrollDown,
                _ => return None,
            };
            Some(Action::Mouse {
                kind,
                column: m.column,
                row: m.row,
            })
        }
        CtEvent::Resize(w, h) => Some(Action::Resize(*w, *h)),
        _ => None,
    }
}

impl<B: Backend> Runtime<B>
where
    B::Error: Send + Sync + 'static,
{
    /// Draws the first frame, then starts the workers and the loader.
    pub fn start(mut terminal: Terminal<B>, opts: Options, theme: Theme) -> Result<Self> {
        let size = terminal
            .size()
            .map_err(|e| anyhow!("cannot read the terminal size: {e}"))?;
        let label = match &opts.source {
            Source::Demo => "demo".to_string(),
            Source::Repo(p) => p.display().to_string(),
        };
        let app = App::new(
            theme,
            Rect::new(0, 0, size.width, size.height),
            &label,
            opts.root.clone(),
        );
        terminal
            .draw(|f| f.render_widget(&app, f.area()))
            .map_err(|e| anyhow!("cannot draw: {e}"))?;
        let (tx, rx) = mpsc::channel();
        let names = Arc::new(RwLock::new(Index::new()));
        let workers = Workers::start(&tx, &names);
        let inbox = Inbox::default();
        loader::spawn(opts.source, opts.load, names, inbox.clone(), tx.clone());
        Ok(Runtime {
            app,
            terminal,
            rx,
            tx,
            workers,
            loader: inbox,
            dirty: false,
        })
    }

    pub fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// Applies one action and hands its requests to the workers.
    pub fn apply(&mut self, a: Action) {
        self.app.update(a);
        for req in self.app.outbox.drain(..) {
            self.workers.send(req);
        }
        self.dirty = true;
    }

    fn handle(&mut self, ev: Event) -> bool {
        match ev {
            Event::Input(ev) => {
                if let Some(a) = input_action(&self.app, &ev) {
                    self.apply(a);
                }
            }
            Event::Ready(Who::Loader) => {
                for a in self.loader.drain() {
                    self.apply(a);
                }
            }
            Event::Ready(who) => {
                for a in self.workers.drain(who) {
                    self.apply(a);
                }
            }
            Event::InputClosed => return false,
        }
        true
    }

    /// Waits for an event (at most `timeout`), handles it and every event already queued,
    /// then redraws if anything changed. Returns false when the loop should stop.
    pub fn pump(&mut self, timeout: Duration) -> Result<bool> {
        let first = match self.rx.recv_timeout(timeout) {
            Ok(ev) => ev,
            Err(RecvTimeoutError::Timeout) => return Ok(!self.app.quit),
            Err(RecvTimeoutError::Disconnected) => return Ok(false),
        };
        let mut go = self.handle(first);
        while go && !self.app.quit {
            match self.rx.try_recv() {
                Ok(ev) => go = self.handle(ev),
                Err(_) => break,
            }
        }
        if !go || self.app.quit {
            return Ok(false);
        }
        self.draw()?;
        Ok(true)
    }

    /// Redraws if something changed since the last frame.
    pub fn draw(&mut self) -> Result<()> {
        if self.dirty {
            self.dirty = false;
            let app = &self.app;
            self.terminal
                .draw(|f| f.render_widget(app, f.area()))
                .map_err(|e| anyhow!("cannot draw: {e}"))?;
        }
        Ok(())
    }
}

/// Runs the UI on the real terminal until the user quits.
pub fn run(opts: Options) -> Result<()> {
    let (terminal, guard) =
        crate::ui::runtime::terminal::enter().context("cannot set up the terminal")?;
    let mut rt = Runtime::start(terminal, opts, Theme::from_env())?;
    let tx = rt.sender();
    let _ = std::thread::Builder::new()
        .name("protolapse-input".into())
        .spawn(move || {
            loop {
                match ct::read() {
                    Ok(ev) => {
                        if tx.send(Event::Input(ev)).is_err() {
                            return;
                        }
                    }
                    Err(_) => {
                        let _ = tx.send(Event::InputClosed);
                        return;
                    }
                }
            }
        });
    while rt.pump(Duration::from_secs(3600))? {}
    let failed = load_error(&rt.app);
    drop(rt);
    drop(guard);
    match failed {
        Some(e) => Err(anyhow!(e)),
        None => Ok(()),
    }
}

/// The load error, if the load failed (for the exit code after the UI closes).
pub fn load_error(app: &App) -> Option<String> {
    match &app.phase {
        Phase::Failed(e) => Some(e.clone()),
        _ => None,
    }
}
