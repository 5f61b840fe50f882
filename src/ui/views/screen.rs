//! The whole screen: the top bar, the panes of the current view (the view draws them), the
//! footer, and an overlay on top; or a message when the terminal is too small or the load
//! failed.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::ui::app::{App, Overlay, Phase};
use crate::ui::panes::chrome::{Footer, TopBar};
use crate::ui::panes::finder::FinderPopup;
use crate::ui::panes::help::HelpPopup;
use crate::ui::widgets::layout::{self, MIN_HEIGHT, MIN_WIDTH};

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.theme;
        let a = self.view.areas(area, self.versions_width());
        if a.too_small {
            let msg = format!(
                "protolapse needs a terminal of at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is {}×{}. Enlarge it, or press q to quit.",
                area.width, area.height
            );
            let h = 4.min(area.height);
            let r = Rect::new(
                area.x,
                area.y + area.height.saturating_sub(h) / 2,
                area.width,
                h,
            );
            Paragraph::new(msg)
                .wrap(Wrap { trim: true })
                .style(t.warn())
                .render(r, buf);
            return;
        }
        (&TopBar(self)).render(a.top, buf);
        if let Phase::Failed(e) = &self.phase {
            let block = Block::bordered()
                .title(Span::styled(" Cannot load the history ", t.bad()))
                .border_style(t.bad());
            let r = layout::centered(
                a.body,
                a.body.width.saturating_sub(8).min(100),
                12.min(a.body.height),
            );
            let inner = block.inner(r);
            block.render(r, buf);
            let mut lines: Vec<Line> = e.lines().map(|l| Line::raw(l.to_string())).collect();
            lines.push(Line::raw(""));
            lines.push(Line::styled("Press q to quit.", t.dim()));
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .render(inner, buf);
            (&Footer(self)).render(a.footer, buf);
            return;
        }
        self.view.render(self, &a, buf);
        (&Footer(self)).render(a.footer, buf);
        match &self.overlay {
            Overlay::None => {}
            Overlay::Help { scroll, .. } => (&HelpPopup(self, *scroll)).render(area, buf),
            Overlay::Finder(f) => (&FinderPopup(self, f)).render(area, buf),
        }
    }
}
