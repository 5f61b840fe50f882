//! The main views, one per key `1`–`4`.

pub(super) mod screen;

pub use crate::ui::app::action::View;
pub use crate::ui::widgets::layout::tabs;
