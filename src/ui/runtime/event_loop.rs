//! The event loop: draw the first frame at once, start the loader and the workers, then
//! turn each event into an action, hand requests to the workers, and redraw. Generic over
//! the backend, so the benchmark drives the same loop on an in-memory terminal.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

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
    /// When the last frame of results was drawn: results from the workers and the loader are
    /// drawn at most once per [`FRAME`] (a computation reports its progress a hundred
    /// times; each frame rendered takes a core from it), a key press at once.
    frame_at: Instant,
    /// When the last key press was drawn: the results it asked for (the next version's
    /// changes, the finder's list and its index) that arrive within a frame of it are drawn
    /// as they arrive, not a frame later.
    key_at: Instant,
}

/// The shortest time between two frames not asked for by a key press.
const FRAME: Duration = Duration::from_millis(16);

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
            frame_at: Instant::now(),
            key_at: Instant::now(),
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

    /// Waits for an event (at most `timeout`, or until a frame held back is due), handles it
    /// and every event already queued, then redraws if anything changed: at once after a key
    /// press, else once a frame's time has passed since the last one. Returns false when the
    /// loop should stop.
    pub fn pump(&mut self, timeout: Duration) -> Result<bool> {
        let wait = match self.frame_due() {
            Some(due) => due.saturating_duration_since(Instant::now()).min(timeout),
            None => timeout,
        };
        let mut input = false;
        match self.rx.recv_timeout(wait) {
            Ok(first) => {
                input |= matches!(first, Event::Input(_));
                let mut go = self.handle(first);
                while go && !self.app.quit {
                    match self.rx.try_recv() {
                        Ok(ev) => {
                            input |= matches!(ev, Event::Input(_));
                            go = self.handle(ev);
                        }
                        Err(_) => break,
                    }
                }
                if !go {
                    return Ok(false);
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(false),
        }
        if self.app.quit {
            return Ok(false);
        }
        if input {
            self.draw_key_press()?;
        } else if self.frame_due().is_some_and(|due| due <= Instant::now()) {
            self.draw()?;
            self.frame_at = Instant::now();
        }
        Ok(true)
    }

    /// When the frame held back is to be drawn; None when the screen is up to date.
    fn frame_due(&self) -> Option<Instant> {
        let now = Instant::now();
        let keyed = self.key_at.elapsed() < FRAME;
        self.dirty
            .then(|| if keyed { now } else { self.frame_at + FRAME })
    }

    /// Whether what the app holds is on screen (no frame is held back).
    pub fn on_screen(&self) -> bool {
        !self.dirty
    }

    /// Draws what a key press changed, at once; the results it asked for will be too.
    pub fn draw_key_press(&mut self) -> Result<()> {
        self.draw()?;
        self.key_at = Instant::now();
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::app::action::Command;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyCode, KeyEvent};

    /// A result that arrives within a frame of the last one waits for the frame's time (no
    /// longer); a key press is drawn at once, and so are the results that follow it within a
    /// frame (the next version's changes).
    #[test]
    fn results_wait_for_the_next_frame_and_keys_do_not() {
        let terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        let opts = Options {
            source: Source::Demo,
            load: LoadOptions::default(),
            root: None,
        };
        let mut rt = Runtime::start(terminal, opts, Theme { color: false }).unwrap();
        let start = Instant::now();
        while rt.app.project.is_none() && start.elapsed() < Duration::from_secs(60) {
            rt.pump(Duration::from_millis(10)).unwrap();
        }
        assert!(rt.app.project.is_some(), "the demo did not load");
        let settle = |rt: &mut Runtime<TestBackend>| {
            let since = Instant::now();
            // Each pump waits at most until the frame is due (other results may come first).
            while !rt.on_screen() && since.elapsed() < Duration::from_secs(2) {
                assert!(rt.pump(Duration::from_secs(5)).unwrap());
            }
            assert!(rt.on_screen(), "the held-back frame was not drawn");
        };

        let (mut held, mut followed) = (0, 0);
        for _ in 0..20 {
            // A key press: drawn at once.
            rt.apply(Action::Command(Command::Down));
            let key = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
            rt.sender().send(Event::Input(CtEvent::Key(key))).unwrap();
            rt.pump(Duration::ZERO).unwrap();
            assert!(rt.on_screen(), "a key press waited for the next frame");
            let keyed = Instant::now();

            // The results it asked for, within a frame of it: drawn as they arrive.
            for _ in 0..2 {
                rt.apply(Action::Command(Command::Down));
                rt.pump(Duration::ZERO).unwrap();
                if keyed.elapsed() < FRAME {
                    assert!(
                        rt.on_screen(),
                        "a result after a key press waited for a frame"
                    );
                    followed += 1;
                }
                settle(&mut rt);
            }

            // Past the key press's frame, a frame of results, then another result at once:
            // held back (unless this machine took a frame's time to get here), then drawn
            // within a frame.
            std::thread::sleep((keyed + FRAME).saturating_duration_since(Instant::now()));
            rt.apply(Action::Command(Command::Down));
            settle(&mut rt);
            let framed = rt.frame_at;
            rt.apply(Action::Command(Command::Down));
            rt.pump(Duration::ZERO).unwrap();
            if framed.elapsed() < FRAME {
                assert!(
                    !rt.on_screen(),
                    "drawn {:?} after the last frame",
                    framed.elapsed()
                );
                held += 1;
            }
            settle(&mut rt);
        }
        assert!(
            held > 0 && followed > 0,
            "of 20 tries, {held} held a result back within a frame of results, {followed} drew \
             one within a frame of a key press: this machine is too slow to tell"
        );
    }
}
